import { describe, expect, it } from 'vitest';
import { PaylinkError } from './errors.ts';
import { parseWebhookUrl } from './webhookUrl.ts';

const production = { allowInsecure: false };
const development = { allowInsecure: true };
const problem = (url: string, options = production) => {
  try {
    parseWebhookUrl('webhook_url', url, options);
    return undefined;
  } catch (error) {
    if (!(error instanceof PaylinkError)) throw error;
    expect(error.code).toBe('VALIDATION_ERROR');
    return error.message;
  }
};

describe('parseWebhookUrl', () => {
  it('accepts a public https URL and normalizes it', () => {
    expect(parseWebhookUrl('webhook_url', ' https://Shop.Example.com/hooks ', production)).toBe(
      'https://shop.example.com/hooks',
    );
  });

  it('refuses http, credentials and non-URLs in production', () => {
    expect(problem('http://shop.example.com/hooks')).toContain('must be an https URL');
    expect(problem('https://user:pw@shop.example.com/')).toContain('credentials');
    expect(problem('shop.example.com')).toContain('absolute URL');
  });

  it('refuses every blocked address family, in any spelling', () => {
    const cases: [string, string][] = [
      ['https://127.0.0.1/', 'a loopback'],
      ['https://2130706433/', 'a loopback'],
      ['https://0x7f000001/', 'a loopback'],
      ['https://0177.0.0.1/', 'a loopback'],
      ['https://127.1/', 'a loopback'],
      ['https://[::1]/', 'a loopback'],
      ['https://10.0.0.8/', 'a private'],
      ['https://192.168.0.10:8443/', 'a private'],
      ['https://[fd00::1]/', 'a private'],
      ['https://169.254.10.10/', 'a link-local'],
      ['https://[fe80::1]/', 'a link-local'],
      ['https://100.64.1.1/', 'a carrier-grade NAT'],
      ['https://224.0.0.251/', 'a multicast'],
      ['https://[ff02::1]/', 'a multicast'],
      ['https://0.0.0.0/', 'an unspecified'],
      ['https://[::]/', 'an unspecified'],
      ['https://169.254.169.254/latest/meta-data/', 'a cloud metadata'],
      ['https://[::ffff:127.0.0.1]/', 'an IPv4-mapped'],
      ['https://[::ffff:169.254.169.254]/', 'an IPv4-mapped'],
    ];
    for (const [url, phrase] of cases)
      expect(problem(url), url).toBe(`webhook_url: must not point to ${phrase} address`);
  });

  it('refuses names that only exist inside a network', () => {
    for (const url of [
      'https://localhost/',
      'https://LOCALHOST./',
      'https://api.localhost/',
      'https://printer.local/',
      'https://metadata.google.internal/',
      'https://router.home.arpa/',
      'https://intranet/',
    ]) {
      expect(problem(url), url).toBe('webhook_url: must name a public host');
    }
  });

  it('allows http and private hosts for local development, never cloud metadata', () => {
    expect(problem('http://127.0.0.1:4242/webhooks', development)).toBeUndefined();
    expect(problem('http://localhost:4242/', development)).toBeUndefined();
    expect(problem('http://169.254.169.254/', development)).toBe(
      'webhook_url: must not point to a cloud metadata address',
    );
  });
});

describe('parseWebhookUrl, at its edges', () => {
  const strict = { allowInsecure: false };
  const dev = { allowInsecure: true };

  it('takes up to 2048 characters, spaces around the URL not counted', () => {
    const base = 'https://example.com/';
    const longest = base + 'a'.repeat(2048 - base.length);
    expect(parseWebhookUrl('url', ` ${longest} `, strict)).toBe(longest);
    expect(() => parseWebhookUrl('url', `${longest}a`, strict)).toThrow(
      'url: must be at most 2048 characters',
    );
  });

  it('takes only http and https, even in development', () => {
    expect(() => parseWebhookUrl('url', 'ftp://example.com/x', dev)).toThrow('url: must be an http(s) URL');
    expect(parseWebhookUrl('url', 'http://example.com/x', dev)).toBe('http://example.com/x');
  });

  it('refuses a user name alone as credentials too', () => {
    expect(() => parseWebhookUrl('url', 'https://user@example.com/x', strict)).toThrow(
      'url: must not contain credentials',
    );
  });

  it('refuses internal names written with a trailing dot, and takes public names that merely contain one', () => {
    expect(() => parseWebhookUrl('url', 'https://printer.local./x', strict)).toThrow(
      'url: must name a public host',
    );
    expect(parseWebhookUrl('url', 'https://shop.internal.example.com/x', strict)).toBe(
      'https://shop.internal.example.com/x',
    );
  });
});
