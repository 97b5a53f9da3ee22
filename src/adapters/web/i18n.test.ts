import IntlMessageFormat from 'intl-messageformat';
import { describe, expect, it, vi } from 'vitest';
import { format, html } from './html.ts';
import { fill, LANGUAGES, Message, type MessageTable, messagesByLanguage } from './i18n.ts';

describe('Message', () => {
  it('chooses a plural form by the language’s rules: French 0 and 1 are singular, English only 1', () => {
    const en = new Message('en', '{n, plural, one {{n} block} other {{n} blocks}}');
    const fr = new Message('fr', '{n, plural, one {{n} bloc} other {{n} blocs}}');
    expect([0, 1, 2].map((n) => fill(en, { n }))).toEqual(['0 blocks', '1 block', '2 blocks']);
    expect([0, 1, 2].map((n) => fill(fr, { n }))).toEqual(['0 bloc', '1 bloc', '2 blocs']);
  });

  it('shows a number as its plain digits: localeFormat.ts writes the figures a reader sees', () => {
    expect(
      fill(new Message('de', 'Chain {chain}: {n, plural, one {{n} Block} other {{n} Blöcke}}'), {
        chain: 80002,
        n: 12345,
      }),
    ).toBe('Chain 80002: 12345 Blöcke');
  });

  it('names its arguments and what each is for', () => {
    const message = new Message(
      'en',
      '{who} sent {n, plural, one {{n} {unit}} other {{n} {unit}s}} by {via, select, web {the web} other {mail}}',
    );
    expect([...message.arguments()]).toEqual([
      ['who', 'text'],
      ['n', 'plural'],
      ['unit', 'text'],
      ['via', 'select'],
    ]);
  });

  it('refuses a number, date or tag format: figures come written, and a message is text', () => {
    for (const source of ['{n, number}', '{d, date, short}', '{d, time}', '<b>{x}</b>x']) {
      const message = new Message('en', source);
      if (source.startsWith('<')) {
        // With tags ignored, `<b>` is two characters of text, not markup.
        expect(message.arguments().get('x')).toBe('text');
        expect(fill(message, { x: '1' })).toBe('<b>1</b>x');
      } else expect(() => message.arguments()).toThrow(/a type messages do not use/);
    }
  });

  it('parses a message once, however often a page formats it', () => {
    // The static parser every IntlMessageFormat built from a string calls (typed as a property, not a method).
    const parse = vi.spyOn(
      IntlMessageFormat as unknown as { __parse: (...args: never[]) => unknown },
      '__parse',
    );
    try {
      const message = new Message('es', 'Pagar a {merchant}');
      expect(parse).not.toHaveBeenCalled();
      expect([fill(message, { merchant: 'A' }), fill(message, { merchant: 'B' })]).toEqual([
        'Pagar a A',
        'Pagar a B',
      ]);
      message.arguments();
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('refuses a missing argument rather than showing {name}', () => {
    expect(() => fill(new Message('en', 'Pay {merchant}'), {})).toThrow(/\{merchant\} is missing/);
  });

  it('is text: fill leaves escaping to where it lands, format escapes all but markup arguments', () => {
    const message = new Message('fr', 'Payer <{merchant}> {amount}');
    expect(fill(message, { merchant: 'A & B', amount: '1' })).toBe('Payer <A & B> 1');
    expect(format(message, { merchant: 'A & B', amount: html`<strong>1,00</strong>` }).toString()).toBe(
      'Payer &lt;A &amp; B&gt; <strong>1,00</strong>',
    );
  });
});

describe('messagesByLanguage', () => {
  const en = {
    title: 'Payments',
    note: { count: '{n, plural, one {{n} payment} other {{n} payments}}' },
  } as const;
  const fr: MessageTable<typeof en> = {
    title: 'Paiements',
    note: { count: '{n, plural, one {{n} paiement} other {{n} paiements}}' },
  };
  const tables = messagesByLanguage(en, { en, fr, de: en, es: en });

  it('gives a message without arguments as its text and one with arguments as a Message in its language', () => {
    expect(tables.fr.title).toBe('Paiements');
    expect(tables.fr.note.count).toBeInstanceOf(Message);
    expect(tables.fr.note.count.language).toBe('fr');
    expect(fill(tables.fr.note.count, { n: 0 })).toBe('0 paiement');
    expect(fill(tables.en.note.count, { n: 0 })).toBe('0 payments');
    expect(Object.keys(tables)).toEqual([...LANGUAGES]);
  });
});
