import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../../test/fakes/memoryLedger.ts';
import {
  testPayment,
  testTransfer,
  testUnaccepted,
  USDC,
  USDC_E,
} from '../../../test/fakes/paymentFixture.ts';
import type { Payment } from '../../domain/payment.ts';
import type { LedgerTransaction, TransferRecord } from './ports.ts';
import {
  expirePayments,
  MAX_REFRESH_BATCH,
  refreshPayments,
  reportUnacceptedTransfers,
} from './refreshPayments.ts';

const TEN_USDC = 10_000_000n;
// testPayment: created at 00:10, expires at 01:10.
const EXPIRES = new Date('2026-01-01T01:10:00.000Z');
const BEFORE_EXPIRY = new Date('2026-01-01T00:30:00.000Z');
const P1 = testPayment(1);

function ledgerWith(payments: readonly Payment[], transfers: readonly TransferRecord[] = []): MemoryLedger {
  const ledger = new MemoryLedger();
  for (const p of payments) ledger.addPayment(p);
  void ledger.transaction((tx) => tx.insertTransfers(transfers));
  return ledger;
}

/** What a payment paid in full by `t` stores. */
const paidBy = (t: TransferRecord) =>
  ({
    status: 'paid',
    announcedStatus: 'paid',
    amountReceivedBaseUnits: TEN_USDC,
    paidAt: t.blockTimestamp,
    txid: t.txHash,
    txidChainId: t.chainId,
    paidWith: { address: USDC, symbol: 'USDC' },
  }) as const;

const refresh = (ledger: MemoryLedger, ids: readonly string[], now = BEFORE_EXPIRY) =>
  ledger.transaction((tx) => refreshPayments(tx, ids, now));

describe('refreshPayments', () => {
  it('writes the derived state and the event a change owes, with the transfer that completed it', async () => {
    const first = testTransfer(P1, 1, { amountBaseUnits: 4_000_000n });
    const second = testTransfer(P1, 2, {
      amountBaseUnits: 6_000_000n,
      tokenAddress: USDC_E,
      tokenSymbol: 'USDC.e',
    });
    const after = testTransfer(P1, 3, { amountBaseUnits: 1n, final: false });
    const ledger = ledgerWith([P1], [first, second, after]);
    const changes = await refresh(ledger, [P1.id]);

    const [event] = ledger.allEvents();
    expect(changes).toEqual([{ paymentId: P1.id, from: 'pending', to: 'paid', eventId: event!.id }]);
    expect(ledger.payment(P1.id)).toMatchObject({
      status: 'paid',
      announcedStatus: 'paid',
      amountReceivedBaseUnits: TEN_USDC,
      paidAt: second.blockTimestamp,
      late: false,
      txid: second.txHash,
      txidChainId: 137,
      paidWith: { address: USDC_E, symbol: 'USDC.e' },
      updatedAt: BEFORE_EXPIRY,
    });
    expect(event).toMatchObject({
      paymentId: P1.id,
      merchantId: 'mch_1',
      type: 'payment.paid',
      createdAt: BEFORE_EXPIRY,
    });
    expect(JSON.parse(event!.payload)).toMatchObject({
      id: event!.id,
      event: 'payment.paid',
      status: 'paid',
      amount_received: '10.00',
      txid: second.txHash,
      token_symbol: 'USDC.e',
      payout_status: 'pending',
    });
    // What each token brought in final transfers: the settler's balances.
    expect(ledger.receivedByToken(P1.id)).toEqual(
      new Map([
        [USDC, 4_000_000n],
        [USDC_E, 6_000_000n],
      ]),
    );
  });

  it('names the latest transfer seen while nothing completed the payment', async () => {
    const seen = testTransfer(P1, 2, { amountBaseUnits: 1n, final: false });
    const ledger = ledgerWith([P1], [testTransfer(P1, 1, { amountBaseUnits: 1n }), seen]);
    await refresh(ledger, [P1.id]);
    expect(ledger.payment(P1.id)).toMatchObject({
      status: 'processing',
      txid: seen.txHash,
      paidWith: { address: USDC, symbol: 'USDC' },
    });
  });

  it('tells payment.processing what was seen, not yet final, and that no payout is due yet', async () => {
    const seen = testTransfer(P1, 1, { amountBaseUnits: 7_250_000n, final: false });
    const ledger = ledgerWith([P1], [seen]);
    await refresh(ledger, [P1.id]);
    const [event] = ledger.allEvents();
    expect(event?.type).toBe('payment.processing');
    expect(JSON.parse(event!.payload)).toMatchObject({
      status: 'processing',
      amount_received: '7.25',
      payout_status: 'not_due',
      txid: seen.txHash,
    });
  });

  it('counts in the balances only final transfers still on the chain and above zero', async () => {
    const ledger = ledgerWith(
      [P1],
      [
        testTransfer(P1, 1, { amountBaseUnits: 3n }),
        testTransfer(P1, 2, { amountBaseUnits: 5n }),
        testTransfer(P1, 3, { amountBaseUnits: 7n, final: false }),
        testTransfer(P1, 4, { amountBaseUnits: 11n, orphaned: true }),
        testTransfer(P1, 5, { amountBaseUnits: 0n }),
        testTransfer(P1, 6, { amountBaseUnits: 13n, tokenAddress: USDC_E, tokenSymbol: 'USDC.e' }),
      ],
    );
    await refresh(ledger, [P1.id]);
    expect(ledger.receivedByToken(P1.id)).toEqual(
      new Map([
        [USDC, 8n],
        [USDC_E, 13n],
      ]),
    );
  });

  it('keeps no balances for a payment without a deposit address', async () => {
    const old = testPayment(2, { deposit: null });
    const ledger = ledgerWith([old]);
    await refresh(ledger, [old.id], new Date('2026-01-01T02:00:00.000Z'));
    expect(ledger.receivedByToken(old.id)).toBeUndefined();
    expect(ledger.payment(old.id).status).toBe('expired');
  });

  it('is paid on time by a block at exactly the expiry, and late by one a millisecond after', async () => {
    const onTime = testPayment(1);
    const late = testPayment(2);
    const ledger = ledgerWith(
      [onTime, late],
      [
        testTransfer(onTime, 1, { blockTimestamp: EXPIRES }),
        testTransfer(late, 2, { blockTimestamp: new Date(EXPIRES.getTime() + 1) }),
      ],
    );
    await refresh(ledger, [onTime.id, late.id], new Date('2026-01-01T02:00:00.000Z'));
    expect(ledger.payment(onTime.id)).toMatchObject({ status: 'paid', late: false });
    expect(ledger.payment(late.id)).toMatchObject({ status: 'paid', late: true });
    const bodies = ledger.allEvents().map((e) => JSON.parse(e.payload) as { late: boolean });
    expect(bodies.map((b) => b.late)).toEqual([false, true]);
  });

  it("stores the chain of the transfer that completed it; the event names no source chain's transaction as the home chain's", async () => {
    const onPolygon = testTransfer(P1, 1, { amountBaseUnits: 4_000_000n });
    const onBase = testTransfer(P1, 2, { chainId: 8453, amountBaseUnits: 6_000_000n });
    const ledger = ledgerWith([P1], [onPolygon, onBase]);
    await refresh(ledger, [P1.id]);
    expect(ledger.payment(P1.id)).toMatchObject({ status: 'paid', txid: onBase.txHash, txidChainId: 8453 });
    const [event] = ledger.allEvents();
    expect(JSON.parse(event!.payload)).toMatchObject({
      event: 'payment.paid',
      txid: null,
      token_address: P1.deposit!.tokenAddress,
      transfers: [
        { chain_id: 137, txid: onPolygon.txHash, amount: '4.00' },
        { chain_id: 8453, txid: onBase.txHash, amount: '6.00' },
      ],
    });
  });

  it('writes nothing for a payment whose stored state is what it derives', async () => {
    const t = testTransfer(P1, 1);
    const stored = testPayment(1, paidBy(t));
    const ledger = ledgerWith([stored], [t]);
    expect(await refresh(ledger, [P1.id])).toEqual([]);
    expect(ledger.payment(P1.id)).toEqual(stored);
    expect(ledger.allEvents()).toEqual([]);
  });

  // Each field of the stored state that differs from the derived one is rewritten (no event: same status).
  it.each<[string, Partial<Payment>]>([
    ['amount received', { amountReceivedBaseUnits: 1n }],
    ['paid at', { paidAt: new Date('2026-01-01T00:00:00.000Z') }],
    ['paid at, unset', { paidAt: null }],
    ['late', { late: true }],
    ['txid', { txid: '0xother' }],
    ['txid chain', { txidChainId: 8453 }],
    ['token', { paidWith: { address: USDC_E, symbol: 'USDC.e' } }],
  ])('rewrites a stored state whose %s differs from the derived one', async (_, stale) => {
    const t = testTransfer(P1, 1);
    const current = paidBy(t);
    const ledger = ledgerWith([testPayment(1, { ...current, ...stale })], [t]);
    const changes = await refresh(ledger, [P1.id]);
    expect(changes).toEqual([{ paymentId: P1.id, from: 'paid', to: 'paid', eventId: null }]);
    expect(ledger.payment(P1.id)).toMatchObject({ ...current, updatedAt: BEFORE_EXPIRY });
    expect(ledger.allEvents()).toEqual([]);
  });

  it('announces a return to pending (the transfer seen was reorged away) with payment.pending', async () => {
    const stored = testPayment(1, { status: 'processing', announcedStatus: 'processing', txid: '0x1' });
    const ledger = ledgerWith([stored], [testTransfer(P1, 1, { orphaned: true })]);
    const changes = await refresh(ledger, [P1.id]);
    const [event] = ledger.allEvents();
    expect(changes).toEqual([{ paymentId: P1.id, from: 'processing', to: 'pending', eventId: event!.id }]);
    expect(event).toMatchObject({ paymentId: P1.id, type: 'payment.pending' });
    expect(JSON.parse(event!.payload)).toMatchObject({
      event: 'payment.pending',
      status: 'pending',
      txid: null,
      paid_at: null,
    });
    expect(ledger.payment(P1.id)).toMatchObject({
      status: 'pending',
      announcedStatus: 'pending',
      txid: null,
    });
  });

  it('changes a refund’s deposit address like a payment, but writes no payment event for it', async () => {
    const refund = testPayment(1, { kind: 'refund' });
    const ledger = ledgerWith([refund], [testTransfer(refund, 1)]);
    const changes = await refresh(ledger, [refund.id]);
    expect(changes).toEqual([{ paymentId: refund.id, from: 'pending', to: 'paid', eventId: null }]);
    expect(ledger.payment(refund.id)).toMatchObject({ status: 'paid', announcedStatus: 'paid' });
    expect(ledger.allEvents()).toEqual([]);
  });

  it('locks each payment once, in id order, and skips unknown ids', async () => {
    const a = testPayment(1);
    const b = testPayment(2);
    const ledger = ledgerWith([a, b], [testTransfer(a, 1), testTransfer(b, 2)]);
    const locked: string[] = [];
    const changes = await ledger.transaction((tx) => {
      const spied: LedgerTransaction = {
        ...tx,
        lockPayment: (id) => {
          locked.push(id);
          return tx.lockPayment(id);
        },
      };
      return refreshPayments(spied, [b.id, 'unknown', a.id, b.id], BEFORE_EXPIRY);
    });
    expect(locked).toEqual([a.id, b.id, 'unknown']);
    expect(changes.map((c) => c.paymentId)).toEqual([a.id, b.id]);
  });

  it('raises paymentPaid on the transaction once a payment becomes paid, with its paid state, and not before', async () => {
    const partial = testTransfer(P1, 1, { amountBaseUnits: 4_000_000n });
    const rest = testTransfer(P1, 2, { amountBaseUnits: 6_000_000n });
    const ledger = ledgerWith([P1], [partial]);
    const raised: { payment: Payment; now: Date }[] = [];
    const refreshRaising = () =>
      ledger.transaction((tx) =>
        refreshPayments(
          { ...tx, paymentPaid: async (payment, now) => void raised.push({ payment, now }) },
          [P1.id],
          BEFORE_EXPIRY,
        ),
      );
    await refreshRaising();
    expect(raised).toEqual([]);
    await ledger.transaction((tx) => tx.insertTransfers([rest]));
    await refreshRaising();
    expect(raised).toHaveLength(1);
    expect(raised[0]!.now).toEqual(BEFORE_EXPIRY);
    expect(raised[0]!.payment).toMatchObject({
      id: P1.id,
      status: 'paid',
      amountReceivedBaseUnits: TEN_USDC,
      paidAt: rest.blockTimestamp,
      txid: rest.txHash,
    });
    await refreshRaising();
    expect(raised).toHaveLength(1);
  });

  it('raises paymentTopUp once when a paid payment counts more (an overpayment final), never on the paying pass nor again', async () => {
    const paying = testTransfer(P1, 1);
    const more = testTransfer(P1, 2, { amountBaseUnits: 5_000_000n, final: false });
    const ledger = ledgerWith([P1], [paying]);
    const paid: Payment[] = [];
    const toppedUp: { payment: Payment; now: Date }[] = [];
    const refreshRaising = () =>
      ledger.transaction((tx) =>
        refreshPayments(
          {
            ...tx,
            paymentPaid: async (payment) => void paid.push(payment),
            paymentTopUp: async (payment, now) => void toppedUp.push({ payment, now }),
          },
          [P1.id],
          BEFORE_EXPIRY,
        ),
      );
    await refreshRaising();
    expect(paid).toHaveLength(1);
    expect(toppedUp).toEqual([]);
    // Seen but not final: it does not count yet, so the receipt says what it said.
    await ledger.transaction((tx) => tx.insertTransfers([more]));
    await refreshRaising();
    expect(toppedUp).toEqual([]);
    await ledger.transaction((tx) => tx.markFinal(more.chainId, more.blockNumber));
    await refreshRaising();
    expect(toppedUp).toHaveLength(1);
    expect(toppedUp[0]!.now).toEqual(BEFORE_EXPIRY);
    expect(toppedUp[0]!.payment).toMatchObject({
      id: P1.id,
      status: 'paid',
      amountReceivedBaseUnits: 15_000_000n,
      paidAt: paying.blockTimestamp,
    });
    // Counted once: another pass over the same transfers owes no second update.
    await refreshRaising();
    expect(toppedUp).toHaveLength(1);
    expect(paid).toHaveLength(1);
  });

  // Only a paid payment's received amount growing is a top-up: not a refund's deposit address, not a rewrite of
  // another field with the same amount.
  it.each<[string, Partial<Payment>, number]>([
    ['a paid payment that counted less', { amountReceivedBaseUnits: 1n }, 1],
    ['a refund’s deposit address that counted less', { kind: 'refund', amountReceivedBaseUnits: 1n }, 0],
    ['a paid payment rewritten for its txid, the same amount', { txid: '0xother' }, 0],
  ])('raises paymentTopUp for %s: %i time(s)', async (_, stale, times) => {
    const t = testTransfer(P1, 1);
    const ledger = ledgerWith([testPayment(1, { ...paidBy(t), ...stale })], [t]);
    const toppedUp: Payment[] = [];
    await ledger.transaction((tx) =>
      refreshPayments(
        { ...tx, paymentTopUp: async (payment) => void toppedUp.push(payment) },
        [P1.id],
        BEFORE_EXPIRY,
      ),
    );
    expect(ledger.payment(P1.id).amountReceivedBaseUnits).toBe(TEN_USDC);
    expect(toppedUp).toHaveLength(times);
  });

  it('raises no paymentTopUp when a payment first becomes paid with more than its price: its first receipt says so', async () => {
    const over = testTransfer(P1, 1, { amountBaseUnits: 15_000_000n });
    const ledger = ledgerWith([P1], [over]);
    const toppedUp: Payment[] = [];
    await ledger.transaction((tx) =>
      refreshPayments(
        { ...tx, paymentTopUp: async (payment) => void toppedUp.push(payment) },
        [P1.id],
        BEFORE_EXPIRY,
      ),
    );
    expect(ledger.payment(P1.id).status).toBe('paid');
    expect(toppedUp).toEqual([]);
  });

  it(`refreshes at most ${MAX_REFRESH_BATCH} payments in one transaction`, async () => {
    const ledger = ledgerWith([]);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `missing-${i}`);
    expect(await refresh(ledger, ids(MAX_REFRESH_BATCH))).toEqual([]);
    await expect(refresh(ledger, ids(MAX_REFRESH_BATCH + 1))).rejects.toThrow(
      new RangeError('refresh batch too large'),
    );
  });
});

describe('expirePayments', () => {
  it('expires an open link once past its expiry, not at it, and fails one with a partial payment', async () => {
    const unpaid = testPayment(1);
    const partial = testPayment(2);
    const ledger = ledgerWith([unpaid, partial], [testTransfer(partial, 1, { amountBaseUnits: 1n })]);
    await refresh(ledger, [partial.id]);
    const atExpiry = await expirePayments({ ledger, clock: { now: () => EXPIRES } });
    expect(atExpiry).toEqual([]);
    const after = new Date(EXPIRES.getTime() + 1);
    const changes = await expirePayments({ ledger, clock: { now: () => after } });
    expect(changes.map((c) => [c.paymentId, c.from, c.to])).toEqual([
      [unpaid.id, 'pending', 'expired'],
      [partial.id, 'processing', 'failed'],
    ]);
    expect(ledger.allEvents().map((e) => [e.type, e.createdAt])).toEqual([
      ['payment.processing', BEFORE_EXPIRY],
      ['payment.expired', after],
      ['payment.failed', after],
    ]);
  });

  it('keeps open a link past expiry while a transfer to it awaits finality', async () => {
    const ledger = ledgerWith([P1], [testTransfer(P1, 1, { final: false })]);
    await refresh(ledger, [P1.id]);
    const changes = await expirePayments({
      ledger,
      clock: { now: () => new Date('2026-01-01T03:00:00.000Z') },
    });
    expect(changes).toEqual([]);
    expect(ledger.payment(P1.id).status).toBe('processing');
  });

  it('takes a bounded batch a call, 500 unless told, and opens no transaction when none is due', async () => {
    const ledger = ledgerWith(Array.from({ length: 502 }, (_, i) => testPayment(i + 1)));
    const clock = { now: () => new Date('2026-01-01T02:00:00.000Z') };
    expect(await expirePayments({ ledger, clock }, 1)).toHaveLength(1);
    expect(await expirePayments({ ledger, clock })).toHaveLength(500);
    expect(await expirePayments({ ledger, clock })).toHaveLength(1);
    const begun = ledger.transactionsBegun;
    expect(await expirePayments({ ledger, clock })).toEqual([]);
    expect(ledger.transactionsBegun).toBe(begun);
  });
});

describe('reportUnacceptedTransfers', () => {
  it('tells each payment’s merchant, in payment order, and touches the payment', async () => {
    const a = testPayment(1);
    const b = testPayment(2);
    const ledger = ledgerWith([a, b]);
    await ledger.transaction((tx) =>
      reportUnacceptedTransfers(
        tx,
        [testUnaccepted(b, 2_500_000n), testUnaccepted({ ...a, id: 'unknown' }, 1n), testUnaccepted(a, 1n)],
        BEFORE_EXPIRY,
      ),
    );
    const events = ledger.allEvents();
    expect(events.map((e) => [e.paymentId, e.type, e.merchantId, e.createdAt])).toEqual([
      [a.id, 'payment.unaccepted_transfer', 'mch_1', BEFORE_EXPIRY],
      [b.id, 'payment.unaccepted_transfer', 'mch_1', BEFORE_EXPIRY],
    ]);
    expect(JSON.parse(events[1]!.payload)).toMatchObject({
      id: events[1]!.id,
      event: 'payment.unaccepted_transfer',
      payment_id: b.id,
      status: 'pending',
      unaccepted_transfer: { token_symbol: 'USDT', amount: '2.50', tx_hash: `0x${'2'.repeat(64)}` },
    });
    expect(ledger.touches()).toEqual([
      { paymentId: a.id, at: BEFORE_EXPIRY },
      { paymentId: b.id, at: BEFORE_EXPIRY },
    ]);
  });

  it('tells amount_received as the status shows it: a transfer awaiting finality counts while unpaid', async () => {
    const ledger = ledgerWith([P1], [testTransfer(P1, 1, { amountBaseUnits: 3_000_000n, final: false })]);
    await refresh(ledger, [P1.id]);
    await ledger.transaction((tx) => reportUnacceptedTransfers(tx, [testUnaccepted(P1, 1n)], BEFORE_EXPIRY));
    const event = ledger.allEvents().find((e) => e.type === 'payment.unaccepted_transfer');
    expect(JSON.parse(event!.payload)).toMatchObject({
      status: 'processing',
      amount_received: '3.00',
      payout_status: 'not_due',
    });
  });

  it('touches a refund’s deposit address but writes it no payment event', async () => {
    const refund = testPayment(1, { kind: 'refund' });
    const ledger = ledgerWith([refund]);
    await ledger.transaction((tx) =>
      reportUnacceptedTransfers(tx, [testUnaccepted(refund, 1n)], BEFORE_EXPIRY),
    );
    expect(ledger.touches()).toEqual([{ paymentId: refund.id, at: BEFORE_EXPIRY }]);
    expect(ledger.allEvents()).toEqual([]);
  });
});
