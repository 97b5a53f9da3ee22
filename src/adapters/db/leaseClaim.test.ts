import { describe, expect, it } from 'vitest';
import { leaseWindow } from './leaseClaim.ts';

describe('leaseWindow', () => {
  const now = new Date('2026-01-01T00:00:00.000Z');

  it('reads due rows at now and leases them for leaseMs, as stored text', () => {
    expect(leaseWindow(now, 10, 100, 30_000)).toEqual({
      nowText: '2026-01-01T00:00:00.000Z',
      leasedUntil: '2026-01-01T00:00:30.000Z',
    });
  });

  it('takes from one row up to the most the queue allows', () => {
    expect(() => leaseWindow(now, 1, 100, 1)).not.toThrow();
    expect(() => leaseWindow(now, 100, 100, 1)).not.toThrow();
  });

  it.each([0, -1, 1.5, 101, Number.NaN])('refuses a claim limit of %s', (limit) => {
    expect(() => leaseWindow(now, limit, 100, 30_000)).toThrow(new RangeError('bad claim limit'));
  });

  it.each([0, -1, 0.5, Number.NaN])('refuses a lease of %s ms', (leaseMs) => {
    expect(() => leaseWindow(now, 10, 100, leaseMs)).toThrow(new RangeError('bad lease'));
  });
});
