import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it('reads each unit, a bare number as milliseconds, spaces around it ignored', () => {
    expect(parseDuration(' 90s ')).toBe(90_000);
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('60m')).toBe(3_600_000);
    expect(parseDuration('24h')).toBe(86_400_000);
    expect(parseDuration('7d')).toBe(604_800_000);
  });

  it('refuses other text and durations past a safe integer of milliseconds', () => {
    for (const text of ['', 's', '1.5s', '-1s', '1w', '5 s', '1234567890123']) {
      expect(parseDuration(text)).toBeUndefined();
    }
    expect(parseDuration('999999999999d')).toBeUndefined();
  });
});
