import { describe, expect, it } from 'vitest';
import {
  heldBackFromP1,
  mineFlush,
  NOW,
  P1,
  P2,
  receipt,
  relayerTx,
  settlement,
  setUp,
} from '../../../test/fakes/inFlightSettlement.ts';
import { CHAIN_ID, testPayment, USDC, USDT } from '../../../test/fakes/paymentFixture.ts';
import { advanceInFlight } from './advanceInFlight.ts';

describe('a mined settlement', () => {
  it('is applied only once its block is final, not a block before', async () => {
    const s = setUp();
    const tx = relayerTx(1);
    s.relayer.receipts.set(tx.txHash, receipt(tx));
    s.finality.finalized = 99n;
    expect(await s.advance()).toEqual({
      kind: 'awaiting-finality',
      settlementId: 'stl_1',
      txHash: tx.txHash,
    });
    expect(s.settlements.settlement('stl_1').status).toBe('pending');
    expect(s.settlements.payment(P1.id).payout.merchantPaidBaseUnits).toBe(0n);
    expect(s.settlements.allEvents()).toEqual([]);

    s.finality.finalized = 100n;
    expect(await s.advance()).toEqual({ kind: 'confirmed', settlementId: 'stl_1', txHash: tx.txHash });
    expect(s.settlements.settlement('stl_1')).toMatchObject({
      status: 'confirmed',
      payoutTxHash: tx.txHash,
      completedAt: NOW,
    });
    expect(s.settlements.payment(P1.id).payout).toMatchObject({
      merchantPaidBaseUnits: 9_900_000n,
      treasuryPaidBaseUnits: 100_000n,
      txHash: tx.txHash,
      sentAt: NOW,
      failures: 0,
    });
    expect(s.settlements.balance(P1.id, USDC)).toEqual({
      accepted: true,
      merchantPaid: 9_900_000n,
      treasuryPaid: 100_000n,
    });
    const events = s.settlements.allEvents();
    expect(events.map((e) => [e.paymentId, e.type, e.createdAt])).toEqual([
      [P1.id, 'payment.payout_sent', NOW],
      [P2.id, 'payment.payout_sent', NOW],
    ]);
    expect(JSON.parse(events[0]!.payload)).toMatchObject({
      id: events[0]!.id,
      event: 'payment.payout_sent',
      payment_id: P1.id,
      merchant_received_base_units: '9900000',
      treasury_received_base_units: '100000',
      payout_status: 'sent',
      payout_txid: tx.txHash,
    });
    expect(s.logger.lines).toEqual([
      {
        level: 'info',
        fields: {
          settlementId: 'stl_1',
          nonce: '7',
          txHash: tx.txHash,
          payments: 2,
          settledBaseUnits: '20000000',
        },
        message: 'settlement confirmed',
      },
    ]);
  });

  it('is applied once: a second settler finds it closed and writes nothing', async () => {
    const s = setUp();
    const tx = relayerTx(1);
    s.relayer.receipts.set(tx.txHash, receipt(tx));
    const record = s.settlements.settlement('stl_1');
    await s.advance();
    s.logger.lines.length = 0;
    const again = await advanceInFlight(
      {
        settlements: s.settlements,
        relayer: s.relayer,
        chain: { finalizedBlockNumber: async () => 100n },
        clock: { now: () => NOW },
        logger: s.logger,
      },
      {
        chainId: CHAIN_ID,
        payoutPolicy: { dustThresholdBaseUnits: 1n, delayedAfterMs: 1 },
        relayerLowBalanceWei: 0n,
      },
      record,
    );
    expect(again).toEqual({ kind: 'confirmed', settlementId: 'stl_1', txHash: tx.txHash });
    expect(s.settlements.payment(P1.id).payout.merchantPaidBaseUnits).toBe(9_900_000n);
    expect(s.settlements.allEvents()).toHaveLength(2);
    expect(s.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { settlementId: 'stl_1', nonce: '7', txHash: tx.txHash },
        message: 'settlement was already closed by another settler',
      },
    ]);
  });

  it('counts a failure on each payment when its transaction reverted', async () => {
    const s = setUp();
    const tx = relayerTx(1);
    s.relayer.receipts.set(tx.txHash, receipt(tx, { success: false, flushed: [] }));
    s.finality.finalized = 99n;
    expect((await s.advance()).kind).toBe('awaiting-finality');
    s.finality.finalized = 100n;
    expect(await s.advance()).toEqual({ kind: 'reverted', settlementId: 'stl_1', txHash: tx.txHash });
    const reason = `settlement transaction ${tx.txHash} reverted`;
    expect(s.settlements.settlement('stl_1')).toMatchObject({ status: 'failed', failureReason: reason });
    for (const id of [P1.id, P2.id]) {
      expect(s.settlements.payment(id).payout).toMatchObject({
        merchantPaidBaseUnits: 0n,
        failures: 1,
        blockedSince: NOW,
        blockedReason: reason,
        commissionBlockedReason: reason,
      });
    }
    expect(s.logger.lines).toEqual([
      {
        level: 'error',
        fields: { settlementId: 'stl_1', nonce: '7', txHash: tx.txHash, paymentIds: [P1.id, P2.id] },
        message: 'settlement transaction reverted; its payments are retried after their back-off',
      },
    ]);
  });

  it('counts no failure twice when the reverted settlement was already closed', async () => {
    const s = setUp();
    const tx = relayerTx(1);
    s.relayer.receipts.set(tx.txHash, receipt(tx, { success: false, flushed: [] }));
    const record = s.settlements.settlement('stl_1');
    await s.advance();
    s.settlements.addSettlement(record);
    await s.settlements.transaction((t) =>
      t.closeSettlement('stl_1', { status: 'failed', minedTxId: tx.id, reason: 'elsewhere' }, NOW),
    );
    await s.advance();
    expect(s.settlements.payment(P1.id).payout.failures).toBe(1);
  });

  it('is applied with the receipt of whichever of its transactions was mined', async () => {
    const first = relayerTx(1);
    const second = relayerTx(2);
    const s = setUp(settlement([first, second]));
    s.relayer.receipts.set(first.txHash, receipt(first));
    expect(await s.advance()).toEqual({ kind: 'confirmed', settlementId: 'stl_1', txHash: first.txHash });
    expect(s.settlements.settlement('stl_1').transactions.map((t) => t.status)).toEqual([
      'mined',
      'replaced',
    ]);
    expect(s.settlements.payment(P1.id).payout.txHash).toBe(first.txHash);
  });

  it('fails a payment whose forwarder moved nothing, and only that one', async () => {
    const s = setUp();
    const tx = relayerTx(1);
    const full = receipt(tx);
    s.relayer.receipts.set(tx.txHash, { ...full, flushed: full.flushed.slice(1) });
    await s.advance();
    expect(s.settlements.payment(P1.id).payout).toMatchObject({
      merchantPaidBaseUnits: 0n,
      failures: 1,
      blockedReason:
        'the flush moved nothing when mined (flushed by another account, or held back by the token)',
      commissionBlockedReason: null,
    });
    expect(s.settlements.payment(P2.id).payout.merchantPaidBaseUnits).toBe(9_900_000n);
    expect(s.settlements.allEvents().map((e) => e.paymentId)).toEqual([P2.id]);
    expect(s.logger.lines[0]).toEqual({
      level: 'warn',
      fields: { settlementId: 'stl_1', nonce: '7', txHash: tx.txHash, paymentIds: [P1.id] },
      message: 'flush moved nothing for these payments; retried after their back-off',
    });
  });

  it('counts only events of the item’s own forwarder and payment id, summing several', async () => {
    const s = setUp();
    mineFlush(s, (base) => ({
      flushed: [
        { ...base[0]!, merchantBaseUnits: 4_000_000n, feeBaseUnits: 40_000n },
        { ...base[0]!, merchantBaseUnits: 5_900_000n, feeBaseUnits: 60_000n },
        // P1's forwarder claiming P2's id, and an unknown forwarder: neither counts.
        { ...base[0]!, paymentId: P2.id },
        { ...base[1]!, forwarderAddress: '0x00000000000000000000000000000000000000b0' },
      ],
    }));
    await s.advance();
    expect(s.settlements.payment(P1.id).payout).toMatchObject({
      merchantPaidBaseUnits: 9_900_000n,
      treasuryPaidBaseUnits: 100_000n,
    });
    expect(s.settlements.payment(P2.id).payout).toMatchObject({ merchantPaidBaseUnits: 0n, failures: 1 });
  });

  it.each([
    ['merchant', { merchantBaseUnits: -1n }],
    ['fee', { feeBaseUnits: -1n }],
  ])('refuses a negative %s amount and writes nothing', async (_, negative) => {
    const s = setUp();
    mineFlush(s, (base) => ({ flushed: [{ ...base[0]!, ...negative }] }));
    await expect(s.advance()).rejects.toThrow(new RangeError('negative flush amount'));
    expect(s.settlements.settlement('stl_1').status).toBe('pending');
  });

  it('keeps, without counting it again, the failure of a share that was already held back', async () => {
    const failedAt = new Date('2026-01-01T01:00:00.000Z');
    const retryAt = new Date('2026-01-01T01:05:00.000Z');
    const blocked = {
      failures: 2,
      retryAt,
      blockedSince: failedAt,
      blockedReason: 'merchant blacklisted',
      commissionBlockedSince: failedAt,
      commissionBlockedReason: 'treasury blacklisted',
    };
    const failing = testPayment(1, {
      status: 'paid',
      amountReceivedBaseUnits: 10_000_000n,
      payout: { ...P1.payout, ...blocked },
    });
    const s = setUp(settlement([relayerTx(1)], [failing]), [failing]);
    mineFlush(s, (base) => ({
      // Half of each share went out; the rest stays held, as before.
      flushed: [{ ...base[0]!, merchantBaseUnits: 4_950_000n, feeBaseUnits: 50_000n }],
      withheld: [heldBackFromP1(base, 4_950_000n, 50_000n)],
    }));
    await s.advance();
    expect(s.settlements.payment(P1.id).payout).toMatchObject({
      merchantPaidBaseUnits: 4_950_000n,
      ...blocked,
    });
  });

  it('keeps a share the token held back as a failure, with what stays owed', async () => {
    const s = setUp();
    mineFlush(s, (base) => ({
      flushed: [{ ...base[0]!, feeBaseUnits: 0n }, base[1]!],
      withheld: [
        heldBackFromP1(base, 0n, 100_000n),
        {
          forwarderAddress: '0x00000000000000000000000000000000000000b0',
          tokenAddress: USDC,
          paymentId: P2.id,
          merchantOwedBaseUnits: 1n,
          feeOwedBaseUnits: 1n,
        },
      ],
    }));
    await s.advance();
    expect(s.settlements.payment(P1.id).payout).toMatchObject({
      merchantPaidBaseUnits: 9_900_000n,
      treasuryPaidBaseUnits: 0n,
      failures: 1,
      blockedReason: null,
      commissionBlockedSince: NOW,
      commissionBlockedReason: 'the token refused the transfer when the flush was mined (retried)',
    });
    expect(s.settlements.payment(P2.id).payout).toMatchObject({ failures: 0, commissionBlockedReason: null });
  });

  it('keeps the merchant’s share the token held back as a failure', async () => {
    const s = setUp();
    mineFlush(s, (base) => ({
      flushed: [{ ...base[0]!, merchantBaseUnits: 0n }, base[1]!],
      withheld: [heldBackFromP1(base, 9_900_000n, 0n)],
    }));
    await s.advance();
    expect(s.settlements.payment(P1.id).payout).toMatchObject({
      merchantPaidBaseUnits: 0n,
      treasuryPaidBaseUnits: 100_000n,
      failures: 1,
      blockedReason: 'the token refused the transfer when the flush was mined (retried)',
      commissionBlockedReason: null,
    });
    // Nothing reached the merchant: no payout_sent for P1.
    expect(s.settlements.allEvents().map((e) => e.paymentId)).toEqual([P2.id]);
  });

  it('changes no payout for a swept token that does not pay, and tells no refund as a payout', async () => {
    const refund = testPayment(2, { kind: 'refund', status: 'paid', amountReceivedBaseUnits: 10_000_000n });
    const s = setUp(settlement([relayerTx(1)], [P1, refund]), [P1, refund]);
    s.settlements.addBalance(P1.id, USDT, false);
    mineFlush(s, (base) => ({ flushed: [{ ...base[0]!, tokenAddress: USDT }, base[1]!] }));
    await s.advance();
    expect(s.settlements.payment(P1.id).payout).toMatchObject({ merchantPaidBaseUnits: 0n, failures: 0 });
    expect(s.settlements.balance(P1.id, USDT)).toMatchObject({ merchantPaid: 9_900_000n });
    expect(s.settlements.payment(refund.id).payout.merchantPaidBaseUnits).toBe(9_900_000n);
    expect(s.settlements.allEvents()).toEqual([]);
  });
});
