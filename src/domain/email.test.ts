import { describe, expect, it } from 'vitest';
import {
  findRemoteContent,
  isEmailAddress,
  isLanguageTag,
  isPermanentRefusal,
  nextEmailState,
  type SmtpOutcome,
} from './email.ts';

describe('isEmailAddress', () => {
  it.each(['ann@example.com', 'a.b+tag@mail.example.co.uk', "o'brien@x-y.example", 'x@a.io'])(
    'takes %s',
    (text) => expect(isEmailAddress(text)).toBe(true),
  );
  it.each([
    '',
    'ann',
    'ann@localhost',
    'Ann <ann@example.com>',
    'ann@example.com\r\nBcc: all@example.com',
    'ann@example.com,bob@example.com',
    ' ann@example.com',
    '.ann@example.com',
    'an..n@example.com',
    'ann@-example.com',
    '"ann"@example.com',
    `${'a'.repeat(65)}@example.com`,
    `ann@${'a'.repeat(250)}.com`,
  ])('refuses %j', (text) => expect(isEmailAddress(text)).toBe(false));
});

describe('findRemoteContent', () => {
  it.each([
    '<p>Paid</p><img src="https://t.example/p.gif" width="1">',
    '<table background="https://x.example/b.png"></table>',
    '<div style="background: url(https://x.example/b.png)">',
    '<style>@import "https://x.example/s.css";</style>',
    '<link rel="stylesheet" href="https://x.example/s.css">',
    '<iframe></iframe>',
    '<picture><source srcset="x.png"></picture>',
  ])('finds it in %s', (html) => expect(findRemoteContent(html)).toBeDefined());

  it('lets links and a customer’s own words through', () => {
    expect(
      findRemoteContent(
        '<p style="color:#333">Order “src=1 url(x)”</p><a href="https://pay.example/pay/1" style="padding:8px">Pay</a>',
      ),
    ).toBeUndefined();
  });
});

describe('nextEmailState', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const schedule = [10_000, 60_000];
  const refused = (responseCode: number | undefined, stage: 'connection' | 'authentication' | 'message') =>
    ({ kind: 'refused', responseCode, stage, error: 'x' }) as const;
  const next = (outcome: SmtpOutcome, attempts: number) =>
    nextEmailState({ outcome, attempts, scheduleMs: schedule, now, random: () => 0.5 });

  it('sent once accepted', () => {
    expect(next({ kind: 'accepted', messageId: '<1@x>', response: '250 ok' }, 1)).toEqual({
      status: 'sent',
      nextAttemptAt: null,
    });
  });
  it('failed for good on a 5xx to the message, whatever the schedule still holds', () => {
    expect(next(refused(550, 'message'), 1)).toEqual({ status: 'failed', nextAttemptAt: null });
    expect(isPermanentRefusal(refused(554, 'message'))).toBe(true);
  });
  it('retried on 4xx, on no answer, and on a 5xx before the message (login, TLS): the operator’s to fix', () => {
    for (const outcome of [
      refused(451, 'message'),
      refused(undefined, 'connection'),
      refused(535, 'authentication'),
      refused(500, 'connection'),
    ]) {
      expect(isPermanentRefusal(outcome)).toBe(false);
      expect(next(outcome, 1)).toEqual({ status: 'queued', nextAttemptAt: new Date(now.getTime() + 10_000) });
      expect(next(outcome, 2)).toEqual({ status: 'queued', nextAttemptAt: new Date(now.getTime() + 60_000) });
      expect(next(outcome, 3)).toEqual({ status: 'failed', nextAttemptAt: null });
    }
  });
  it('jitters the delay like webhooks', () => {
    const early = nextEmailState({
      outcome: refused(451, 'message'),
      attempts: 1,
      scheduleMs: schedule,
      now,
      random: () => 0,
    });
    expect(early.nextAttemptAt).toEqual(new Date(now.getTime() + 9_000));
  });
  it('refuses a count that is not an attempt', () => {
    expect(() => next(refused(451, 'message'), 0)).toThrow(new RangeError('bad attempt count 0'));
  });
  it('calls every 5xx to the message final, from 500 to 599, and nothing outside them', () => {
    expect(isPermanentRefusal(refused(500, 'message'))).toBe(true);
    expect(isPermanentRefusal(refused(599, 'message'))).toBe(true);
    expect(isPermanentRefusal(refused(499, 'message'))).toBe(false);
    expect(isPermanentRefusal(refused(600, 'message'))).toBe(false);
  });
});

describe('isEmailAddress at its bounds', () => {
  // 64 + 1 + 189 = 254 characters: the longest address taken.
  const address = (lastLabel: number) =>
    `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(lastLabel)}`;

  it('takes an address of 254 characters and refuses one of 255', () => {
    expect(address(61)).toHaveLength(254);
    expect(isEmailAddress(address(61))).toBe(true);
    expect(isEmailAddress(address(62))).toBe(false);
  });

  it('refuses a local part ending in a dot, or with two dots inside, and a domain label ending in a hyphen', () => {
    expect(isEmailAddress('ann.@example.com')).toBe(false);
    expect(isEmailAddress('a..nn@example.com')).toBe(false);
    expect(isEmailAddress('ann@example-.com')).toBe(false);
    expect(isEmailAddress('a.nn@ex-ample.com')).toBe(true);
  });
});

describe('isLanguageTag', () => {
  it('takes a language, or a language and its region, as stored', () => {
    for (const tag of ['en', 'fr', 'haw', 'pt-BR']) expect(isLanguageTag(tag), tag).toBe(true);
  });

  it('refuses anything else, in part or whole', () => {
    for (const tag of ['english', 'EN', 'pt-br', 'pt-B', 'pt-BRA', 'x-pt-BR', 'pt-BR ', ' en', 'pt-B1'])
      expect(isLanguageTag(tag), tag).toBe(false);
  });
});

describe('findRemoteContent, every way of writing it', () => {
  it.each([
    '<p data ="https://x.example/b.png">',
    '<style type="text/css">p { background:url(https://x.example/b.png) }</style>',
    '<style>p { background: url (https://x.example/b.png) }</style>',
    '<p style = "color:red; background: url (https://x.example/b.png)">',
    "<p style='color:red; background:url(https://x.example/b.png)'>",
  ])('finds it in %s', (html) => expect(findRemoteContent(html)).toBeDefined());
});
