import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../../test/fakes/memoryLedger.ts';
import { MemoryPayments } from '../../../test/fakes/memoryPayments.ts';
import { testPayment, testTransfer, testUnaccepted } from '../../../test/fakes/paymentFixture.ts';
import type { Payment } from '../../domain/payment.ts';
import type { TransferRecord, UnacceptedTransfer } from '../chain/ports.ts';
import { currentState, getPaymentStatus, isPaymentId, type PaymentStateDeps } from './getPaymentStatus.ts';

// testPayment: 10 USDC, created at 00:10, expires at 01:10, merchant mch_1, live.
const BEFORE_EXPIRY = new Date('2026-01-01T00:30:00.000Z');
const EXPIRES = new Date('2026-01-01T01:10:00.000Z');
const P1 = testPayment(1);

/** The payments and ledger as stored, read at `now`; `lookups` counts the payment store's queries. */
async function depsWith(
  payments: readonly Payment[],
  transfers: readonly TransferRecord[] = [],
  unacceptedTransfers: readonly UnacceptedTransfer[] = [],
  now = BEFORE_EXPIRY,
): Promise<PaymentStateDeps & { readonly lookups: string[] }> {
  const store = new MemoryPayments();
  const ledger = new MemoryLedger();
  for (const p of payments) {
    store.addPayment(p);
    ledger.addPayment(p);
  }
  await ledger.transaction(async (tx) => {
    await tx.insertTransfers(transfers);
    await tx.insertUnacceptedTransfers(unacceptedTransfers);
  });
  const lookups: string[] = [];
  const counted = Object.create(store) as MemoryPayments;
  counted.findForMerchant = (merchantId, paymentId, mode) => {
    lookups.push(paymentId);
    return store.findForMerchant(merchantId, paymentId, mode);
  };
  return { payments: counted, ledger, clock: { now: () => now }, lookups };
}

const notFound = { name: 'PaylinkError', code: 'NOT_FOUND', status: 404, message: 'Payment not found' };

describe('getPaymentStatus', () => {
  it('answers the status derived now from the transfers, not the stored one that may lag', async () => {
    const paying = testTransfer(P1, 3);
    const deps = await depsWith([P1], [paying]);
    const { payment, state, unaccepted: others } = await getPaymentStatus(deps, 'mch_1', P1.id);
    expect(payment).toEqual(P1);
    expect(payment.status).toBe('pending');
    expect(state).toMatchObject({
      status: 'paid',
      amountReceivedBaseUnits: 10_000_000n,
      amountSeenBaseUnits: 10_000_000n,
      paidAt: paying.blockTimestamp,
      completedBy: paying,
    });
    expect(others).toEqual([]);
  });

  it('answers an x402 call paid as recorded (no transfer is its own), even after its expiry; unpaid, as derived', async () => {
    const paidAt = new Date('2026-01-01T00:20:00.000Z');
    const call = testPayment(2, {
      rateSource: 'x402',
      deposit: null,
      status: 'paid',
      amountReceivedBaseUnits: 10_000_000n,
      paidAt,
    });
    const later = await depsWith([call], [], [], new Date(EXPIRES.getTime() + 1));
    expect((await getPaymentStatus(later, 'mch_1', call.id)).state).toMatchObject({
      status: 'paid',
      amountReceivedBaseUnits: 10_000_000n,
      paidAt,
      late: false,
    });
    expect(await currentState(later, call)).toMatchObject({
      status: 'paid',
      amountReceivedBaseUnits: 10_000_000n,
    });
    // Not paid yet (queued for the relayer): derived as any payment, so it expires with its link.
    const queued = { ...call, status: 'pending' as const, amountReceivedBaseUnits: 0n, paidAt: null };
    expect((await currentState(later, queued)).status).toBe('expired');
    // Another payment stored paid with no transfer is still derived from its transfers.
    const plain = testPayment(3, { status: 'paid', amountReceivedBaseUnits: 10_000_000n, paidAt });
    expect((await currentState(await depsWith([plain]), plain)).status).toBe('pending');
  });

  it('shows a link expired the moment after it expires, before the expirer stores it', async () => {
    const after = await depsWith([P1], [], [], new Date(EXPIRES.getTime() + 1));
    expect((await getPaymentStatus(after, 'mch_1', P1.id)).state.status).toBe('expired');
    const atExpiry = await depsWith([P1], [], [], EXPIRES);
    expect((await getPaymentStatus(atExpiry, 'mch_1', P1.id)).state.status).toBe('pending');
  });

  it('counts a transfer that is not final yet as seen, not received', async () => {
    const deps = await depsWith([P1], [testTransfer(P1, 3, { final: false })]);
    expect((await getPaymentStatus(deps, 'mch_1', P1.id)).state).toMatchObject({
      status: 'processing',
      amountReceivedBaseUnits: 0n,
      amountSeenBaseUnits: 10_000_000n,
    });
  });

  it('lists the transfers of tokens that do not pay, with the payment', async () => {
    const other = testUnaccepted(P1);
    const deps = await depsWith([P1, testPayment(2)], [], [other, testUnaccepted(testPayment(2))]);
    const answer = await getPaymentStatus(deps, 'mch_1', P1.id);
    expect(answer.unaccepted).toEqual([other]);
    expect(answer.state.status).toBe('pending');
  });

  it('finds a payment by its id in capitals too (ids are stored lowercase)', async () => {
    const deps = await depsWith([P1]);
    const { payment } = await getPaymentStatus(deps, 'mch_1', P1.id.toUpperCase());
    expect(payment.id).toBe(P1.id);
    expect(deps.lookups).toEqual([P1.id]);
  });

  it("is the same 404 for another merchant's payment, the other mode's and a refund's deposit payment", async () => {
    const testMode = testPayment(2, { mode: 'test' });
    const refund = testPayment(3, { kind: 'refund' });
    const deps = await depsWith([P1, testMode, refund]);
    await expect(getPaymentStatus(deps, 'mch_2', P1.id)).rejects.toMatchObject(notFound);
    await expect(getPaymentStatus(deps, 'mch_1', P1.id, 'test')).rejects.toMatchObject(notFound);
    // A live key by default: the test payment is only seen with a test key.
    await expect(getPaymentStatus(deps, 'mch_1', testMode.id)).rejects.toMatchObject(notFound);
    expect((await getPaymentStatus(deps, 'mch_1', testMode.id, 'test')).payment.id).toBe(testMode.id);
    await expect(getPaymentStatus(deps, 'mch_1', refund.id)).rejects.toMatchObject(notFound);
  });

  it('is the same 404 for an unknown id, and for a malformed one without looking it up', async () => {
    const deps = await depsWith([P1]);
    const unknown = '00000000-0000-4000-8000-0000000000ff';
    await expect(getPaymentStatus(deps, 'mch_1', unknown)).rejects.toMatchObject(notFound);
    expect(deps.lookups).toEqual([unknown]);
    for (const malformed of ['', 'not-a-payment', `${P1.id}0`, `x${P1.id}`, P1.id.replaceAll('-', '')])
      await expect(getPaymentStatus(deps, 'mch_1', malformed)).rejects.toMatchObject(notFound);
    expect(deps.lookups).toEqual([unknown]);
  });
});

describe('isPaymentId', () => {
  it('accepts a UUID in either case and nothing else', () => {
    expect(isPaymentId(P1.id)).toBe(true);
    expect(isPaymentId(P1.id.toUpperCase())).toBe(true);
    expect(isPaymentId(`${P1.id} `)).toBe(false);
    expect(isPaymentId(P1.id.replace('0000-4000', '0000-400g'))).toBe(false);
  });
});

describe('currentState', () => {
  it('derives from the transfers at the clock’s now, orphaned ones not counted', async () => {
    const deps = await depsWith(
      [P1],
      [testTransfer(P1, 3, { orphaned: true }), testTransfer(P1, 4, { amountBaseUnits: 4_000_000n })],
      [],
      new Date(EXPIRES.getTime() + 1),
    );
    // 4 of 10 USDC, final, when the link expired: failed (an orphaned transfer would have paid it).
    expect(await currentState(deps, P1)).toMatchObject({
      status: 'failed',
      amountReceivedBaseUnits: 4_000_000n,
      amountSeenBaseUnits: 4_000_000n,
    });
  });
});
