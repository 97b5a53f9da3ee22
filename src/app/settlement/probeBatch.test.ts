import { describe, expect, it } from 'vitest';
import { FakeRelayer } from '../../../test/fakes/fakeRelayer.ts';
import { MERCHANT, settlementCandidate, TREASURY } from '../../../test/fakes/settlementCandidate.ts';
import type { FlushCall, FlushOutcome } from './ports.ts';
import { flushCall, probeBatch } from './probeBatch.ts';

const batch = (n: number) => Array.from({ length: n }, (_, i) => settlementCandidate(i + 1));
const ids = (items: readonly { candidate: { paymentId: string } }[]) =>
  items.map((i) => i.candidate.paymentId);
const both = (reason: string) => ({ merchant: reason, commission: reason });

/** A relayer whose batches revert when they contain any of `bad` (payment number → reason). */
function revertingWith(bad: ReadonlyMap<number, string>): FakeRelayer {
  const relayer = new FakeRelayer();
  const check = (call: FlushCall) => {
    for (const [n, reason] of bad)
      if (call.items.some((i) => i.paymentId === settlementCandidate(n).paymentId)) return reason;
    return undefined;
  };
  const defaultSimulate = relayer.simulate;
  relayer.estimate = (call) => {
    const reason = check(call);
    return reason === undefined ? { ok: true, gas: 1n } : { ok: false, reason };
  };
  relayer.simulate = (call) => {
    const reason = check(call);
    return reason === undefined ? defaultSimulate(call) : { ok: false, reason };
  };
  return relayer;
}

describe('probeBatch, version 1 (a flush moves everything or reverts)', () => {
  it('moves the whole batch when its estimate passes, in one call', async () => {
    const relayer = new FakeRelayer();
    const probed = await probeBatch(relayer, 1, batch(3));
    expect(ids(probed.movable)).toEqual(batch(3).map((c) => c.paymentId));
    expect(probed.movable.every((m) => m.held === null)).toBe(true);
    expect(probed.stuck).toEqual([]);
    expect(relayer.calls.estimate).toHaveLength(1);
    expect(relayer.calls.simulate).toEqual([]);
  });

  it('bisects a reverting batch to set aside exactly the members that revert alone, each with its reason', async () => {
    const relayer = revertingWith(
      new Map([
        [2, 'blacklisted'],
        [5, 'paused'],
      ]),
    );
    const probed = await probeBatch(relayer, 1, batch(5));
    expect(probed.stuck).toEqual([
      { candidate: settlementCandidate(2), cause: both('blacklisted') },
      { candidate: settlementCandidate(5), cause: both('paused') },
    ]);
    expect(ids(probed.movable)).toEqual([1, 3, 4].map((n) => settlementCandidate(n).paymentId));
    // The whole, halves [1,2,3] and [4,5], then [1,2] [3] [4] [5], [1] [2], and the rest again.
    expect(relayer.calls.estimate.map((c) => c.items.length)).toEqual([5, 3, 2, 1, 1, 1, 2, 1, 1, 3]);
  });

  it('sets aside a batch of one that reverts without bisecting it', async () => {
    const relayer = revertingWith(new Map([[1, 'paused']]));
    const probed = await probeBatch(relayer, 1, batch(1));
    expect(probed).toEqual({
      movable: [],
      stuck: [{ candidate: settlementCandidate(1), cause: both('paused') }],
    });
    expect(relayer.calls.estimate).toHaveLength(1);
  });

  it('blames every member when each passes alone but the rest still reverts together', async () => {
    const relayer = new FakeRelayer();
    relayer.estimate = (call) =>
      call.items.length === 4 ? { ok: false, reason: 'out of gas' } : { ok: true, gas: 1n };
    const probed = await probeBatch(relayer, 1, batch(4));
    expect(probed.movable).toEqual([]);
    expect(probed.stuck).toEqual(
      batch(4).map((candidate) => ({
        candidate,
        cause: both('reverts only together with other payments: out of gas'),
      })),
    );
  });
});

describe('probeBatch, version 2 (each share on its own)', () => {
  function withOutcomes(outcomes: readonly FlushOutcome[]): FakeRelayer {
    const relayer = new FakeRelayer();
    relayer.simulate = () => ({ ok: true, outcomes });
    return relayer;
  }
  const sends = { merchantSent: 990_000n, feeSent: 10_000n, merchantOwed: 0n, feeOwed: 0n };

  it('simulates once and moves what sends everything', async () => {
    const relayer = withOutcomes([sends, sends]);
    const probed = await probeBatch(relayer, 2, batch(2));
    expect(probed).toEqual({ movable: batch(2).map((candidate) => ({ candidate, held: null })), stuck: [] });
    expect(relayer.calls.simulate).toHaveLength(1);
    expect(relayer.calls.estimate).toEqual([]);
  });

  it('sets aside a member that would move nothing and hold nothing', async () => {
    const probed = await probeBatch(
      withOutcomes([sends, { merchantSent: 0n, feeSent: 0n, merchantOwed: 0n, feeOwed: 0n }]),
      2,
      batch(2),
    );
    expect(ids(probed.movable)).toEqual([settlementCandidate(1).paymentId]);
    expect(probed.stuck).toEqual([
      {
        candidate: settlementCandidate(2),
        cause: {
          merchant:
            'the deposit address holds nothing to flush (flushed by another account, or not final yet?)',
        },
      },
    ]);
  });

  it('sends a member that would hold one share, noting why in the token’s words', async () => {
    const relayer = withOutcomes([
      { merchantSent: 0n, feeSent: 10_000n, merchantOwed: 990_000n, feeOwed: 0n },
      { merchantSent: 990_000n, feeSent: 0n, merchantOwed: 0n, feeOwed: 10_000n },
    ]);
    relayer.refusals.set(MERCHANT, 'Blacklistable: account is blacklisted');
    const probed = await probeBatch(relayer, 2, batch(2));
    expect(probed.stuck).toEqual([]);
    expect(probed.movable).toEqual([
      {
        candidate: settlementCandidate(1),
        held: { merchant: 'Blacklistable: account is blacklisted', commission: undefined },
      },
      {
        candidate: settlementCandidate(2),
        held: {
          merchant: undefined,
          commission: 'the transfer failed inside the forwarder, though the token accepts it now (retried)',
        },
      },
    ]);
  });

  it('sets aside a member that would send nothing and hold both shares, with both reasons', async () => {
    const relayer = withOutcomes([
      { merchantSent: 0n, feeSent: 0n, merchantOwed: 990_000n, feeOwed: 10_000n },
    ]);
    relayer.refusals.set(MERCHANT, 'merchant blacklisted');
    relayer.refusals.set(TREASURY, 'treasury blacklisted');
    const probed = await probeBatch(relayer, 2, batch(1));
    expect(probed).toEqual({
      movable: [],
      stuck: [
        {
          candidate: settlementCandidate(1),
          cause: { merchant: 'merchant blacklisted', commission: 'treasury blacklisted' },
        },
      ],
    });
  });

  it('keeps the batch order with more members than diagnoses run at once', async () => {
    const held = { merchantSent: 0n, feeSent: 10_000n, merchantOwed: 990_000n, feeOwed: 0n };
    const outcomes = Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? held : sends));
    const probed = await probeBatch(withOutcomes(outcomes), 2, batch(20));
    expect(ids(probed.movable)).toEqual(batch(20).map((c) => c.paymentId));
    expect(probed.movable.map((m) => m.held !== null)).toEqual(outcomes.map((o) => o === held));
  });

  it('moves a member whose shares are equal, and notes both shares held when equal amounts stay', async () => {
    const relayer = withOutcomes([
      { merchantSent: 5n, feeSent: 5n, merchantOwed: 0n, feeOwed: 0n },
      { merchantSent: 1n, feeSent: 0n, merchantOwed: 5n, feeOwed: 5n },
    ]);
    const probed = await probeBatch(relayer, 2, batch(2));
    expect(probed.stuck).toEqual([]);
    expect(probed.movable.map((m) => m.held)).toEqual([
      null,
      {
        merchant: 'the transfer failed inside the forwarder, though the token accepts it now (retried)',
        commission: 'the transfer failed inside the forwarder, though the token accepts it now (retried)',
      },
    ]);
  });

  it('classifies what the rest of a bisected batch would do', async () => {
    const relayer = revertingWith(new Map([[1, 'paused']]));
    relayer.simulate = (call) =>
      call.items.some((i) => i.paymentId === settlementCandidate(1).paymentId)
        ? { ok: false, reason: 'paused' }
        : {
            ok: true,
            outcomes: call.items.map(() => ({
              merchantSent: 0n,
              feeSent: 1n,
              merchantOwed: 1n,
              feeOwed: 0n,
            })),
          };
    relayer.refusals.set(MERCHANT, 'merchant blacklisted');
    const probed = await probeBatch(relayer, 2, batch(3));
    expect(probed.stuck).toEqual([{ candidate: settlementCandidate(1), cause: both('paused') }]);
    expect(probed.movable).toEqual(
      [2, 3].map((n) => ({
        candidate: settlementCandidate(n),
        held: { merchant: 'merchant blacklisted', commission: undefined },
      })),
    );
  });

  it('bisects with simulations when the whole batch would revert', async () => {
    const relayer = revertingWith(new Map([[3, 'paused']]));
    const probed = await probeBatch(relayer, 2, batch(3));
    expect(probed.stuck).toEqual([{ candidate: settlementCandidate(3), cause: both('paused') }]);
    expect(ids(probed.movable)).toEqual([1, 2].map((n) => settlementCandidate(n).paymentId));
    expect(relayer.calls.estimate).toEqual([]);
  });
});

describe('flushCall', () => {
  it('is the first member’s factory and token, with each member’s forwarder params', () => {
    expect(flushCall(2, batch(2))).toEqual({
      factoryAddress: settlementCandidate(1).factoryAddress,
      version: 2,
      tokenAddress: settlementCandidate(1).tokenAddress,
      items: batch(2).map((c) => ({
        paymentId: c.paymentId,
        merchantAddress: MERCHANT,
        treasuryAddress: TREASURY,
        commissionBps: 100,
      })),
    });
  });

  it('refuses an empty batch', () => {
    expect(() => flushCall(1, [])).toThrow(new RangeError('empty flush batch'));
  });
});
