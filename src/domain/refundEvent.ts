import { formatUsdc } from './money.ts';
import type { PaymentEventType } from './paymentStatus.ts';
import type { Refund, RefundFunding, RefundStatus } from './refund.ts';

/** What the merchant is told of a refund, in its API responses and its webhooks alike. */
export interface RefundFields {
  readonly refund_id: string;
  readonly payment_id: string;
  readonly status: RefundStatus;
  /** USDC owed to the customer, decimal. */
  readonly amount: string;
  readonly currency: 'USDC';
  /** As the merchant asked: "overpaid", or an amount in `requested_currency`. */
  readonly requested_amount: string;
  readonly requested_currency: string;
  readonly reason: string | null;
  /** The customer's address, once given (checksummed). */
  readonly address: string | null;
  readonly address_source: 'merchant' | 'customer' | null;
  /** What the merchant's funding brought in (final transfers), which may exceed `amount`: all of it is sent on. */
  readonly amount_funded: string;
  /** What reached the customer so far. */
  readonly amount_sent: string;
  /** The transaction that paid the customer. */
  readonly txid: string | null;
  /** Why sending to the customer fails, while it does (for instance a blacklisted address). */
  readonly payout_delayed_reason: string | null;
  readonly created_at: string;
  readonly livemode: boolean;
}

export function refundFields(refund: Refund, funding: RefundFunding, status: RefundStatus): RefundFields {
  return {
    refund_id: refund.id,
    payment_id: refund.paymentId,
    status,
    amount: formatUsdc(refund.amountBaseUnits),
    currency: 'USDC',
    requested_amount: refund.requestedAmount,
    requested_currency: refund.requestedCurrency,
    reason: refund.reason,
    address: refund.address,
    address_source: refund.addressSource,
    amount_funded: formatUsdc(funding.fundedBaseUnits),
    amount_sent: formatUsdc(funding.sentBaseUnits),
    txid: funding.txid,
    payout_delayed_reason: status === 'processing' ? funding.delayedReason : null,
    created_at: refund.createdAt.toISOString(),
    livemode: refund.mode === 'live',
  };
}

/** A refund webhook's body: the refund as the API shows it, with the event's own id, type and time. */
export interface RefundEventBody extends Omit<RefundFields, 'created_at'> {
  readonly id: string;
  readonly event: PaymentEventType;
  readonly created_at: string;
  readonly refund_created_at: string;
}

export function refundEventBody(
  eventId: string,
  type: PaymentEventType,
  fields: RefundFields,
  createdAt: Date,
): RefundEventBody {
  const { created_at: refundCreatedAt, ...rest } = fields;
  return {
    id: eventId,
    event: type,
    created_at: createdAt.toISOString(),
    ...rest,
    refund_created_at: refundCreatedAt,
  };
}
