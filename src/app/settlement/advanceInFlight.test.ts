import { describe, expect, it } from 'vitest';
import { FakeRelayer } from '../../../test/fakes/fakeRelayer.ts';
import { MemorySettlements } from '../../../test/fakes/memorySettlements.ts';
import { CHAIN_ID, testPayment, USDC, USDT } from '../../../test/fakes/paymentFixture.ts';
import { recordingLogger } from '../../../test/fakes/recordingLogger.ts';
import type { Payment } from '../../domain/payment.ts';
import { advanceInFlight } from './advanceInFlight.ts';
import type { RelayerReceipt, RelayerTransactionRecord, SettlementRecord } from './ports.ts';

const NOW = new Date('2026-01-01T02:00:00.000Z');
const SENT_AT = new Date('2026-01-01T01:58:00.000Z'); // two minutes ago: past the 60 s before a replacement
const P1 = testPayment(1, { status: 'paid', amountReceivedBaseUnits: 10_000_000n });
const P2 = testPayment(2, { status: 'paid', amountReceivedBaseUnits: 10_000_000n });

function relayerTx(n: number, fields: Partial<RelayerTransactionRecord> = {}): RelayerTransactionRecord {
  return {
    id: `rtx_${n}`,
    settlementId: 'stl_1',
    chainId: CHAIN_ID,
    fromAddress: '0x00000000000000000000000000000000000000f1',
    nonce: 7n,
    txHash: `0x${n.toString(16).padStart(64, 'c')}`,
    rawTx: `0xraw${n}`,
    gas: 100_000n,
    maxFeePerGas: 100n,
    maxPriorityFeePerGas: 10n,
    status: 'broadcast',
    replacesId: n > 1 ? `rtx_${n - 1}` : null,
    createdAt: SENT_AT,
    broadcastAt: SENT_AT,
    ...fields,
  };
}

function settlement(
  transactions: readonly RelayerTransactionRecord[] = [relayerTx(1)],
  payments: readonly Payment[] = [P1, P2],
): SettlementRecord {
  return {
    id: 'stl_1',
    chainId: CHAIN_ID,
    nonce: 7n,
    status: 'pending',
    payoutTxHash: null,
    failureReason: null,
    createdAt: SENT_AT,
    completedAt: null,
    items: payments.map((p) => ({
      paymentId: p.id,
      depositAddress: p.deposit!.depositAddress,
      expectedBaseUnits: p.amountReceivedBaseUnits,
    })),
    transactions,
  };
}

function receipt(tx: RelayerTransactionRecord, fields: Partial<RelayerReceipt> = {}): RelayerReceipt {
  return {
    txHash: tx.txHash,
    blockNumber: 100n,
    success: true,
    gasUsed: 90_000n,
    feeWei: 9_000_000n,
    flushed: [P1, P2].map((p) => ({
      // Checksummed, as the relayer decodes them: matched without regard to case.
      forwarderAddress: p.deposit!.depositAddress,
      tokenAddress: USDC,
      paymentId: p.id,
      merchantBaseUnits: 9_900_000n,
      feeBaseUnits: 100_000n,
    })),
    withheld: [],
    ...fields,
  };
}

function setUp(record: SettlementRecord = settlement(), payments: readonly Payment[] = [P1, P2]) {
  const settlements = new MemorySettlements();
  for (const p of payments) {
    settlements.addPayment(p);
    settlements.addBalance(p.id, USDC, true);
  }
  settlements.addSettlement(record);
  const relayer = new FakeRelayer();
  relayer.chainNonce = 7n;
  const logger = recordingLogger();
  const finality = { finalized: 100n };
  let now = NOW;
  const deps = {
    settlements,
    relayer,
    chain: { finalizedBlockNumber: async () => finality.finalized },
    clock: { now: () => now },
    logger,
  };
  const options = {
    chainId: CHAIN_ID,
    payoutPolicy: { dustThresholdBaseUnits: 10_000n, delayedAfterMs: 600_000 },
    relayerLowBalanceWei: 10n ** 16n,
  };
  return {
    settlements,
    relayer,
    logger,
    finality,
    setNow: (at: Date) => {
      now = at;
    },
    advance: (more: { stuckAfterMs?: number } = {}) =>
      advanceInFlight(deps, { ...options, ...more }, settlements.settlement('stl_1')),
  };
}

/** The flush (relayerTx(1)) mined with the events `events` makes of the plain ones (P1's item, then P2's). */
function mineFlush(
  s: ReturnType<typeof setUp>,
  events: (base: RelayerReceipt['flushed']) => Partial<RelayerReceipt>,
): void {
  const tx = relayerTx(1);
  s.relayer.receipts.set(tx.txHash, receipt(tx, events(receipt(tx).flushed)));
}

/** The token held back P1's shares in the flush: what stays owed to the merchant and to the treasury. */
function heldBackFromP1(
  base: RelayerReceipt['flushed'],
  merchantOwedBaseUnits: bigint,
  feeOwedBaseUnits: bigint,
) {
  return {
    forwarderAddress: base[0]!.forwarderAddress,
    tokenAddress: USDC,
    paymentId: P1.id,
    merchantOwedBaseUnits,
    feeOwedBaseUnits,
  };
}

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

describe('a settlement not mined', () => {
  it('is dropped when the account’s nonce went past it, without a failure on its payments', async () => {
    const s = setUp();
    s.relayer.chainNonce = 8n;
    expect(await s.advance()).toEqual({ kind: 'dropped', settlementId: 'stl_1' });
    expect(s.settlements.settlement('stl_1')).toMatchObject({
      status: 'failed',
      failureReason: 'nonce 7 was used by a transaction that is not ours',
      completedAt: NOW,
    });
    expect(s.settlements.payment(P1.id).payout.failures).toBe(0);
    expect(s.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { settlementId: 'stl_1', nonce: '7', chainNonce: '8' },
        message: 'settlement dropped; its payments are released',
      },
    ]);
  });

  it('waits while the account’s nonce is still its own', async () => {
    const s = setUp();
    s.relayer.chainNonce = 7n;
    expect(await s.advance({ stuckAfterMs: 600_000 })).toEqual({
      kind: 'awaiting-receipt',
      settlementId: 'stl_1',
      txHash: relayerTx(1).txHash,
    });
    expect(s.settlements.settlement('stl_1').status).toBe('pending');
  });

  it('is applied, not dropped, when its own transaction took the nonce', async () => {
    const s = setUp();
    const tx = relayerTx(1);
    s.relayer.chainNonce = 8n;
    s.relayer.receipts.set(tx.txHash, receipt(tx));
    expect((await s.advance()).kind).toBe('confirmed');
  });

  it('is broadcast again when a crash left it signed, and marked broadcast', async () => {
    const signed = relayerTx(1, { status: 'signed', broadcastAt: null, createdAt: NOW });
    const s = setUp(settlement([signed]));
    expect(await s.advance()).toEqual({ kind: 'broadcast', settlementId: 'stl_1', txHash: signed.txHash });
    expect(s.relayer.broadcasts).toEqual([signed.rawTx]);
    expect(s.settlements.settlement('stl_1').transactions[0]).toMatchObject({
      status: 'broadcast',
      broadcastAt: NOW,
    });
    expect(s.logger.lines).toEqual([
      {
        level: 'info',
        fields: { settlementId: 'stl_1', nonce: '7', txHash: signed.txHash },
        message: 'settlement transaction broadcast (resumed)',
      },
    ]);
  });

  it('is left to wait when the node refuses the resumed broadcast', async () => {
    const signed = relayerTx(1, { status: 'signed', broadcastAt: null, createdAt: NOW });
    const s = setUp(settlement([signed]));
    s.relayer.broadcastOutcome = { accepted: false, reason: 'nonce too low' };
    expect((await s.advance()).kind).toBe('awaiting-receipt');
    expect(s.settlements.settlement('stl_1').transactions[0]?.status).toBe('signed');
    expect(s.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { settlementId: 'stl_1', nonce: '7', txHash: signed.txHash, reason: 'nonce too low' },
        message: 'settlement broadcast refused',
      },
    ]);
  });

  it('is replaced once it has waited stuckAfterMs since its broadcast, not a millisecond before', async () => {
    const s = setUp();
    s.setNow(new Date(SENT_AT.getTime() + 59_999));
    expect((await s.advance()).kind).toBe('awaiting-receipt');
    s.setNow(new Date(SENT_AT.getTime() + 60_000));
    expect((await s.advance()).kind).toBe('replaced');
  });

  it('counts its wait from creation when it was never broadcast', async () => {
    const signed = relayerTx(1, { status: 'signed', broadcastAt: null, createdAt: SENT_AT });
    const s = setUp(settlement([signed]));
    s.relayer.broadcastOutcome = { accepted: false, reason: 'refused' };
    s.setNow(new Date(SENT_AT.getTime() + 10_000));
    expect((await s.advance({ stuckAfterMs: 10_001 })).kind).toBe('awaiting-receipt');
    expect((await s.advance({ stuckAfterMs: 10_000 })).kind).toBe('replaced');
  });
});

describe('replacing a stuck settlement transaction', () => {
  it('signs it again with both fees up by a quarter (rounded up), persists it, then broadcasts it', async () => {
    const s = setUp();
    s.relayer.fees = { maxFeePerGas: 50n, maxPriorityFeePerGas: 5n };
    const result = await s.advance();
    expect(s.relayer.replacements).toEqual([
      { rawTx: relayerTx(1).rawTx, fees: { maxFeePerGas: 125n, maxPriorityFeePerGas: 13n } },
    ]);
    const replacement = s.settlements.settlement('stl_1').transactions[1]!;
    expect(result).toEqual({
      kind: 'replaced',
      settlementId: 'stl_1',
      txHash: replacement.txHash,
      replacedTxHash: relayerTx(1).txHash,
    });
    expect(replacement).toMatchObject({
      settlementId: 'stl_1',
      nonce: 7n,
      gas: 100_000n,
      maxFeePerGas: 125n,
      maxPriorityFeePerGas: 13n,
      status: 'broadcast',
      replacesId: 'rtx_1',
      createdAt: NOW,
      broadcastAt: NOW,
    });
    expect(replacement.id).not.toBe('rtx_1');
    expect(s.relayer.broadcasts).toEqual([replacement.rawTx]);
    expect(s.settlements.readings()).toEqual([
      {
        chainId: CHAIN_ID,
        address: s.relayer.address,
        balanceWei: s.relayer.balanceWei,
        lowBalanceWei: 10n ** 16n,
        observedAt: NOW,
      },
    ]);
    expect(s.logger.lines[0]).toEqual({
      level: 'warn',
      fields: {
        settlementId: 'stl_1',
        nonce: '7',
        txHash: relayerTx(1).txHash,
        replacementTxHash: replacement.txHash,
        maxFeePerGas: '125',
        maxPriorityFeePerGas: '13',
      },
      message: 'settlement transaction stuck; replacing it with higher fees',
    });
  });

  it('pays at least what the network asks now, and a max fee no lower than the priority fee', async () => {
    const s = setUp();
    s.relayer.fees = { maxFeePerGas: 90n, maxPriorityFeePerGas: 200n };
    await s.advance();
    expect(s.relayer.replacements[0]?.fees).toEqual({ maxFeePerGas: 200n, maxPriorityFeePerGas: 200n });
    const t = setUp();
    t.relayer.fees = { maxFeePerGas: 300n, maxPriorityFeePerGas: 1n };
    await t.advance();
    expect(t.relayer.replacements[0]?.fees).toEqual({ maxFeePerGas: 300n, maxPriorityFeePerGas: 13n });
  });

  it('keeps the replacement signed when the node refuses it, for the next pass to resume', async () => {
    const s = setUp();
    s.relayer.broadcastOutcome = { accepted: false, reason: 'underpriced' };
    expect((await s.advance()).kind).toBe('replaced');
    const replacement = s.settlements.settlement('stl_1').transactions[1]!;
    expect(replacement).toMatchObject({ status: 'signed', broadcastAt: null });
    expect(s.logger.lines.at(-1)).toEqual({
      level: 'warn',
      fields: { settlementId: 'stl_1', nonce: '7', txHash: replacement.txHash, reason: 'underpriced' },
      message: 'settlement broadcast refused',
    });
  });

  it('stops after ten replacements and asks for an operator', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => relayerTx(i + 1));
    const s = setUp(settlement(eleven));
    expect(await s.advance()).toEqual({
      kind: 'awaiting-receipt',
      settlementId: 'stl_1',
      txHash: eleven[10]!.txHash,
    });
    expect(s.relayer.replacements).toEqual([]);
    expect(s.logger.lines).toEqual([
      {
        level: 'error',
        fields: { settlementId: 'stl_1', nonce: '7', txHash: eleven[10]!.txHash },
        message: 'settlement transaction stuck and fee bumps exhausted; an operator must look',
      },
    ]);
    const ten = setUp(settlement(eleven.slice(0, 10)));
    expect((await ten.advance()).kind).toBe('replaced');
  });

  it('does not replace it when the relayer cannot pay the new fees for its gas', async () => {
    const s = setUp();
    s.relayer.balanceWei = 100_000n * 125n - 1n;
    expect((await s.advance()).kind).toBe('awaiting-receipt');
    expect(s.relayer.replacements).toEqual([]);
    expect(s.logger.lines).toEqual([
      {
        level: 'error',
        fields: {
          settlementId: 'stl_1',
          nonce: '7',
          txHash: relayerTx(1).txHash,
          relayer: s.relayer.address,
          balanceWei: '12499999',
          neededWei: '12500000',
        },
        message: 'relayer out of gas: cannot replace a stuck settlement transaction',
      },
    ]);
    s.relayer.balanceWei = 100_000n * 125n;
    expect((await s.advance()).kind).toBe('replaced');
  });

  it('refuses a settlement with no transaction', async () => {
    const s = setUp(settlement([]));
    await expect(s.advance()).rejects.toThrow('settlement stl_1 has no transaction');
  });
});
