import { describe, expect, it } from 'vitest';
import { bpsToPercent, percentToBps } from './commission.ts';
import {
  apiKeyMode,
  apiKeyPrefix,
  digestsEqual,
  hashApiKey,
  keyModeOf,
  newApiKey,
  newEventId,
  newMerchantId,
  newWebhookSecret,
  randomToken,
} from './credentials.ts';
import { parseDuration } from './duration.ts';

describe('credentials', () => {
  it('issues keys of at least 128 random bits, never twice', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => newApiKey('live')));
    expect(keys.size).toBe(1000);
    for (const key of keys) {
      expect(key).toMatch(/^sk_live_[0-9A-Za-z]{43}$/); // 43 × log2(62) ≈ 256 bits
      expect(apiKeyMode(key)).toBe('live');
    }
    expect(newApiKey('test')).toMatch(/^sk_test_/);
    expect(newMerchantId()).toMatch(/^mch_[0-9A-Za-z]{22}$/);
  });

  it('spreads random tokens over the whole alphabet', () => {
    const seen = new Set(randomToken(20_000));
    expect(seen.size).toBe(62);
  });

  it('hashes keys with SHA-256 and compares digests exactly', () => {
    const key = newApiKey('live');
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(digestsEqual(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(digestsEqual(hashApiKey(key), hashApiKey(`${key}x`))).toBe(false);
    expect(digestsEqual(hashApiKey(key), 'abcd')).toBe(false);
    // Same length, one character apart, first or last.
    const digest = hashApiKey(key);
    expect(digestsEqual(digest, `${digest.slice(0, -1)}${digest.endsWith('0') ? '1' : '0'}`)).toBe(false);
    expect(digestsEqual(digest, `${digest.startsWith('0') ? '1' : '0'}${digest.slice(1)}`)).toBe(false);
    // A prefix of the other is not equal to it, whichever side it is on.
    expect(digestsEqual(digest.slice(0, 32), digest)).toBe(false);
    expect(digestsEqual(digest, digest.slice(0, 32))).toBe(false);
  });

  it('reads a stored or posted mode: only "test" is test, anything else is live', () => {
    expect(keyModeOf('test')).toBe('test');
    for (const value of ['live', 'TEST', 'test ', '', undefined, null, 1])
      expect(keyModeOf(value)).toBe('live');
  });
});

describe('percentToBps and parseDuration', () => {
  it('reads percentages with at most 2 decimals between 0 and 100', () => {
    expect(percentToBps('2.5')).toBe(250);
    expect(percentToBps('0')).toBe(0);
    expect(percentToBps('100')).toBe(10_000);
    expect(percentToBps('0.01')).toBe(1);
    for (const bad of ['100.01', '-1', '0.001', 'abc', '']) expect(percentToBps(bad)).toBeUndefined();
  });

  it('reads durations', () => {
    expect(parseDuration('60m')).toBe(3_600_000);
    expect(parseDuration('24h')).toBe(86_400_000);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('1.5h')).toBeUndefined();
    expect(parseDuration('-5m')).toBeUndefined();
  });
});

describe('credentials, one by one', () => {
  it('tells a key’s mode from its prefix only', () => {
    expect(apiKeyMode('sk_test_abc')).toBe('test');
    expect(apiKeyMode('sk_live_abc')).toBe('live');
    expect(apiKeyMode('pk_live_abc')).toBeUndefined();
    expect(apiKeyMode('sk_live')).toBeUndefined();
    expect(apiKeyMode('x_sk_test_')).toBeUndefined();
  });

  it('draws every character of a token, the first ones included, from the random bytes', () => {
    // Too few random bytes would leave the token padded with leading zeros.
    const tokens = Array.from({ length: 50 }, () => randomToken(43));
    expect(tokens.filter((token) => token.startsWith('00')).length).toBeLessThan(5);
  });

  it('shows 12 characters of a key, and issues prefixed ids and secrets', () => {
    expect(apiKeyPrefix('sk_live_0123456789')).toBe('sk_live_0123');
    expect(newEventId()).toMatch(/^evt_[0-9A-Za-z]{22}$/);
    expect(Buffer.from(newWebhookSecret().replace(/^whsec_/, ''), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).toMatch(/^whsec_/);
  });

  it('reads a percentage with spaces around it, and writes basis points back as one', () => {
    expect(percentToBps(' 2.5 ')).toBe(250);
    expect(bpsToPercent(250)).toBe('2.5');
    expect(bpsToPercent(0)).toBe('0');
  });
});
