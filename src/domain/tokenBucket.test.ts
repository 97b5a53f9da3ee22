import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BucketPolicy,
  type BucketState,
  giveTokenBack,
  parseRate,
  refillMs,
  takeToken,
} from './tokenBucket.ts';

const policy: BucketPolicy = { ratePerSecond: 100, burst: 200 };

function drain(p: BucketPolicy, nowMs: number, count: number, from?: BucketState) {
  let state = from;
  let allowed = 0;
  for (let i = 0; i < count; i += 1) {
    const next = takeToken(p, state, nowMs);
    state = next.state;
    if (next.decision.allowed) allowed += 1;
  }
  return { state: state!, allowed };
}

describe('takeToken', () => {
  it('lets a burst through at once, then refuses', () => {
    const { state, allowed } = drain(policy, 0, 250);
    expect(allowed).toBe(200);
    const refused = takeToken(policy, state, 0).decision;
    expect(refused).toStrictEqual({ allowed: false, remaining: 0, retryAfterMs: 10, fullInMs: 2000 });
  });

  it('refills at the rate: 10 ms buys one request at 100/s', () => {
    const { state } = drain(policy, 0, 200);
    expect(takeToken(policy, state, 9).decision.allowed).toBe(false);
    const next = takeToken(policy, state, 10);
    expect(next.decision.allowed).toBe(true);
    expect(next.decision.remaining).toBe(0);
    expect(takeToken(policy, next.state, 10).decision.allowed).toBe(false);
  });

  it('never holds more than the burst, however long the bucket rested', () => {
    const { state } = drain(policy, 0, 1);
    const later = takeToken(policy, state, 3_600_000);
    expect(later.decision.remaining).toBe(199);
    expect(later.state.tokens).toBe(199);
  });

  it('refills nothing when the clock steps backwards', () => {
    const { state } = drain(policy, 1_000, 200);
    const back = takeToken(policy, state, 0);
    expect(back.decision.allowed).toBe(false);
    expect(back.state.updatedAtMs).toBe(1_000);
  });

  it('reports the time to full and the remaining count', () => {
    const first = takeToken(policy, undefined, 0).decision;
    expect(first).toStrictEqual({ allowed: true, remaining: 199, retryAfterMs: 0, fullInMs: 10 });
  });

  it('never lets more than burst + rate × t through in t (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          ratePerSecond: fc.integer({ min: 1, max: 1000 }),
          burst: fc.integer({ min: 1, max: 500 }),
        }),
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 400 }),
        (p, gaps) => {
          let state: BucketState | undefined;
          let nowMs = 0;
          let allowed = 0;
          for (const gap of gaps) {
            nowMs += gap;
            const next = takeToken(p, state, nowMs);
            state = next.state;
            if (next.decision.allowed) allowed += 1;
            expect(next.state.tokens).toBeGreaterThanOrEqual(0);
            expect(next.state.tokens).toBeLessThanOrEqual(p.burst);
          }
          expect(allowed).toBeLessThanOrEqual(p.burst + Math.floor((p.ratePerSecond * nowMs) / 1000) + 1);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('parseRate', () => {
  it.each([
    ['100/s', 100],
    ['6000/m', 100],
    ['3600/h', 1],
    ['0.5/s', 0.5],
    [' 20 / s ', 20],
  ])('reads %s', (text, perSecond) => {
    expect(parseRate(text)).toBe(perSecond);
  });

  it.each(['', '100', '100/d', '-1/s', '0/s', 'abc/s', '1e3/s'])('refuses %s', (text) => {
    expect(parseRate(text)).toBeUndefined();
  });

  it('knows how long a bucket takes to fill', () => {
    expect(refillMs(policy)).toBe(2000);
  });
});

describe('takeToken, from a stored state', () => {
  const slow: BucketPolicy = { ratePerSecond: 1, burst: 5 };

  it('allows a request on a token short by no more than the floating-point slack', () => {
    const next = takeToken(slow, { tokens: 1 - 1e-9, updatedAtMs: 1_000 }, 1_000);
    expect(next.decision.allowed).toBe(true);
    expect(next.state.tokens).toBe(0);
  });

  it('takes nothing from a refused request, and says when the next token comes', () => {
    const next = takeToken(slow, { tokens: 0.25, updatedAtMs: 1_000 }, 1_000);
    expect(next.decision).toStrictEqual({ allowed: false, remaining: 0, retryAfterMs: 750, fullInMs: 4_750 });
    expect(next.state).toStrictEqual({ tokens: 0.25, updatedAtMs: 1_000 });
  });
});

describe('giveTokenBack', () => {
  const slow: BucketPolicy = { ratePerSecond: 1, burst: 5 };

  it('puts one token back on what has refilled since, never above the burst', () => {
    expect(giveTokenBack(slow, { tokens: 0.25, updatedAtMs: 1_000 }, 1_500)).toStrictEqual({
      tokens: 1.75,
      updatedAtMs: 1_500,
    });
    expect(giveTokenBack(slow, { tokens: 4.5, updatedAtMs: 1_000 }, 1_000).tokens).toBe(5);
    expect(giveTokenBack(slow, undefined, 1_000)).toStrictEqual({ tokens: 5, updatedAtMs: 1_000 });
  });

  it('undoes a take: taken and given back, the bucket is as if never asked', () => {
    const before: BucketState = { tokens: 2.5, updatedAtMs: 1_000 };
    const taken = takeToken(slow, before, 2_000).state;
    // 2.5 tokens and a second's refill: 3.5 at 2 s whether asked or not.
    expect(giveTokenBack(slow, taken, 2_000)).toStrictEqual({ tokens: 3.5, updatedAtMs: 2_000 });
  });
});

describe('parseRate, at its edges', () => {
  it('takes up to 6 decimals and nothing after the unit', () => {
    expect(parseRate('0.25/s')).toBe(0.25);
    expect(parseRate('0.000001/s')).toBe(0.000001);
    expect(parseRate('100/sx')).toBeUndefined();
  });
});
