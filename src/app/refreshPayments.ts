import { newEventId } from '../domain/credentials.ts';
import { paymentTerms } from '../domain/payment.ts';
import { derivePaymentState, eventForTransition, type PaymentState } from '../domain/paymentStatus.ts';
import { webhookEventBody } from '../domain/webhookEvent.ts';
import type { Clock, Ledger, LedgerTransaction, TransferRecord } from './ports.ts';

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
 * a reorg, finality) and its consequences commit together or not at all.
 */
export async function refreshPayments(
  tx: LedgerTransaction,
  paymentIds: readonly string[],
  now: Date,
): Promise<StatusChange[]> {
  if (paymentIds.length > MAX_REFRESH_BATCH) throw new RangeError('refresh batch too large');
  const changes: StatusChange[] = [];
  // A stable order, so two processes refreshing overlapping sets lock rows in the same order (no deadlock).
  for (const paymentId of [...new Set(paymentIds)].sort()) {
    const payment = await tx.lockPayment(paymentId);
    if (!payment) continue;
    const transfers = await tx.listTransfers(paymentId);
    const state = derivePaymentState<TransferRecord>(paymentTerms(payment), transfers, now);
    const txid = (state.completedBy ?? state.lastSeen)?.txHash ?? null;
    const unchanged =
      state.status === payment.status &&
      state.amountReceivedBaseUnits === payment.amountReceivedBaseUnits &&
      state.paidAt?.getTime() === payment.paidAt?.getTime() &&
      state.late === payment.late &&
      txid === payment.txid;
    if (unchanged) continue;

    await tx.updatePaymentState(paymentId, { state, txid, updatedAt: now });
    const type = eventForTransition(payment.status, state.status);
    let eventId: string | null = null;
    if (type) {
      eventId = newEventId();
      const body = webhookEventBody(eventId, type, { ...payment, txid }, state, now);
      await tx.insertEvent({
        id: eventId,
        paymentId,
        merchantId: payment.merchantId,
        type,
        payload: JSON.stringify(body),
        createdAt: now,
      });
    }
    changes.push({ paymentId, from: payment.status, to: state.status, eventId });
  }
  return changes;
}

/** Moves payments whose link has expired to `expired` or `failed` (and their events), a bounded batch a call. */
export async function expirePayments(
  deps: { ledger: Ledger; clock: Clock },
  limit = 500,
): Promise<StatusChange[]> {
  const now = deps.clock.now();
  const due = await deps.ledger.openPaymentsPastExpiry(now, Math.min(limit, MAX_REFRESH_BATCH));
  if (due.length === 0) return [];
  return deps.ledger.transaction((tx) => refreshPayments(tx, due, now));
}
