import { describe, expect, it } from 'vitest';
import { agreeOnRate, invertPrice } from './rates.ts';

const at = (iso: string) => new Date(iso);
const now = at('2026-11-21T12:00:00Z');
const obs = (source: string, units: bigint, observedAt = now) => ({
  source,
  usdcPerUnit: { units, scale: 8 },
  observedAt,
});
const options = { now, maxAgeMs: 10 * 60_000, maxSpreadBps: 100 };

describe('invertPrice', () => {
  it('turns "fiat per USDC" into "USDC per fiat", half-up at 8 decimals', () => {
    expect(invertPrice({ units: 9259n, scale: 4 })).toStrictEqual({ units: 108003024n, scale: 8 }); // 1/0.9259
    expect(invertPrice({ units: 15231n, scale: 2 })).toStrictEqual({ units: 656556n, scale: 8 }); // 1/152.31
    expect(invertPrice({ units: 1n, scale: 0 })).toStrictEqual({ units: 100000000n, scale: 8 });
  });
});

describe('agreeOnRate', () => {
  it('takes the median of fresh sources (mean of the middle two for an even count)', () => {
    expect(
      agreeOnRate([obs('a', 108000000n), obs('b', 108100000n), obs('c', 107900000n)], options),
    ).toMatchObject({
      usdcPerUnit: { units: 108000000n, scale: 8 },
    });
    expect(agreeOnRate([obs('a', 108000000n), obs('b', 108000001n)], options)).toMatchObject({
      usdcPerUnit: { units: 108000001n, scale: 8 }, // 108000000.5 rounded half-up
      sources: ['a', 'b'],
    });
  });

  it('ignores stale sources and refuses when none is fresh', () => {
    const stale = at('2026-11-21T11:49:59Z');
    expect(agreeOnRate([obs('a', 108000000n, stale), obs('b', 109000000n)], options)).toMatchObject({
      usdcPerUnit: { units: 109000000n },
      sources: ['b'],
    });
    expect(agreeOnRate([obs('a', 108000000n, stale)], options)).toStrictEqual({ reason: 'none_fresh' });
    expect(agreeOnRate([], options)).toStrictEqual({ reason: 'none_fresh' });
  });

  it('refuses when fresh sources disagree beyond the bound', () => {
    expect(agreeOnRate([obs('a', 100000000n), obs('b', 101000000n)], options)).toMatchObject({
      usdcPerUnit: {},
    });
    expect(agreeOnRate([obs('a', 100000000n), obs('b', 101000001n)], options)).toStrictEqual({
      reason: 'diverged',
      spreadBps: 101n,
    });
  });
});

describe('rates, at their edges', () => {
  it('refuses to invert a price of zero', () => {
    expect(() => invertPrice({ units: 0n, scale: 2 })).toThrow(new RangeError('a price must be positive'));
  });

  it('counts an observation exactly maxAgeMs old as fresh, and ignores a rate of zero', () => {
    const edge = new Date(now.getTime() - options.maxAgeMs);
    expect(agreeOnRate([obs('old', 108000000n, edge)], options)).toMatchObject({ sources: ['old'] });
    expect(agreeOnRate([obs('zero', 0n), obs('b', 108000000n)], options)).toMatchObject({ sources: ['b'] });
  });

  it('rounds an observation with more than 8 decimals half-up', () => {
    const fine = { source: 'fine', usdcPerUnit: { units: 1080000005n, scale: 9 }, observedAt: now };
    expect(agreeOnRate([fine], options)).toMatchObject({ usdcPerUnit: { units: 108000001n, scale: 8 } });
  });

  it('takes the mean of the middle two of an even count, observed as of the oldest', () => {
    const older = at('2026-11-21T11:55:00Z');
    expect(agreeOnRate([obs('a', 100000000n, older), obs('b', 101000000n)], options)).toStrictEqual({
      usdcPerUnit: { units: 100500000n, scale: 8 },
      sources: ['a', 'b'],
      observedAt: older,
    });
  });
});
