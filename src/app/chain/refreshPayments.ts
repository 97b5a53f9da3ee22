import { newEventId } from '../../domain/credentials.ts';
import { paymentTerms, payoutStateOf } from '../../domain/payment.ts';
import {
  countedTransfers,
  derivePaymentState,
  eventForTransition,
  type PaymentState,
} from '../../domain/paymentStatus.ts';
import { DEFAULT_PAYOUT_POLICY, type PayoutPolicy } from '../../domain/payout.ts';
import {
  describeUnacceptedTransfer,
  type UnacceptedTransferFields,
  webhookEventBody,
} from '../../domain/webhookEvent.ts';
import type { Clock } from '../shared/ports.ts';
import type { Ledger, LedgerTransaction, TransferRecord, UnacceptedTransfer } from './ports.ts';

export interface StatusChange {
  readonly paymentId: string;
  readonly from: PaymentState['status'];
  readonly to: PaymentState['status'];
  readonly eventId: string | null;
}

/** Bound on the payments refreshed in one transaction (a block range this busy is split by the watcher). */
export const MAX_REFRESH_BATCH = 10_000;

/**
 * Recomputes the status of each payment from its transfers and the clock and, where it changed, writes the new
 * state and the event it owes — inside the caller's transaction, so the change that caused it (new transfers,
 * a reorg, finality) and its consequences commit together or not at all. A payment that becomes paid is raised
 * on the transaction (`paymentPaid`), where the wiring's reaction queues its customer's receipt; a paid payment
 * whose received amount grows (`paymentTopUp`), where it queues the updated receipt (decision 0050).
 */
export async function refreshPayments(
  tx: LedgerTransaction,
  paymentIds: readonly string[],
  now: Date,
  payoutPolicy: PayoutPolicy = DEFAULT_PAYOUT_POLICY,
): Promise<StatusChange[]> {
  if (paymentIds.length > MAX_REFRESH_BATCH) throw new RangeError('refresh batch too large');
  const changes: StatusChange[] = [];
  // A stable order, so two processes refreshing overlapping sets lock rows in the same order (no deadlock).
  for (const paymentId of [...new Set(paymentIds)].sort()) {
    const payment = await tx.lockPayment(paymentId);
    if (!payment) continue;
    const transfers = await tx.listTransfers(paymentId);
    const state = derivePaymentState<TransferRecord>(paymentTerms(payment), transfers, now);
    const named = state.completedBy ?? state.lastSeen;
    const txid = named?.txHash ?? null;
    const txidChainId = named?.chainId ?? null;
    const paidWith = named ? { address: named.tokenAddress, symbol: named.tokenSymbol } : null;
    // Per chain: each chain's deposit address is flushed (or burnt home) by that chain's settler.
    if (payment.deposit) {
      const byChain = finalByChainAndToken(transfers);
      if (!byChain.has(payment.deposit.chainId)) byChain.set(payment.deposit.chainId, new Map());
      for (const [chainId, received] of byChain) await tx.saveReceivedByToken(paymentId, chainId, received);
    }
    const unchanged =
      state.status === payment.status &&
      state.amountReceivedBaseUnits === payment.amountReceivedBaseUnits &&
      state.paidAt?.getTime() === payment.paidAt?.getTime() &&
      state.late === payment.late &&
      txid === payment.txid &&
      txidChainId === payment.txidChainId &&
      paidWith?.symbol === payment.paidWith?.symbol;
    if (unchanged) continue;

    const type = eventForTransition(payment.announcedStatus, state.status);
    await tx.updatePaymentState(paymentId, {
      state,
      txid,
      txidChainId,
      paidWith,
      announcedStatus: type ? state.status : payment.announcedStatus,
      updatedAt: now,
    });
    let eventId: string | null = null;
    const paidNow = () => ({
      ...payment,
      txid,
      txidChainId,
      paidWith,
      status: state.status,
      amountReceivedBaseUnits: state.amountReceivedBaseUnits,
      paidAt: state.paidAt,
      updatedAt: now,
    });
    // A refund's deposit address owes no payment events: the refund announcer tells its funding and payout.
    if (type && payment.kind === 'payment') {
      eventId = newEventId();
      const changed = { ...payment, txid, txidChainId, paidWith };
      const payout = payoutStateOf(changed, state, payoutPolicy, now);
      const body = webhookEventBody(eventId, type, changed, state, payout, now, transfers);
      await tx.insertEvent({
        id: eventId,
        paymentId,
        merchantId: payment.merchantId,
        type,
        payload: JSON.stringify(body),
        createdAt: now,
      });
      if (type === 'payment.paid') await tx.paymentPaid(paidNow(), now);
    }
    // Paid before and counting more now (an overpayment became final): the customer's receipt is updated.
    const toppedUp =
      payment.kind === 'payment' &&
      payment.status === 'paid' &&
      state.status === 'paid' &&
      state.amountReceivedBaseUnits > payment.amountReceivedBaseUnits;
    if (toppedUp) await tx.paymentTopUp(paidNow(), now);
    changes.push({ paymentId, from: payment.status, to: state.status, eventId });
  }
  return changes;
}

/**
 * Per chain, what each accepted token brought in final transfers still on the canonical chain, or carried home by
 * a final mint (decision 0037): the transfers the payment's status counts, so a source chain's row says what
 * arrived there as the status does, and what its burns took out never exceeds it.
 */
function finalByChainAndToken(transfers: readonly TransferRecord[]): Map<number, Map<string, bigint>> {
  const sums = new Map<number, Map<string, bigint>>();
  for (const t of countedTransfers(transfers)) {
    if (!t.final) continue;
    const chain = sums.get(t.chainId) ?? new Map<string, bigint>();
    chain.set(t.tokenAddress, (chain.get(t.tokenAddress) ?? 0n) + t.amountBaseUnits);
    sums.set(t.chainId, chain);
  }
  return sums;
}

/**
 * Tells each merchant of a token that does not pay sent to its payment (`payment.unaccepted_transfer`): the
 * customer believes they paid. Within the caller's transaction, like the transfers that revealed it.
 */
export async function reportUnacceptedTransfers(
  tx: LedgerTransaction,
  transfers: readonly UnacceptedTransfer[],
  now: Date,
  payoutPolicy: PayoutPolicy = DEFAULT_PAYOUT_POLICY,
): Promise<void> {
  for (const transfer of [...transfers].sort((a, b) => a.paymentId.localeCompare(b.paymentId))) {
    const payment = await tx.lockPayment(transfer.paymentId);
    if (!payment) continue;
    // Its status response now lists the transfer: a touch tells the status read caches.
    await tx.touchPayment(payment.id, now);
    if (payment.kind !== 'payment') continue;
    // amount_received as the status endpoint shows it now: the stored row keeps only the final sum, and an
    // unpaid payment's figure counts the transfers awaiting finality too.
    const transfers = await tx.listTransfers(payment.id);
    const { amountSeenBaseUnits } = derivePaymentState(paymentTerms(payment), transfers, now);
    const eventId = newEventId();
    const body: ReturnType<typeof webhookEventBody> & UnacceptedTransferFields = {
      ...webhookEventBody(
        eventId,
        'payment.unaccepted_transfer',
        payment,
        { ...payment, amountSeenBaseUnits },
        payoutStateOf(payment, payment, payoutPolicy, now),
        now,
        transfers,
      ),
      unaccepted_transfer: describeUnacceptedTransfer(transfer),
    };
    await tx.insertEvent({
      id: eventId,
      paymentId: payment.id,
      merchantId: payment.merchantId,
      type: 'payment.unaccepted_transfer',
      payload: JSON.stringify(body),
      createdAt: now,
    });
  }
}

/** What a pass that changes payments' statuses needs: the ledger, the time, and how payout status is derived. */
export interface StatusPassDeps {
  readonly ledger: Ledger;
  readonly clock: Clock;
  /** How the payout status in the events written is derived; default: the configuration's defaults. */
  readonly payoutPolicy?: PayoutPolicy | undefined;
}

/** Moves payments whose link has expired to `expired` or `failed` (and their events), a bounded batch a call. */
export async function expirePayments(deps: StatusPassDeps, limit = 500): Promise<StatusChange[]> {
  const now = deps.clock.now();
  const due = await deps.ledger.openPaymentsPastExpiry(now, Math.min(limit, MAX_REFRESH_BATCH));
  if (due.length === 0) return [];
  return deps.ledger.transaction((tx) => refreshPayments(tx, due, now, deps.payoutPolicy));
}
