import { commissionOf, formatMoney, formatUsdc } from './money.ts';
import type { Payment } from './payment.ts';
import type { PaymentEventType, PaymentState } from './paymentStatus.ts';

/**
 * The body of a webhook, compatible with integrations written for the API this one replaces
 * (`event`, `payment_id`, `merchant_order_id`, `status`, `amount`, `currency`, `payout_amount`, `coin_type`,
 * `txid`, `paid_at`), plus our own `id`, `created_at`, `order_id`, `usdc_amount` and `payout_txid`.
 * It is serialized once, when the event is written, so every retry sends the same bytes.
 */
export interface WebhookEventBody {
  readonly id: string;
  readonly event: PaymentEventType;
  readonly created_at: string;
  readonly payment_id: string;
  readonly merchant_order_id: string | null;
  readonly order_id: string | null;
  readonly status: PaymentState['status'];
  readonly amount: string;
  readonly currency: string;
  readonly usdc_amount: string;
  readonly amount_received: string;
  /** Plain decimal USDC (no unit), as the original integrations expect. */
  readonly payout_amount: string;
  readonly coin_type: 'polygon_usdc';
  readonly txid: string | null;
  readonly paid_at: string | null;
  readonly late: boolean;
  readonly payout_txid: string | null;
  /** False for a payment created with a test key (on the test chain): test money, never ship goods for it. */
  readonly livemode: boolean;
}

/** What the merchant receives: the quoted share until paid, then the floor-split of what actually arrived. */
export function payoutBaseUnits(payment: Payment, state: PaymentState): bigint {
  if (state.status !== 'paid') return payment.quote.merchantShareBaseUnits;
  const received = state.amountReceivedBaseUnits;
  return received - commissionOf(received, payment.quote.commissionBps);
}

export function webhookEventBody(
  eventId: string,
  type: PaymentEventType,
  payment: Payment,
  state: PaymentState,
  createdAt: Date,
): WebhookEventBody {
  return {
    id: eventId,
    event: type,
    created_at: createdAt.toISOString(),
    payment_id: payment.id,
    merchant_order_id: payment.orderId,
    order_id: payment.orderId,
    status: state.status,
    amount: formatMoney(payment.quote.amount),
    currency: payment.quote.amount.currency.code,
    usdc_amount: formatUsdc(payment.quote.usdcBaseUnits),
    amount_received: formatUsdc(state.amountReceivedBaseUnits),
    payout_amount: formatUsdc(payoutBaseUnits(payment, state)),
    coin_type: 'polygon_usdc',
    txid: payment.txid,
    paid_at: state.paidAt?.toISOString() ?? null,
    late: state.late,
    payout_txid: payment.payoutTxHash,
    livemode: payment.mode === 'live',
  };
}
