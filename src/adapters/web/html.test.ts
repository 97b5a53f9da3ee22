import { describe, expect, it } from 'vitest';
import { escapeHtml, format, html } from './html.ts';

describe('escapeHtml', () => {
  it('escapes every character that can end text or an attribute value', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y' \`z\``)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39; &#96;z&#96;',
    );
  });

  it('leaves ordinary text, including non-ASCII, alone', () => {
    expect(escapeHtml('Café Müller — 100 % naïve')).toBe('Café Müller — 100 % naïve');
  });

  it('escapes an already escaped entity again (text stays text)', () => {
    expect(escapeHtml('&lt;')).toBe('&amp;lt;');
  });
});

describe('html', () => {
  it('escapes interpolated strings in content and in attributes', () => {
    const name = '"><img src=x onerror=alert(1)>';
    expect(html`<p title="${name}">${name}</p>`.toString()).toBe(
      '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</p>',
    );
  });

  it('nests its own output unescaped, renders arrays, numbers and bigints, and drops null, undefined, false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`${inner}${[html`<br>`, 'a&b']}${1}${2n}${null}${undefined}${false}`.toString()).toBe(
      '<b>&lt;i&gt;</b><br>a&amp;b12',
    );
  });

  it('does not take a string that looks like markup for markup', () => {
    const pretending = { toString: () => '<b>' } as unknown as string;
    expect(html`${pretending}`.toString()).toBe('&lt;b&gt;');
  });
});

describe('format', () => {
  it('escapes the message and string parameters, and inserts markup parameters as markup', () => {
    expect(
      format('Pay <{merchant}> {amount}', {
        merchant: 'A & "B"',
        amount: html`<strong>1.00</strong>`,
      }).toString(),
    ).toBe('Pay &lt;A &amp; &quot;B&quot;&gt; <strong>1.00</strong>');
  });

  it('fills a parameter used twice, and numbers', () => {
    expect(format('{a}-{b}-{a}', { a: 'x', b: 137 }).toString()).toBe('x-137-x');
  });

  it('refuses a message whose parameter is missing rather than showing {name} to a customer', () => {
    expect(() => format('Hello {name}', {})).toThrow(/\{name\} is missing/);
  });
});
