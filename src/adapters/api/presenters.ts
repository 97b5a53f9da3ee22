import type { UnacceptedTransfer } from '../../app/chain/ports.ts';
import { describeLineItems } from '../../domain/lineItems.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import { amountDueBaseUnits, homeChainTxid, type Payment, paymentToken } from '../../domain/payment.ts';
import type { PaymentState } from '../../domain/paymentStatus.ts';
import type { PayoutState } from '../../domain/payout.ts';
import { formatRate } from '../../domain/quote.ts';
import { withPaymentId } from '../../domain/redirectUrl.ts';
import { isoTimestamp } from '../../domain/timestamp.ts';
import {
  cctpFeeFields,
  describeTransfers,
  describeUnacceptedTransfer,
  type ListedTransfer,
  payoutBaseUnits,
  receivedBaseUnitsShown,
} from '../../domain/webhookEvent.ts';

/** Payments as the merchant API shows them: field names and formats of the spec. */

import type { RefundRecord } from '../../app/refunds/ports.ts';
import { deriveRefundStatus, overpaidBaseUnits, refundFundingOf } from '../../domain/refund.ts';
import { paymentUrl } from '../web/checkoutUrls.ts';

/** A network the payment may be paid on, as the quote states it (the checkout's PaymentNetwork fits). */
export interface QuotedNetwork {
  readonly chainId: number;
  readonly name: string;
  /** Absent on the home chain; on a source chain, how its money reaches home through CCTP. */
  readonly cctp?: { readonly speed: 'fast' | 'standard'; readonly maxFeeBps: number } | undefined;
}

export function createPaymentResponse(
  payment: Payment,
  checkoutUrl: string,
  networks: readonly QuotedNetwork[] = [],
) {
  const { quote } = payment;
  return {
    success: true as const,
    payment_url: paymentUrl(checkoutUrl, payment.id),
    payment_id: payment.id,
    message:
      'Payment created. Redirect the customer to payment_url (same window or a new tab, never an iframe).',
    details: {
      amount: formatMoney(quote.amount),
      currency: quote.amount.currency.code,
      merchant_will_receive: `${formatUsdc(quote.merchantShareBaseUnits)} USDC`,
      usdc_amount: formatUsdc(quote.usdcBaseUnits),
      exchange_rate: formatRate(quote.rate),
      expires_at: isoTimestamp(payment.expiresAt),
      ...soldFields(payment),
      ...depositFields(payment),
      ...quotedNetworks(networks),
    },
  };
}

/** The create response of a payment just made, with the networks its deposit is offered on (decision 0034). */
export function createdPaymentResponse(
  payment: Payment,
  deps: {
    readonly config: { readonly checkoutUrl: string };
    readonly networksOf?:
      | ((deposit: NonNullable<Payment['deposit']>) => readonly QuotedNetwork[])
      | undefined;
  },
) {
  const networks = payment.deposit ? deps.networksOf?.(payment.deposit) : undefined;
  return createPaymentResponse(payment, deps.config.checkoutUrl, networks);
}

/**
 * Where the customer may pay, when more than the home chain (decision 0034): each network, and for another chain
 * the CCTP speed and the most its fee may be; the fee comes out of the merchant's share (the customer pays the
 * quoted amount). Absent for a payment paid on its home chain alone: its response reads as before.
 */
function quotedNetworks(networks: readonly QuotedNetwork[]) {
  if (networks.length < 2) return {};
  return {
    networks: networks.map((n) => ({
      chain_id: n.chainId,
      name: n.name,
      cctp: n.cctp ? { speed: n.cctp.speed, max_fee_bps: n.cctp.maxFeeBps } : null,
    })),
    cctp_fee_borne_by: 'merchant_share' as const,
  };
}

/** Where to pay: enough for a merchant to show its own instructions or verify ours. */
function depositFields(payment: Payment) {
  if (!payment.deposit) return {};
  return {
    deposit_address: payment.deposit.depositAddress,
    chain_id: payment.deposit.chainId,
    token_address: payment.deposit.tokenAddress,
  };
}

/**
 * The status response. `reads`, what the status endpoint reads besides the payment and the listing leaves out:
 * `transfers`, those recorded to the payment (every chain's); `unaccepted`, tokens that do not pay sent to it;
 * its refunds.
 */
export function paymentStatusResponse(
  payment: Payment,
  state: PaymentState,
  payout: PayoutState,
  reads: {
    readonly transfers?: readonly ListedTransfer[] | undefined;
    readonly unaccepted?: readonly UnacceptedTransfer[] | undefined;
    readonly refunds?: { readonly records: readonly RefundRecord[]; readonly now: Date } | undefined;
  } = {},
) {
  const { transfers, unaccepted, refunds } = reads;
  const { quote } = payment;
  // Beside the home chain's chain_id, token_address and txid are the home chain's (decision 0039).
  const token = paymentToken(payment);
  const txid = homeChainTxid(payment);
  return {
    payment_id: payment.id,
    status: state.status,
    amount: formatMoney(quote.amount),
    currency: quote.amount.currency.code,
    payout_amount: `${formatUsdc(payoutBaseUnits(payment, state))} USDC`,
    ...cctpFeeFields(payment),
    ...(state.paidAt ? { paid_at: state.paidAt.toISOString(), late: state.late } : {}),
    order_id: payment.orderId,
    usdc_amount: formatUsdc(quote.usdcBaseUnits),
    amount_received: formatUsdc(receivedBaseUnitsShown(state)),
    amount_due: formatUsdc(amountDueBaseUnits(payment, state)),
    amount_overpaid: formatUsdc(overpaidBaseUnits(payment, state)),
    ...(refunds ? refundSummary(refunds.records, refunds.now) : {}),
    expires_at: payment.expiresAt.toISOString(),
    ...depositFields(payment),
    ...(token ? { token_address: token.address, token_symbol: token.symbol } : {}),
    ...(unaccepted && unaccepted.length > 0
      ? { unaccepted_transfers: unaccepted.map(describeUnacceptedTransfer) }
      : {}),
    ...(txid ? { txid } : {}),
    ...(transfers ? { transfers: describeTransfers(transfers) } : {}),
    ...(payout.status ? { payout_status: payout.status } : {}),
    ...(payment.payout.txHash ? { payout_txid: payment.payout.txHash } : {}),
    ...(payout.delayedReason !== null ? { payout_delayed_reason: payout.delayedReason } : {}),
    ...merchantFields(payment),
  };
}

/**
 * What the merchant set on the payment, each present only when set: the URLs as the customer is sent to them
 * (with `payment_id` appended), the merchant's metadata, and the link it was paid through.
 */
export function merchantFields(payment: Payment) {
  return {
    ...(payment.successUrl ? { success_url: withPaymentId(payment.successUrl, payment.id) } : {}),
    ...(payment.cancelUrl ? { cancel_url: withPaymentId(payment.cancelUrl, payment.id) } : {}),
    ...(payment.metadata ? { metadata: payment.metadata } : {}),
    ...(payment.linkId ? { link_id: payment.linkId } : {}),
    ...(payment.customerLanguage ? { customer_language: payment.customerLanguage } : {}),
    ...soldFields(payment),
  };
}

/** What the customer is told is sold, each present only when set. */
function soldFields(payment: Payment) {
  return {
    ...(payment.title ? { title: payment.title } : {}),
    ...(payment.description ? { description: payment.description } : {}),
    ...(payment.lineItems ? { line_items: describeLineItems(payment.lineItems) } : {}),
  };
}

/** What the payment's status says of its refunds: what reached the customer, and each refund's status. */
function refundSummary(records: readonly RefundRecord[], now: Date) {
  let refunded = 0n;
  const refunds = records.map(({ refund, deposit }) => {
    const funding = refundFundingOf(deposit);
    refunded += funding.sentBaseUnits;
    return {
      refund_id: refund.id,
      status: deriveRefundStatus(refund, funding, now),
      amount: formatUsdc(refund.amountBaseUnits),
    };
  });
  return { amount_refunded: formatUsdc(refunded), refunds };
}
