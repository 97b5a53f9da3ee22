import { describe, expect, it } from 'vitest';
import { FakeRelayer } from '../../../test/fakes/fakeRelayer.ts';
import { MemorySettlements } from '../../../test/fakes/memorySettlements.ts';
import { CHAIN_ID, testPayment } from '../../../test/fakes/paymentFixture.ts';
import { recordingLogger } from '../../../test/fakes/recordingLogger.ts';
import type { Payment } from '../../domain/payment.ts';
import { NO_PAYOUT_YET, type PayoutProgress } from '../../domain/payout.ts';
import { notifyDelayedPayouts } from './notifyDelayedPayouts.ts';

const NOW = new Date('2026-01-01T02:00:00.000Z');
const DELAYED_AFTER_MS = 600_000;
/** Exactly `delayedAfterMs` before NOW: the last moment a failure started and is delayed now. */
const DELAYED_SINCE = new Date(NOW.getTime() - DELAYED_AFTER_MS);

/** Payment `n`, paid 10 USDC, whose merchant share has failed to go out since `since` (blacklisted). */
function failing(n: number, since: Date = DELAYED_SINCE, fields: Partial<PayoutProgress> = {}): Payment {
  return testPayment(n, {
    status: 'paid',
    amountReceivedBaseUnits: 10_000_000n,
    payout: {
      ...NO_PAYOUT_YET,
      failures: 3,
      blockedSince: since,
      blockedReason: 'transfer to the merchant refused: blacklisted',
      ...fields,
    },
  });
}

function setUp(payments: readonly Payment[]) {
  const settlements = new MemorySettlements();
  for (const p of payments) settlements.addPayment(p);
  const logger = recordingLogger();
  const deps = {
    settlements,
    relayer: new FakeRelayer(),
    chain: { finalizedBlockNumber: async () => 0n },
    clock: { now: () => NOW },
    logger,
  };
  const options = {
    chainId: CHAIN_ID,
    payoutPolicy: { dustThresholdBaseUnits: 10_000n, delayedAfterMs: DELAYED_AFTER_MS },
    relayerLowBalanceWei: 10n ** 15n,
  };
  return { settlements, logger, notify: () => notifyDelayedPayouts(deps, options) };
}

describe('notifyDelayedPayouts', () => {
  it('tells the merchant once its payout has failed for delayedAfterMs, with the reason and since when', async () => {
    const p = failing(1);
    const s = setUp([p]);
    expect(await s.notify()).toEqual([p.id]);

    const [event] = s.settlements.allEvents();
    expect(event).toMatchObject({
      paymentId: p.id,
      merchantId: 'mch_1',
      type: 'payment.payout_delayed',
      createdAt: NOW,
    });
    const body = JSON.parse(event!.payload);
    expect(body).toMatchObject({
      id: event!.id,
      event: 'payment.payout_delayed',
      payment_id: p.id,
      status: 'paid',
      payout_status: 'delayed',
      payout_delayed_reason: 'transfer to the merchant refused: blacklisted',
      payout_delayed_since: DELAYED_SINCE.toISOString(),
      created_at: NOW.toISOString(),
    });
    expect(s.settlements.payment(p.id).payout).toEqual({ ...p.payout, delayNotifiedAt: NOW });
    expect(s.settlements.payment(p.id).updatedAt).toEqual(NOW);
    expect(s.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { paymentId: p.id },
        message: 'payout delayed: the merchant is told (payment.payout_delayed)',
      },
    ]);

    // Told once: the next pass finds nothing to tell.
    expect(await s.notify()).toEqual([]);
    expect(s.settlements.allEvents()).toHaveLength(1);
  });

  it('waits while the failure is younger than delayedAfterMs', async () => {
    const p = failing(1, new Date(DELAYED_SINCE.getTime() + 1));
    const s = setUp([p]);
    expect(await s.notify()).toEqual([]);
    expect(s.settlements.allEvents()).toEqual([]);
    expect(s.settlements.payment(p.id).payout.delayNotifiedAt).toBeNull();
  });

  it('tells several merchants in one pass, each with its own event', async () => {
    const older = failing(2, new Date(DELAYED_SINCE.getTime() - 60_000));
    const newer = failing(1);
    const s = setUp([newer, older]);
    expect(await s.notify()).toEqual([newer.id, older.id].sort());
    const events = s.settlements.allEvents();
    expect(events.map((e) => e.paymentId).sort()).toEqual([newer.id, older.id].sort());
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
    for (const e of events) expect(JSON.parse(e.payload).id).toBe(e.id);
  });

  it("marks, but does not tell, a refund's deposit payment: its delay shows on the refund", async () => {
    const refund = testPayment(1, { ...failing(1), kind: 'refund' });
    const s = setUp([refund]);
    expect(await s.notify()).toEqual([]);
    expect(s.settlements.allEvents()).toEqual([]);
    expect(s.settlements.payment(refund.id).payout.delayNotifiedAt).toEqual(NOW);
    expect(s.logger.lines).toEqual([]);
  });

  it('marks, but does not tell, a payout that owes the merchant nothing any more', async () => {
    // The merchant's 9.90 USDC went out; only the failure mark is left.
    const paidOut = failing(1, DELAYED_SINCE, { merchantPaidBaseUnits: 9_900_000n });
    const s = setUp([paidOut]);
    expect(await s.notify()).toEqual([]);
    expect(s.settlements.allEvents()).toEqual([]);
    expect(s.settlements.payment(paidOut.id).payout.delayNotifiedAt).toEqual(NOW);
  });

  it('tells no one on another chain', async () => {
    const elsewhere = testPayment(1, {
      ...failing(1),
      deposit: { ...testPayment(1).deposit!, chainId: CHAIN_ID + 1 },
    });
    const s = setUp([elsewhere]);
    expect(await s.notify()).toEqual([]);
    expect(s.settlements.payment(elsewhere.id).payout.delayNotifiedAt).toBeNull();
  });

  it('skips a payment another pass told, or whose failure cleared, between the query and the lock', async () => {
    const told = failing(1);
    const cleared = failing(2);
    const s = setUp([told, cleared]);
    const query = s.settlements.delayedUnnotified.bind(s.settlements);
    s.settlements.delayedUnnotified = async (...args) => {
      const due = await query(...args);
      const earlier = new Date(NOW.getTime() - 1000);
      s.settlements.addPayment({ ...told, payout: { ...told.payout, delayNotifiedAt: earlier } });
      s.settlements.addPayment({
        ...cleared,
        payout: { ...cleared.payout, blockedSince: null, blockedReason: null },
      });
      return due;
    };
    expect(await s.notify()).toEqual([]);
    expect(s.settlements.allEvents()).toEqual([]);
    expect(s.settlements.payment(told.id).payout.delayNotifiedAt).toEqual(new Date(NOW.getTime() - 1000));
    expect(s.settlements.payment(cleared.id).payout.delayNotifiedAt).toBeNull();
  });

  it('starts no transaction when nothing is due', async () => {
    const s = setUp([testPayment(1)]);
    let transactions = 0;
    const transaction = s.settlements.transaction.bind(s.settlements);
    s.settlements.transaction = (work) => {
      transactions += 1;
      return transaction(work);
    };
    expect(await s.notify()).toEqual([]);
    expect(transactions).toBe(0);
  });
});
