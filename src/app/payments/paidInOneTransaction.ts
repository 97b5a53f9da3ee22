import { newEventId } from '../../domain/credentials.ts';
import { type Payment, payoutStateOf } from '../../domain/payment.ts';
import type { PayoutPolicy } from '../../domain/payout.ts';
import { webhookEventBody } from '../../domain/webhookEvent.ts';
import type { OutboxEvent } from '../chain/ports.ts';

/**
 * `payment.paid` of a payment paid whole by one transaction the service sent itself (an x402 call's relayed
 * authorization, a subscription period's charge), as the watcher writes it for a transfer of the whole amount;
 * `extra` is what only that kind of payment carries (`x402`, `subscription_charge`).
 */
export function paidInOneTransactionEvent(
  payment: Payment,
  paid: { readonly amountBaseUnits: bigint; readonly at: Date },
  payoutPolicy: PayoutPolicy,
  extra: Record<string, unknown>,
): OutboxEvent {
  const state = {
    status: 'paid' as const,
    amountReceivedBaseUnits: paid.amountBaseUnits,
    paidAt: paid.at,
    late: false,
  };
  const eventId = newEventId();
  const payout = payoutStateOf(payment, state, payoutPolicy, paid.at);
  return {
    id: eventId,
    paymentId: payment.id,
    merchantId: payment.merchantId,
    type: 'payment.paid',
    payload: JSON.stringify({
      ...webhookEventBody(eventId, 'payment.paid', payment, state, payout, paid.at),
      ...extra,
    }),
    createdAt: paid.at,
  };
}
