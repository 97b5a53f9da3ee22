import { newEventId } from '../../domain/credentials.ts';
import { type Payment, payoutStateOf } from '../../domain/payment.ts';
import {
  type PayoutFailureCause,
  type PayoutProgress,
  payoutAfterFailure,
  payoutAfterFlush,
} from '../../domain/payout.ts';
import { type PayoutSentFields, webhookEventBody } from '../../domain/webhookEvent.ts';
import type { InFlightOutcome } from './inFlightOutcome.ts';
import type { SettleOptions, SettlePaymentsDeps } from './options.ts';
import type {
  RelayerReceipt,
  RelayerTransactionRecord,
  SettlementRecord,
  SettlementTransaction,
} from './ports.ts';

/** What one mined flush did to one forwarder: sent (per side) and left held (version 2's Withheld). */
interface ForwarderFlush {
  readonly token: string;
  merchantSent: bigint;
  feeSent: bigint;
  merchantOwed: bigint;
  feeOwed: bigint;
}

/**
 * Applies a mined settlement transaction once its block is final (a reorg could still drop it before), in one
 * database transaction that closes the settlement exactly once: what each forwarder says it sent is added to its
 * payment's payout (matched on both the forwarder address and the payment id), the merchant is told of what it
 * received (`payment.payout_sent`), and a share that stayed behind keeps its failure and back-off. A reverted
 * transaction counts a failure on each of its payments.
 */
export async function applyMined(
  deps: SettlePaymentsDeps,
  options: SettleOptions,
  settlement: SettlementRecord,
  tx: RelayerTransactionRecord,
  receipt: RelayerReceipt,
): Promise<InFlightOutcome> {
  const { logger } = deps;
  const context = { settlementId: settlement.id, nonce: settlement.nonce.toString(), txHash: tx.txHash };
  const finalized = await deps.chain.finalizedBlockNumber();
  if (receipt.blockNumber > finalized) {
    return { kind: 'awaiting-finality', settlementId: settlement.id, txHash: tx.txHash };
  }
  const now = deps.clock.now();
  const paymentIds = settlement.items.map((i) => i.paymentId);

  if (!receipt.success) {
    await applyReverted(deps, settlement, tx, now);
    logger.error(
      { ...context, paymentIds },
      'settlement transaction reverted; its payments are retried after their back-off',
    );
    return { kind: 'reverted', settlementId: settlement.id, txHash: tx.txHash };
  }

  const flushes = forwarderFlushes(settlement, receipt);
  // A forwarder that moved nothing although the simulation said it would (someone flushed it first, or the
  // token changed its mind in between): a failure; the next attempt's simulation tells the token's reason.
  const surprises = new Map<string, PayoutFailureCause>();
  for (const item of settlement.items) {
    const flush = flushes.get(item.paymentId);
    if (flush === undefined) {
      surprises.set(item.paymentId, {
        merchant:
          'the flush moved nothing when mined (flushed by another account, or held back by the token)',
      });
    }
  }

  const applied = await deps.settlements.transaction(async (t) => {
    const closed = await t.closeSettlement(
      settlement.id,
      { status: 'confirmed', minedTxId: tx.id, payoutTxHash: tx.txHash },
      now,
    );
    if (!closed) return false;
    for (const payment of await t.lockPayments(paymentIds)) {
      const flush = flushes.get(payment.id);
      if (flush === undefined) {
        await t.savePayout(
          payment.id,
          payoutAfterFailure(payment.payout, surprises.get(payment.id)!, now),
          now,
        );
        continue;
      }
      const { accepted } = await t.recordFlush(
        payment.id,
        settlement.chainId,
        flush.token,
        flush.merchantSent,
        flush.feeSent,
      );
      // A swept token (one that does not pay) moved: the payment's payout, in USDC, is not what moved.
      if (!accepted) continue;
      const payout = payoutOfFlush(payment.payout, flush, tx.txHash, now);
      await t.savePayout(payment.id, payout, now);
      // A refund's deposit pays the customer: `refund.refunded` is told by the refund announcer instead.
      if (flush.merchantSent > 0n && payment.kind === 'payment')
        await insertPayoutSent(t, options, { ...payment, payout }, flush, now);
    }
    return true;
  });
  if (!applied) {
    logger.warn(context, 'settlement was already closed by another settler');
    return { kind: 'confirmed', settlementId: settlement.id, txHash: tx.txHash };
  }
  if (surprises.size > 0) {
    logger.warn(
      { ...context, paymentIds: [...surprises.keys()] },
      'flush moved nothing for these payments; retried after their back-off',
    );
  }
  const settled = [...flushes.values()].reduce((sum, f) => sum + f.merchantSent + f.feeSent, 0n);
  logger.info(
    { ...context, payments: flushes.size, settledBaseUnits: settled.toString() },
    'settlement confirmed',
  );
  return { kind: 'confirmed', settlementId: settlement.id, txHash: tx.txHash };
}

const HELD_WHEN_MINED = 'the token refused the transfer when the flush was mined (retried)';

/**
 * Releases a settlement whose nonce another transaction took (nothing of ours was mined): its payments are due
 * again at once, without a failure counted against them.
 */
export async function applyNonceTaken(
  deps: SettlePaymentsDeps,
  settlement: SettlementRecord,
  chainNonce: bigint,
): Promise<void> {
  const reason = `nonce ${settlement.nonce} was used by a transaction that is not ours`;
  await deps.settlements.transaction((t) =>
    t.closeSettlement(settlement.id, { status: 'failed', minedTxId: null, reason }, deps.clock.now()),
  );
  deps.logger.warn(
    { settlementId: settlement.id, nonce: settlement.nonce.toString(), chainNonce: chainNonce.toString() },
    'settlement dropped; its payments are released',
  );
}

/** Each item's flush, from the receipt's events of its own forwarder and payment id; absent: it moved nothing. */
function forwarderFlushes(
  settlement: SettlementRecord,
  receipt: RelayerReceipt,
): Map<string, ForwarderFlush> {
  const byAddress = new Map(settlement.items.map((item) => [item.depositAddress.toLowerCase(), item]));
  const itemOf = (event: { forwarderAddress: string; paymentId: string }) => {
    const item = byAddress.get(event.forwarderAddress.toLowerCase());
    return item && item.paymentId === event.paymentId ? item : undefined;
  };
  const flushes = new Map<string, ForwarderFlush>();
  for (const event of receipt.flushed) {
    const item = itemOf(event);
    if (!item) continue;
    if (event.merchantBaseUnits < 0n || event.feeBaseUnits < 0n)
      throw new RangeError('negative flush amount');
    const flush = flushes.get(item.paymentId) ?? {
      token: event.tokenAddress,
      merchantSent: 0n,
      feeSent: 0n,
      merchantOwed: 0n,
      feeOwed: 0n,
    };
    flush.merchantSent += event.merchantBaseUnits;
    flush.feeSent += event.feeBaseUnits;
    flushes.set(item.paymentId, flush);
  }
  for (const event of receipt.withheld) {
    const flush = itemOf(event) && flushes.get(itemOf(event)!.paymentId);
    // What stays behind after the forwarder's last event in this transaction.
    if (flush) {
      flush.merchantOwed = event.merchantOwedBaseUnits;
      flush.feeOwed = event.feeOwedBaseUnits;
    }
  }
  return flushes;
}

async function insertPayoutSent(
  t: SettlementTransaction,
  options: SettleOptions,
  payment: Payment,
  flush: ForwarderFlush,
  now: Date,
): Promise<void> {
  const eventId = newEventId();
  const payout = payoutStateOf(payment, payment, options.payoutPolicy, now);
  const body: ReturnType<typeof webhookEventBody> & PayoutSentFields = {
    ...webhookEventBody(eventId, 'payment.payout_sent', payment, payment, payout, now),
    merchant_received_base_units: flush.merchantSent.toString(),
    treasury_received_base_units: flush.feeSent.toString(),
  };
  await t.insertEvent({
    id: eventId,
    paymentId: payment.id,
    merchantId: payment.merchantId,
    type: 'payment.payout_sent',
    payload: JSON.stringify(body),
    createdAt: now,
  });
}

/** A reverted settlement closes as failed, once, and counts a failure on each of its payments. */
async function applyReverted(
  deps: SettlePaymentsDeps,
  settlement: SettlementRecord,
  tx: RelayerTransactionRecord,
  now: Date,
): Promise<void> {
  const reason = `settlement transaction ${tx.txHash} reverted`;
  await deps.settlements.transaction(async (t) => {
    if (!(await t.closeSettlement(settlement.id, { status: 'failed', minedTxId: tx.id, reason }, now)))
      return;
    for (const payment of await t.lockPayments(settlement.items.map((i) => i.paymentId))) {
      await t.savePayout(
        payment.id,
        payoutAfterFailure(payment.payout, { merchant: reason, commission: reason }, now),
        now,
      );
    }
  });
}

/**
 * A payment's payout once its forwarder's flush is mined: what was sent is added, and a share the token held back
 * that was not known to be blocked becomes a failure, with its back-off.
 */
function payoutOfFlush(
  before: PayoutProgress,
  flush: ForwarderFlush,
  txHash: string,
  now: Date,
): PayoutProgress {
  const payout = payoutAfterFlush(before, {
    merchantSentBaseUnits: flush.merchantSent,
    feeSentBaseUnits: flush.feeSent,
    merchantOwedBaseUnits: flush.merchantOwed,
    feeOwedBaseUnits: flush.feeOwed,
    txHash,
    at: now,
  });
  const unexpected = {
    merchant: flush.merchantOwed > 0n && payout.blockedSince === null ? HELD_WHEN_MINED : undefined,
    commission: flush.feeOwed > 0n && payout.commissionBlockedSince === null ? HELD_WHEN_MINED : undefined,
  };
  return unexpected.merchant || unexpected.commission ? payoutAfterFailure(payout, unexpected, now) : payout;
}
