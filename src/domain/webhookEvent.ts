import { getAddress } from 'viem';
import { formatDecimal } from './decimal.ts';
import type { Metadata } from './metadata.ts';
import { commissionOf, formatMoney, formatUsdc } from './money.ts';
import { homeChainTxid, type Payment, paymentToken } from './payment.ts';
import {
  countedTransfers,
  type ObservedTransfer,
  type PaymentEventType,
  type PaymentState,
} from './paymentStatus.ts';
import type { PayoutState, PayoutStatus } from './payout.ts';
import { withPaymentId } from './redirectUrl.ts';
import { overpaidBaseUnits } from './refund.ts';

/**
 * The body of a webhook, compatible with integrations written for the API this one replaces
 * (`event`, `payment_id`, `merchant_order_id`, `status`, `amount`, `currency`, `payout_amount`, `coin_type`,
 * `txid`, `paid_at`), plus our own `id`, `created_at`, `order_id`, `usdc_amount` and `payout_txid`.
 * It is serialized once, when the event is written, so every retry sends the same bytes.
 */
export interface WebhookEventBody extends CctpFeeFields {
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
  /** USDC sent by the customer: every transfer seen until paid, the final ones once paid (receivedBaseUnitsShown). */
  readonly amount_received: string;
  /** What arrived beyond the price (USDC, decimal; "0.00" when none): the merchant may refund it. */
  readonly amount_overpaid: string;
  /** "<decimal> USDC", the same format as the status response's (the spec's). */
  readonly payout_amount: string;
  readonly coin_type: 'polygon_usdc';
  /**
   * On the home chain, like `coin_type` (decision 0039): the token of the transfer `txid` names (USDC, or USDC.e
   * where accepted), else the home chain's USDC (what CCTP mints of a source chain's); never a source chain's.
   */
  readonly token_address: string | null;
  readonly token_symbol: string | null;
  /**
   * The customer's home-chain transfer that completed the payment (or the latest seen); null when that transfer
   * was on a source chain (`transfers` names it, with its `chain_id`) or none was seen.
   */
  readonly txid: string | null;
  /**
   * The transfers counted (describeTransfers), on the status events and `payment.unaccepted_transfer`; the payout
   * events leave it out (they report the payout; the status response lists the transfers).
   */
  readonly transfers?: readonly PaymentTransferFields[];
  readonly paid_at: string | null;
  readonly late: boolean;
  /**
   * Where the merchant's money is (domain/payout.ts): not_due before the payment is paid or failed, then pending,
   * sent or delayed; null for a payment that expired with nothing received.
   */
  readonly payout_status: PayoutStatus | null;
  /** The latest settlement transaction that paid the merchant. */
  readonly payout_txid: string | null;
  /** Why the payout is delayed (the token's own words), while it is. */
  readonly payout_delayed_reason: string | null;
  /** False for a payment created with a test key (on the test chain): test money, never ship goods for it. */
  readonly livemode: boolean;
  /** Where the customer is sent once paid and on giving up, `payment_id` appended; null when not set. */
  readonly success_url: string | null;
  readonly cancel_url: string | null;
  /** The merchant's own references, as sent on create (or the link's); `{}` when none. */
  readonly metadata: Metadata;
  /** The reusable link the payment was made through; null for a payment created directly. */
  readonly link_id: string | null;
  /** The customer's language as given on create (en, fr, de, es); null when not given. */
  readonly customer_language: string | null;
}

/** A transfer as the status response and the status events list it: where it was seen and what it brought. */
export interface PaymentTransferFields {
  /** The EVM chain it was sent on (137: Polygon; another chain's USDC reaches Polygon through CCTP). */
  readonly chain_id: number;
  readonly txid: string;
  /** USDC, exact decimal. */
  readonly amount: string;
  readonly token_address: string;
  readonly token_symbol: string;
  /** Final under that chain's finality rule: only final transfers make a payment paid. */
  readonly final: boolean;
}

/** What a counted transfer must say of itself to be listed. */
export interface ListedTransfer extends ObservedTransfer {
  readonly chainId: number;
  readonly txHash: string;
  readonly tokenAddress: string;
  readonly tokenSymbol: string;
}

/**
 * Every transfer that counts towards the payment (on the canonical chain, of an accepted token), in the order
 * they count, final or not: which chains paid, and how much on each.
 */
export function describeTransfers(transfers: readonly ListedTransfer[]): PaymentTransferFields[] {
  return countedTransfers(transfers).map((t) => ({
    chain_id: t.chainId,
    txid: t.txHash,
    amount: formatUsdc(t.amountBaseUnits),
    token_address: getAddress(t.tokenAddress),
    token_symbol: t.tokenSymbol,
    final: t.final,
  }));
}

/** What `payment.payout_sent` adds: exactly what its transaction moved to each side, in base units. */
export interface PayoutSentFields {
  readonly merchant_received_base_units: string;
  readonly treasury_received_base_units: string;
}

/** What `payment.unaccepted_transfer` adds: the token that does not pay, and how much of it arrived. */
export interface UnacceptedTransferFields {
  readonly unaccepted_transfer: {
    readonly token_address: string;
    readonly token_symbol: string;
    /** In the token's own units (its decimals), as a decimal string. */
    readonly amount: string;
    readonly from_address: string;
    readonly tx_hash: string;
  };
}

export function describeUnacceptedTransfer(transfer: {
  readonly tokenAddress: string;
  readonly tokenSymbol: string;
  readonly tokenDecimals: number;
  readonly amountBaseUnits: bigint;
  readonly fromAddress: string;
  readonly txHash: string;
}): UnacceptedTransferFields['unaccepted_transfer'] {
  return {
    token_address: getAddress(transfer.tokenAddress),
    token_symbol: transfer.tokenSymbol,
    amount: formatDecimal({ units: transfer.amountBaseUnits, scale: transfer.tokenDecimals }, 2),
    from_address: getAddress(transfer.fromAddress),
    tx_hash: transfer.txHash,
  };
}

/** What `payment.payout_delayed` adds: since when the merchant's share has been failing. */
export interface PayoutDelayedFields {
  readonly payout_delayed_since: string;
}

/**
 * The part of a payment's state an event reports: derived now, or as stored by the last refresh (which keeps
 * no sum of transfers awaiting finality: without `amountSeenBaseUnits`, the final sum stands for it).
 */
export type StatusFields = Pick<PaymentState, 'status' | 'amountReceivedBaseUnits' | 'paidAt' | 'late'> &
  Partial<Pick<PaymentState, 'amountSeenBaseUnits'>>;

/**
 * `amount_received`, in the status response and in every event alike: until the payment is paid, every transfer
 * seen on the canonical chain, final or not (so `processing` shows what the customer sent, and `amount_received`
 * plus `amount_due` is the price); once paid, the final transfers, which are what is paid out. A failed or
 * expired payment awaits no transfer, so the two sums agree there.
 */
export function receivedBaseUnitsShown(state: StatusFields): bigint {
  if (state.status === 'paid') return state.amountReceivedBaseUnits;
  return state.amountSeenBaseUnits ?? state.amountReceivedBaseUnits;
}

/**
 * What the merchant receives: the quoted share until paid, then the floor-split of what arrives on the home chain:
 * received less the CCTP fees taken and the most CCTP may still take of burns not minted yet (decision 0034), so
 * it never promises what may not arrive.
 */
export function payoutBaseUnits(payment: Payment, state: StatusFields): bigint {
  if (state.status !== 'paid') return payment.quote.merchantShareBaseUnits;
  const { bridgeFeeBaseUnits, bridgeFeeBoundBaseUnits } = payment.payout;
  const arriving = state.amountReceivedBaseUnits - bridgeFeeBaseUnits - bridgeFeeBoundBaseUnits;
  return arriving - commissionOf(arriving, payment.quote.commissionBps);
}

/**
 * The CCTP fee of a payment paid from another chain, in the status response and every event: what CCTP took
 * (`taken`, exact), the most it may still take of burns not minted yet (`pending_max`), and who bears it (the
 * merchant's share: the customer paid the quoted amount); then the quote against the burns (decision 0035): the
 * most the quote's `max_fee_bps` let CCTP keep of what was burnt (`quoted_max`), and whether a burn had to let
 * it keep more because the minimum fee in force at the burn was above the quote (`above_quote`). Absent while
 * the payment has neither a fee taken nor one pending, so a payment paid on the home chain, or through a free
 * (standard) transfer, reads as before.
 */
export interface CctpFeeFields {
  readonly cctp_fee?: {
    readonly taken: string;
    readonly pending_max: string;
    readonly borne_by: 'merchant_share';
    readonly quoted_max: string;
    readonly above_quote: boolean;
  };
}

export function cctpFeeFields(payment: Payment): CctpFeeFields {
  const { bridgeFeeBaseUnits, bridgeFeeBoundBaseUnits } = payment.payout;
  if (bridgeFeeBaseUnits === 0n && bridgeFeeBoundBaseUnits === 0n) return {};
  return {
    cctp_fee: {
      taken: formatUsdc(bridgeFeeBaseUnits),
      pending_max: formatUsdc(bridgeFeeBoundBaseUnits),
      borne_by: 'merchant_share',
      quoted_max: formatUsdc(payment.payout.bridgeFeeQuotedBaseUnits),
      above_quote: payment.payout.bridgeBurnsAboveQuote > 0,
    },
  };
}

export function webhookEventBody(
  eventId: string,
  type: PaymentEventType,
  payment: Payment,
  state: StatusFields,
  payout: PayoutState,
  createdAt: Date,
  transfers?: readonly ListedTransfer[],
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
    amount_received: formatUsdc(receivedBaseUnitsShown(state)),
    amount_overpaid: formatUsdc(overpaidBaseUnits(payment, state)),
    payout_amount: `${formatUsdc(payoutBaseUnits(payment, state))} USDC`,
    ...cctpFeeFields(payment),
    coin_type: 'polygon_usdc',
    token_address: paymentToken(payment)?.address ?? null,
    token_symbol: paymentToken(payment)?.symbol ?? null,
    txid: homeChainTxid(payment),
    ...(transfers ? { transfers: describeTransfers(transfers) } : {}),
    paid_at: state.paidAt?.toISOString() ?? null,
    late: state.late,
    payout_status: payout.status,
    payout_txid: payment.payout.txHash,
    payout_delayed_reason: payout.delayedReason,
    livemode: payment.mode === 'live',
    success_url: payment.successUrl && withPaymentId(payment.successUrl, payment.id),
    cancel_url: payment.cancelUrl && withPaymentId(payment.cancelUrl, payment.id),
    metadata: payment.metadata ?? {},
    link_id: payment.linkId,
    customer_language: payment.customerLanguage,
  };
}
