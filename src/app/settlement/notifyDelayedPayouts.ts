import { newEventId } from '../../domain/credentials.ts';
import { payoutStateOf } from '../../domain/payment.ts';
import { type PayoutDelayedFields, webhookEventBody } from '../../domain/webhookEvent.ts';
import type { SettleOptions, SettlePaymentsDeps } from './options.ts';

/** Payments told of a delay per pass; more wait for the next pass. */
const MAX_NOTICES_PER_PASS = 100;

/**
 * Tells each merchant, once per delay, that its payout has been failing for `delayedAfterMs`
 * (`payment.payout_delayed`, with the token's reason): written with the mark that it was told, under the
 * payment's row lock, so that two passes never tell twice. A new delay, after the payout went out, is told again.
 */
export async function notifyDelayedPayouts(
  deps: SettlePaymentsDeps,
  options: SettleOptions,
): Promise<readonly string[]> {
  const now = deps.clock.now();
  const policy = options.payoutPolicy;
  const blockedBefore = new Date(now.getTime() - policy.delayedAfterMs);
  const due = await deps.settlements.delayedUnnotified(options.chainId, blockedBefore, MAX_NOTICES_PER_PASS);
  if (due.length === 0) return [];
  const notified = await deps.settlements.transaction(async (t) => {
    const told: string[] = [];
    for (const payment of await t.lockPayments(due)) {
      if (payment.payout.delayNotifiedAt !== null || payment.payout.blockedSince === null) continue;
      const payout = payoutStateOf(payment, payment, policy, now);
      // A refund's delay shows on the refund itself (its status and reason); its merchant has no payout.
      if (payout.status === 'delayed' && payment.kind === 'payment') {
        const eventId = newEventId();
        const body: ReturnType<typeof webhookEventBody> & PayoutDelayedFields = {
          ...webhookEventBody(eventId, 'payment.payout_delayed', payment, payment, payout, now),
          payout_delayed_since: payment.payout.blockedSince.toISOString(),
        };
        await t.insertEvent({
          id: eventId,
          paymentId: payment.id,
          merchantId: payment.merchantId,
          type: 'payment.payout_delayed',
          payload: JSON.stringify(body),
          createdAt: now,
        });
        told.push(payment.id);
      }
      // Marked even when nothing is owed to the merchant any more: there is no delay to tell, and the mark keeps
      // the payment out of the next pass's query until its failure clears.
      await t.savePayout(payment.id, { ...payment.payout, delayNotifiedAt: now }, now);
    }
    return told;
  });
  for (const paymentId of notified) {
    deps.logger.warn({ paymentId }, 'payout delayed: the merchant is told (payment.payout_delayed)');
  }
  return notified;
}
