import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countedTransfers,
  derivePaymentState,
  eventForTransition,
  type ObservedTransfer,
  stateHoldsUntil,
} from './paymentStatus.ts';

const expiresAt = new Date('2026-11-21T13:00:00Z');
const before = new Date('2026-11-21T12:30:00Z');
const after = new Date('2026-11-21T13:30:00Z');
const terms = { requiredBaseUnits: 100_000_000n, underpaymentToleranceBps: 0, expiresAt };

let block = 0n;
const transfer = (amount: bigint, at: Date, final = true, orphaned = false): ObservedTransfer => ({
  amountBaseUnits: amount,
  blockNumber: ++block,
  logIndex: 0,
  blockTimestamp: at,
  final,
  orphaned,
});

describe('derivePaymentState', () => {
  it('is pending with nothing seen, expired past expiry', () => {
    expect(derivePaymentState(terms, [], before).status).toBe('pending');
    expect(derivePaymentState(terms, [], expiresAt).status).toBe('pending');
    expect(derivePaymentState(terms, [], after).status).toBe('expired');
  });

  it('is processing once something is seen, paid once final covers the amount', () => {
    expect(derivePaymentState(terms, [transfer(100_000_000n, before, false)], before).status).toBe(
      'processing',
    );
    const only = transfer(100_000_000n, before);
    const paid = derivePaymentState(terms, [only], before);
    expect(paid).toStrictEqual({
      status: 'paid',
      amountReceivedBaseUnits: 100_000_000n,
      amountSeenBaseUnits: 100_000_000n,
      paidAt: before,
      late: false,
      completedBy: only,
      lastSeen: only,
    });
  });

  it('sums transfers and takes paid_at from the block that completed the payment', () => {
    const first = new Date('2026-11-21T12:10:00Z');
    const second = new Date('2026-11-21T12:20:00Z');
    const state = derivePaymentState(
      terms,
      [transfer(40_000_000n, first), transfer(60_000_000n, second)],
      before,
    );
    expect(state.status).toBe('paid');
    expect(state.paidAt).toStrictEqual(second);
  });

  it('fails an underpayment at expiry, then becomes paid and late on a top-up', () => {
    const partial = [transfer(60_000_000n, before)];
    expect(derivePaymentState(terms, partial, before).status).toBe('processing');
    expect(derivePaymentState(terms, partial, after).status).toBe('failed');
    const topped = derivePaymentState(terms, [...partial, transfer(40_000_000n, after)], after);
    expect(topped).toMatchObject({ status: 'paid', late: true, paidAt: after });
  });

  it('counts a transfer mined before expiry as on time even if it becomes final after', () => {
    const pendingFinality = [transfer(100_000_000n, before, false)];
    expect(derivePaymentState(terms, pendingFinality, after).status).toBe('processing');
    const finalLater = derivePaymentState(terms, [{ ...pendingFinality[0]!, final: true }], after);
    expect(finalLater).toMatchObject({ status: 'paid', late: false });
  });

  it('records overpayment', () => {
    const state = derivePaymentState(terms, [transfer(150_000_000n, before)], before);
    expect(state).toMatchObject({ status: 'paid', amountReceivedBaseUnits: 150_000_000n });
  });

  it('never counts orphaned transfers', () => {
    const state = derivePaymentState(terms, [transfer(100_000_000n, before, true, true)], before);
    expect(state.status).toBe('pending');
    expect(state.amountSeenBaseUnits).toBe(0n);
  });

  it('honours the underpayment tolerance', () => {
    const tolerant = { ...terms, underpaymentToleranceBps: 100 }; // 1%
    expect(derivePaymentState(tolerant, [transfer(99_000_000n, before)], before).status).toBe('paid');
    expect(derivePaymentState(tolerant, [transfer(98_999_999n, before)], before).status).toBe('processing');
  });
});

describe('stateHoldsUntil', () => {
  const minute = 60_000;
  const transfers = fc.array(
    fc.record({
      amountBaseUnits: fc.bigInt({ min: 0n, max: 150_000_000n }),
      blockNumber: fc.bigInt({ min: 1n, max: 50n }),
      logIndex: fc.nat(5),
      blockTimestamp: fc
        .integer({ min: -90, max: 90 })
        .map((m) => new Date(expiresAt.getTime() + m * minute)),
      final: fc.boolean(),
      orphaned: fc.boolean(),
    }),
    { maxLength: 4 },
  );
  const offset = fc.integer({ min: -120 * minute, max: 120 * minute });

  it('names a moment up to which, and never one after which, the derivation could change by time alone', () => {
    fc.assert(
      fc.property(transfers, offset, offset, (seen, fromNow, later) => {
        const now = new Date(expiresAt.getTime() + fromNow);
        const state = derivePaymentState(terms, seen, now);
        const holdsUntil = stateHoldsUntil(terms, state, now);
        const then = new Date(now.getTime() + Math.abs(later));
        const same = derivePaymentState(terms, seen, then);
        if (holdsUntil === null || then.getTime() <= holdsUntil.getTime()) {
          expect(same).toStrictEqual(state);
        }
      }),
    );
  });

  it('holds a pending link until its expiry, and a paid or expired one for ever', () => {
    expect(stateHoldsUntil(terms, derivePaymentState(terms, [], before), before)).toStrictEqual(expiresAt);
    expect(stateHoldsUntil(terms, derivePaymentState(terms, [], after), after)).toBeNull();
    const paid = derivePaymentState(terms, [transfer(100_000_000n, before)], before);
    expect(stateHoldsUntil(terms, paid, before)).toBeNull();
  });
});

describe('eventForTransition', () => {
  it('emits an event for every change, a return to pending after a reorg included', () => {
    expect(eventForTransition('pending', 'processing')).toBe('payment.processing');
    expect(eventForTransition('processing', 'paid')).toBe('payment.paid');
    expect(eventForTransition('expired', 'paid')).toBe('payment.paid');
    expect(eventForTransition('processing', 'pending')).toBe('payment.pending');
    expect(eventForTransition('pending', 'pending')).toBeNull();
    expect(eventForTransition('paid', 'paid')).toBeNull();
  });
});

describe('derivePaymentState, transfer by transfer', () => {
  const at = (
    blockNumber: bigint,
    logIndex: number,
    amount: bigint,
    blockTimestamp = before,
  ): ObservedTransfer => ({
    amountBaseUnits: amount,
    blockNumber,
    logIndex,
    blockTimestamp,
    final: true,
    orphaned: false,
  });

  it('refuses a payment of nothing', () => {
    expect(() => derivePaymentState({ ...terms, requiredBaseUnits: 0n }, [], before)).toThrow(
      new RangeError('a payment requires a positive amount'),
    );
  });

  it('counts transfers in chain order (block, then log index), whatever order they come in', () => {
    const early = at(1n, 5, 50_000_000n, new Date('2026-11-21T12:01:00Z'));
    const late = at(2n, 0, 60_000_000n, new Date('2026-11-21T12:02:00Z'));
    const paid = derivePaymentState(terms, [late, early], before);
    expect(paid.completedBy).toBe(late);
    expect(paid.lastSeen).toBe(late);
    expect(paid.paidAt).toStrictEqual(late.blockTimestamp);

    const first = at(7n, 1, 50_000_000n);
    const second = at(7n, 3, 50_000_000n);
    const third = at(8n, 0, 1n);
    for (const order of [
      [third, second, first],
      [second, third, first],
      [first, second, third],
    ]) {
      const state = derivePaymentState(terms, order, before);
      expect(state.completedBy).toBe(second);
      expect(state.lastSeen).toBe(third);
    }
  });

  it('orders transfers of several chains by block time, whatever their block numbers; the chain id breaks ties', () => {
    // Base's block numbers are far above Polygon's: block order across chains means nothing.
    const onBase = { ...at(30_000_000n, 0, 40_000_000n, new Date('2026-11-21T12:01:00Z')), chainId: 8453 };
    const onPolygon = { ...at(70_000_000n, 0, 60_000_000n, new Date('2026-11-21T12:02:00Z')), chainId: 137 };
    const paid = derivePaymentState(terms, [onPolygon, onBase], before);
    expect(paid.completedBy).toBe(onPolygon);
    expect(paid.paidAt).toStrictEqual(onPolygon.blockTimestamp);
    expect(countedTransfers([onPolygon, onBase])).toEqual([onBase, onPolygon]);

    const sameSecond = new Date('2026-11-21T12:03:00Z');
    const polygonTie = { ...at(5n, 0, 1n, sameSecond), chainId: 137 };
    const baseTie = { ...at(1n, 0, 1n, sameSecond), chainId: 8453 };
    expect(countedTransfers([baseTie, polygonTie])).toEqual([polygonTie, baseTie]);
    expect(countedTransfers([polygonTie, baseTie])).toEqual([polygonTie, baseTie]);
  });

  it('is completed by the first transfer that covers the amount, not a later one', () => {
    const covering = at(1n, 0, 100_000_000n);
    const extra = at(2n, 0, 5_000_000n, after);
    const paid = derivePaymentState(terms, [covering, extra], after);
    expect(paid.completedBy).toBe(covering);
    expect(paid.paidAt).toStrictEqual(before);
    expect(paid.late).toBe(false);
    expect(paid.amountReceivedBaseUnits).toBe(105_000_000n);
  });

  it('ignores transfers of nothing', () => {
    const real = at(1n, 0, 10_000_000n);
    const zero = at(2n, 0, 0n);
    const state = derivePaymentState(terms, [real, zero], before);
    expect(state.lastSeen).toBe(real);
    expect(state.status).toBe('processing');
  });

  it('is not late when paid in the very millisecond the link expires', () => {
    expect(derivePaymentState(terms, [at(1n, 0, 100_000_000n, expiresAt)], after).late).toBe(false);
    expect(derivePaymentState(terms, [at(1n, 0, 100_000_000n, after)], after).late).toBe(true);
  });

  it('is never late while unpaid', () => {
    expect(derivePaymentState(terms, [], after).late).toBe(false);
    expect(derivePaymentState(terms, [at(1n, 0, 1n)], after).late).toBe(false);
  });
});

describe('stateHoldsUntil, at expiry', () => {
  it('still holds an unpaid state until the expiry itself, and for ever after it', () => {
    const pending = derivePaymentState(terms, [], expiresAt);
    expect(stateHoldsUntil(terms, pending, expiresAt)).toStrictEqual(expiresAt);
    expect(stateHoldsUntil(terms, derivePaymentState(terms, [], after), after)).toBeNull();
  });
});

describe('derivePaymentState, with fast burns carrying transfers home (decision 0037)', () => {
  const carried = (
    amount: bigint,
    at: Date,
    carriedHome: 'under-way' | 'minted',
    flags: { final?: boolean; orphaned?: boolean } = {},
  ): ObservedTransfer => ({
    ...transfer(amount, at, flags.final ?? false, flags.orphaned ?? false),
    chainId: 8453,
    txHash: '0xaa',
    carriedHome,
  });

  it('a burn under way changes nothing: processing until the mint is final', () => {
    const state = derivePaymentState(terms, [carried(100_000_000n, before, 'under-way')], before);
    expect(state).toMatchObject({ status: 'processing', amountReceivedBaseUnits: 0n, paidAt: null });
  });

  it('a final mint makes its transfer final: paid at the transfer’s block time, even if a reorg removed it', () => {
    for (const orphaned of [false, true]) {
      const state = derivePaymentState(terms, [carried(100_000_000n, before, 'minted', { orphaned })], after);
      expect(state).toMatchObject({ status: 'paid', amountReceivedBaseUnits: 100_000_000n, paidAt: before });
      expect(state.late).toBe(false);
    }
  });

  it('a transfer after expiry minted is late; one before expiry minted after it is not', () => {
    expect(derivePaymentState(terms, [carried(100_000_000n, after, 'minted')], after).late).toBe(true);
    expect(derivePaymentState(terms, [carried(100_000_000n, expiresAt, 'minted')], after).late).toBe(false);
  });

  it('the same transaction found again in another block is the carried transfer, not a second one', () => {
    const again = { ...transfer(100_000_000n, after, true), chainId: 8453, txHash: '0xAA' };
    const minted = carried(100_000_000n, before, 'minted', { orphaned: true });
    const state = derivePaymentState(terms, [minted, again], after);
    expect(state).toMatchObject({
      status: 'paid',
      amountReceivedBaseUnits: 100_000_000n,
      amountSeenBaseUnits: 100_000_000n,
    });
    // While the carried one counts for nothing (orphaned, its mint not final), the one found again counts.
    const underWay = carried(100_000_000n, before, 'under-way', { orphaned: true });
    expect(derivePaymentState(terms, [underWay, again], after)).toMatchObject({
      status: 'paid',
      amountReceivedBaseUnits: 100_000_000n,
      paidAt: after,
    });
    // Another transaction of the same chain is another transfer.
    const other = { ...again, txHash: '0xbb', amountBaseUnits: 1n };
    expect(derivePaymentState(terms, [minted, other], after).amountReceivedBaseUnits).toBe(100_000_001n);
  });
});
