import type { PaymentStatus, RefundStatus } from './types.ts';

/**
 * The bodies of the webhooks Paylink sends (docs/webhooks.md), one type per kind, told apart by `event`.
 * Webhooks are not in the OpenAPI document, so these are written out; test/packages/clientSdk.test.ts checks at compile
 * time that the server's own body types fit them. Amounts are decimal strings. New fields may be added.
 */

/** A transfer counted towards a payment: the chain it was sent on and what it brought. */
export interface PaymentTransfer {
  /** 137: Polygon; another chain's USDC is brought to Polygon through CCTP. */
  readonly chain_id: number;
  /** The transaction on that chain (`chain_id`). */
  readonly txid: string;
  /** USDC, exact decimal. */
  readonly amount: string;
  /** The token's contract on that chain. */
  readonly token_address: string;
  readonly token_symbol: string;
  /** Final under that chain's finality rule: only final transfers make a payment paid. */
  readonly final: boolean;
}

/**
 * What CCTP keeps of a payment paid on another chain (docs/any-chain.md, "The fee"), out of your share: USDC
 * decimal strings, exact.
 */
export interface CctpFee {
  /** What CCTP kept of the transfers completed so far. */
  readonly taken: string;
  /** The most it may still keep of transfers not completed yet. */
  readonly pending_max: string;
  readonly borne_by: 'merchant_share';
  /** The most the quote's `max_fee_bps` let CCTP keep of what was burnt so far (0 on standard networks). */
  readonly quoted_max: string;
  /** A burn had to let CCTP keep more than quoted: Circle's minimum fee at the burn was above the quote. */
  readonly above_quote: boolean;
}

/** Every payment event carries the payment as it stands after the change. */
export interface PaymentEventFields {
  /** The event id, also the `webhook-id` header: de-duplicate on it. */
  readonly id: string;
  readonly created_at: string;
  readonly payment_id: string;
  /** Your `order_id`, under both names. */
  readonly merchant_order_id: string | null;
  readonly order_id: string | null;
  readonly status: PaymentStatus;
  readonly amount: string;
  readonly currency: string;
  readonly usdc_amount: string;
  /** USDC the customer sent: every transfer seen in `payment.processing`, the final ones once paid. */
  readonly amount_received: string;
  readonly amount_overpaid: string;
  /** `"<decimal> USDC"`. */
  readonly payout_amount: string;
  /** Present once CCTP took, or may still take, a fee of the payment; absent otherwise. */
  readonly cctp_fee?: CctpFee;
  readonly coin_type: 'polygon_usdc';
  /**
   * On the home chain (Polygon), like `coin_type`: the token of the transfer `txid` names (USDC, or USDC.e
   * where accepted), else the home chain's USDC; never another chain's token.
   */
  readonly token_address: string | null;
  readonly token_symbol: string | null;
  /**
   * The customer's transfer on the home chain that completed the payment (or the latest seen); null when it was
   * sent on another chain (`transfers` names it, with its `chain_id`) or none was seen.
   */
  readonly txid: string | null;
  /**
   * Every transfer counted, on any accepted chain, in the order they arrived: in the status events and
   * `payment.unaccepted_transfer` (the payout events leave it out).
   */
  readonly transfers?: readonly PaymentTransfer[];
  readonly paid_at: string | null;
  /** Paid after the link expired. */
  readonly late: boolean;
  /** `not_due` before the payment is paid or failed; null for a payment that expired with nothing received. */
  readonly payout_status: 'not_due' | 'pending' | 'sent' | 'delayed' | null;
  readonly payout_txid: string | null;
  readonly payout_delayed_reason: string | null;
  /** False for a payment made with a test key: never ship goods for it. */
  readonly livemode: boolean;
  /** Your success_url and cancel_url with `payment_id=<id>` in their query; null when not set. */
  readonly success_url: string | null;
  readonly cancel_url: string | null;
  /** Your own references, as sent (`{}` when none). */
  readonly metadata: Readonly<Record<string, string>>;
  /** The reusable link the payment was made through; null for one created directly. */
  readonly link_id: string | null;
  /** The customer's language as given on create (en, fr, de, es); null when not given. */
  readonly customer_language: string | null;
}

/**
 * A change of the payment's status. `payment.pending` comes only after `payment.processing`, when the transfer
 * seen was reorged off the chain: the payment waits for money again (never sent at creation).
 */
export interface PaymentStatusEvent extends PaymentEventFields {
  readonly event:
    | 'payment.processing'
    | 'payment.pending'
    | 'payment.paid'
    | 'payment.failed'
    | 'payment.expired';
}

/** What a call paid through the x402 facilitator carries besides the payment's fields. */
export interface X402CallFields {
  /** The resource the client paid for, as its payment payload named it; null when it named none. */
  readonly resource_url: string | null;
  /** The address that signed the transfer (lower case). */
  readonly payer: string;
  /** CAIP-2, `eip155:<chain id>`. */
  readonly network: string;
}

/** `payment.paid` of a call settled through the x402 facilitator: its transfer is mined. */
export interface X402PaymentPaidEvent extends PaymentEventFields {
  readonly event: 'payment.paid';
  readonly x402: X402CallFields;
}

export interface PayoutSentEvent extends PaymentEventFields {
  readonly event: 'payment.payout_sent';
  /** Base units (1 USDC = 1000000) that transaction sent to your wallet. */
  readonly merchant_received_base_units: string;
  readonly treasury_received_base_units: string;
}

export interface PayoutDelayedEvent extends PaymentEventFields {
  readonly event: 'payment.payout_delayed';
  readonly payout_delayed_since: string;
}

export interface UnacceptedTransferEvent extends PaymentEventFields {
  readonly event: 'payment.unaccepted_transfer';
  readonly unaccepted_transfer: {
    readonly token_address: string;
    readonly token_symbol: string;
    /** In the token's own units, decimal. */
    readonly amount: string;
    readonly from_address: string;
    readonly tx_hash: string;
  };
}

/** A refund's events carry the refund as `GET /payments/api/refunds/{refund_id}/` shows it. */
export interface RefundEvent {
  readonly id: string;
  readonly event:
    | 'refund.created'
    | 'refund.address_provided'
    | 'refund.funded'
    | 'refund.refunded'
    | 'refund.canceled'
    | 'refund.expired';
  /** When the event happened; the refund's own creation is `refund_created_at`. */
  readonly created_at: string;
  readonly refund_id: string;
  readonly payment_id: string;
  readonly status: RefundStatus;
  readonly amount: string;
  readonly currency: 'USDC';
  readonly requested_amount: string;
  readonly requested_currency: string;
  readonly reason: string | null;
  readonly address: string | null;
  readonly address_source: 'merchant' | 'customer' | null;
  readonly amount_funded: string;
  readonly amount_sent: string;
  readonly txid: string | null;
  readonly payout_delayed_reason: string | null;
  readonly refund_created_at: string;
  readonly livemode: boolean;
}

/**
 * A subscription's events carry the subscription as `GET /payments/api/subscriptions/{subscription_id}/` shows
 * it, with the period and the payment the event is about: each is sent on that payment's timeline. A change no
 * period's payment carries (`subscription.created`, sent when the subscription is made; a cancellation before
 * its first period was billed) is on the subscription's own timeline: `payment_id` is null.
 */
export interface SubscriptionEvent {
  readonly id: string;
  readonly event:
    | 'subscription.created'
    | 'subscription.activated'
    | 'subscription.renewed'
    | 'subscription.payment_failed'
    | 'subscription.past_due'
    | 'subscription.canceled'
    | 'subscription.ended';
  readonly created_at: string;
  readonly subscription_id: string;
  readonly plan_id: string;
  readonly status: 'trialing' | 'active' | 'past_due' | 'canceled' | 'ended';
  readonly customer_email: string;
  readonly customer_wallet: string | null;
  /** Each period's price as the plan states it, and its currency. */
  readonly amount: string;
  readonly currency: string;
  readonly current_period: number;
  readonly current_period_start: string | null;
  readonly current_period_end: string | null;
  readonly trial_end: string | null;
  readonly cancel_at: string | null;
  readonly canceled_by: 'merchant' | 'customer' | null;
  readonly canceled_reason: 'requested' | 'unpaid' | null;
  readonly ended_at: string | null;
  readonly started_at: string;
  readonly livemode: boolean;
  /**
   * The period this event is about, and its payment; null on the subscription's own timeline (then `period` is
   * the subscription's current period: 0 in a trial).
   */
  readonly period: number;
  readonly payment_id: string | null;
}

export type WebhookEvent =
  | PaymentStatusEvent
  | X402PaymentPaidEvent
  | PayoutSentEvent
  | PayoutDelayedEvent
  | UnacceptedTransferEvent
  | RefundEvent
  | SubscriptionEvent;

export type WebhookEventType = WebhookEvent['event'];
