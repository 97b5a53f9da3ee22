import { describe, expect, it } from 'vitest';
import { dateOrNull, flag, oneOf } from './storedValues.ts';

describe('stored values', () => {
  const STATUSES = ['pending', 'paid'] as const;

  it('reads a member of the set as itself', () => {
    expect(oneOf(STATUSES, 'paid', 'status')).toBe('paid');
  });

  it.each(['', 'PAID', 'paid ', 'refunded'])('refuses %j, naming the column and the value', (text) => {
    expect(() => oneOf(STATUSES, text, "payment pay_1's status")).toThrow(
      new Error(`payment pay_1's status has an unknown value: ${text}`),
    );
  });

  it('keeps a null time null and reads an ISO time to the millisecond', () => {
    expect(dateOrNull(null)).toBeNull();
    expect(dateOrNull('2026-12-05T10:00:00.123Z')?.getTime()).toBe(Date.UTC(2026, 11, 5, 10, 0, 0, 123));
  });

  it.each([
    [1, true],
    ['1', true],
    [0, false],
    ['0', false],
    [2, false],
  ] as const)('reads the flag %j as %s', (value, expected) => {
    expect(flag(value)).toBe(expected);
  });
});
