import { describe, expect, it } from 'vitest';
import type { BridgeTransfer } from './ports.ts';
import { attestationWait, failedStep } from './setbacks.ts';

const T0 = new Date('2026-12-04T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
/** A transfer as the two rules read it: how often it was tried, and since when it waits. */
const transfer = (attempts: number, createdAt = T0) => ({ attempts, createdAt }) as BridgeTransfer;
const wait = { reason: 'attestation pending', pollMs: 2_000, expectedMs: 20_000, retryAfterMs: null };

describe('failedStep', () => {
  it('retries after the settler’s back-off for one failure more, and reports a stall at once', () => {
    expect(failedStep(transfer(0), 'reverted', at(5))).toEqual({
      reason: 'reverted',
      nextAttemptAt: at(5 + 10_000),
      stalled: true,
    });
    expect(failedStep(transfer(2), 'rpc down', T0).nextAttemptAt).toEqual(at(40_000));
    expect(failedStep(transfer(50), 'rpc down', T0).nextAttemptAt).toEqual(at(60 * 60_000));
  });
});

describe('attestationWait', () => {
  it('polls after pollMs, doubling with each attempt, never more than a minute apart', () => {
    expect(attestationWait(transfer(0), wait, T0)).toEqual({
      reason: 'attestation pending',
      nextAttemptAt: at(2_000),
      stalled: false,
    });
    expect(attestationWait(transfer(3), wait, T0).nextAttemptAt).toEqual(at(16_000));
    expect(attestationWait(transfer(4), wait, T0).nextAttemptAt).toEqual(at(32_000));
    expect(attestationWait(transfer(5), wait, T0).nextAttemptAt).toEqual(at(60_000)); // 64 s, capped
    expect(attestationWait(transfer(1_000), wait, T0).nextAttemptAt).toEqual(at(60_000));
  });

  it('takes the API’s own wait as it is, but never sooner than pollMs', () => {
    expect(attestationWait(transfer(5), { ...wait, retryAfterMs: 90_000 }, T0).nextAttemptAt).toEqual(
      at(90_000),
    );
    expect(attestationWait(transfer(5), { ...wait, retryAfterMs: 1_999 }, T0).nextAttemptAt).toEqual(
      at(2_000),
    );
    expect(attestationWait(transfer(0), { ...wait, retryAfterMs: 2_001 }, T0).nextAttemptAt).toEqual(
      at(2_001),
    );
  });

  it('is a stall from exactly the time its speed normally takes, not a millisecond before', () => {
    expect(attestationWait(transfer(1), wait, at(wait.expectedMs - 1)).stalled).toBe(false);
    expect(attestationWait(transfer(1), wait, at(wait.expectedMs)).stalled).toBe(true);
  });

  it('asks a steady (fast) transfer every pollMs, never doubled, until it is late; then backs off', () => {
    const steady = { ...wait, steady: true };
    expect(attestationWait(transfer(0), steady, T0).nextAttemptAt).toEqual(at(2_000));
    const lastOnTime = at(wait.expectedMs - 1);
    expect(attestationWait(transfer(9), steady, lastOnTime).nextAttemptAt).toEqual(
      at(wait.expectedMs - 1 + 2_000),
    );
    const late = at(wait.expectedMs);
    expect(attestationWait(transfer(3), steady, late).nextAttemptAt).toEqual(at(wait.expectedMs + 16_000));
    expect(attestationWait(transfer(9), steady, late).stalled).toBe(true);
  });
});
