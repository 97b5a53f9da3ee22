import { getAddress } from 'viem';
import type { KeyMode } from './credentials.ts';
import type { LineItem } from './lineItems.ts';
import type { Metadata } from './metadata.ts';
import { paymentReference } from './paymentReference.ts';
import type { PaymentState, PaymentStatus, PaymentTerms } from './paymentStatus.ts';
import {
  derivePayoutState,
  NO_PAYOUT_YET,
  type PayoutPolicy,
  type PayoutProgress,
  type PayoutState,
} from './payout.ts';
import type { Quote } from './quote.ts';

/** Where and how the customer pays: a USDC transfer to the payment's own deposit address on one chain. */
export interface Deposit {
  readonly chainId: number;
  readonly tokenAddress: string;
  /** The forwarder factory the deposit address is derived from (CREATE2). */
  readonly factoryAddress: string;
  /** Receives the commission; committed to by the deposit address like the merchant wallet. */
  readonly treasuryAddress: string;
  /** Checksummed. */
  readonly depositAddress: string;
}

export type PaymentKind = 'payment' | 'refund' | 'x402';

export interface Payment {
  /** UUID, as the spec requires. */
  readonly id: string;
  /** The short reference people read and search for, `PL-7K2M-9QXD` (domain/paymentReference.ts): the id's. */
  readonly reference: string;
  /**
   * `payment`, or `refund` for a refund's deposit address (domain/refund.ts): a payment in reverse that the
   * pipeline watches and flushes like any other, and that no merchant ever sees as a payment; `x402` for a
   * merchant's x402 address (decision 0059), which collects every call settled through the facilitator and is
   * flushed as any other, while each call is a payment of its own.
   */
  readonly kind: PaymentKind;
  readonly merchantId: string;
  /**
   * The mode of the API key that created it: a test payment is on the test chain and is only ever seen
   * with a test key, a live one only with a live key.
   */
  readonly mode: KeyMode;
  readonly quote: Quote;
  readonly rateSource: string;
  readonly rateObservedAt: Date;
  /** The merchant's tolerance when the payment was created; later changes do not move a quoted payment. */
  readonly underpaymentToleranceBps: number;
  /** The merchant's wallet when the payment was created: the deposit address is committed to it. */
  readonly payoutAddress: string;
  readonly webhookUrl: string | null;
  /** Where checkout's success screen links back to (merchant-supplied, https). */
  readonly returnUrl: string | null;
  /** Where the customer goes once paid, and on giving up (merchant-supplied; domain/redirectUrl.ts). */
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  /** The merchant's own references (domain/metadata.ts), returned as sent. */
  readonly metadata: Metadata | null;
  /** The reusable link the payer paid through (domain/paymentLink.ts); null for a payment created directly. */
  readonly linkId: string | null;
  readonly orderId: string | null;
  /** What the customer is told they buy (decision 0051): a heading, words under it, and the lines of it. */
  readonly title: string | null;
  readonly description: string | null;
  /** Adding up to the price exactly (domain/lineItems.ts); null: not itemized. */
  readonly lineItems: readonly LineItem[] | null;
  readonly customerEmail: string | null;
  /** The language the merchant gave for its customer (domain/language.ts); null: none given. */
  readonly customerLanguage: string | null;
  /**
   * The language the checkout last showed the payer while the payment was open; the e-mails use it where the
   * merchant gave none (customerLanguageOf, decision 0025).
   */
  readonly payerLanguage: string | null;
  readonly status: PaymentStatus;
  /**
   * The status the merchant was last told of by a webhook (`pending` until the first): a reorg may take a
   * payment back to `pending` and forward again, which is no change the merchant needs to hear twice.
   */
  readonly announcedStatus: PaymentStatus;
  readonly amountReceivedBaseUnits: bigint;
  readonly paidAt: Date | null;
  readonly late: boolean;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Null only for payments created before deposit addresses existed. */
  readonly deposit: Deposit | null;
  /** The customer's transfer that completed the payment (or the latest one seen), on any accepted chain. */
  readonly txid: string | null;
  /** The chain `txid` was sent on (the home chain's or a source chain's); null while no transfer was seen. */
  readonly txidChainId: number | null;
  /** The accepted token of that transfer (USDC, or USDC.e where accepted); null while nothing was seen. */
  readonly paidWith: PaidToken | null;
  /** What the deposit address sent on to the merchant and the treasury so far, and what holds it up. */
  readonly payout: PayoutProgress;
}

export interface PaidToken {
  readonly address: string;
  readonly symbol: string;
}

/** The merchant's own options on a payment, each null where it gave none. */
type PaymentOptions =
  | 'webhookUrl'
  | 'returnUrl'
  | 'successUrl'
  | 'cancelUrl'
  | 'metadata'
  | 'linkId'
  | 'orderId'
  | 'title'
  | 'description'
  | 'lineItems'
  | 'customerEmail'
  | 'customerLanguage'
  | 'payerLanguage';

/** What a payment is made of: its terms and deposit, and whichever of the merchant's options it was given. */
export type NewPayment = Pick<
  Payment,
  | 'id'
  | 'kind'
  | 'merchantId'
  | 'mode'
  | 'quote'
  | 'rateSource'
  | 'rateObservedAt'
  | 'underpaymentToleranceBps'
  | 'payoutAddress'
  | 'expiresAt'
  | 'createdAt'
  | 'deposit'
> &
  Partial<Pick<Payment, PaymentOptions>>;

/**
 * A payment as it is created, whoever creates it (a merchant's request, a refund's deposit row): pending,
 * nothing received, nothing paid out, last changed when made. One place, so that a field added to what a
 * payment tracks starts the same everywhere.
 */
export function newPayment(fields: NewPayment): Payment {
  return {
    id: fields.id,
    reference: paymentReference(fields.id),
    kind: fields.kind,
    merchantId: fields.merchantId,
    mode: fields.mode,
    quote: fields.quote,
    rateSource: fields.rateSource,
    rateObservedAt: fields.rateObservedAt,
    underpaymentToleranceBps: fields.underpaymentToleranceBps,
    payoutAddress: fields.payoutAddress,
    webhookUrl: fields.webhookUrl ?? null,
    returnUrl: fields.returnUrl ?? null,
    successUrl: fields.successUrl ?? null,
    cancelUrl: fields.cancelUrl ?? null,
    metadata: fields.metadata ?? null,
    linkId: fields.linkId ?? null,
    orderId: fields.orderId ?? null,
    title: fields.title ?? null,
    description: fields.description ?? null,
    lineItems: fields.lineItems ?? null,
    customerEmail: fields.customerEmail ?? null,
    customerLanguage: fields.customerLanguage ?? null,
    payerLanguage: fields.payerLanguage ?? null,
    status: 'pending',
    announcedStatus: 'pending',
    amountReceivedBaseUnits: 0n,
    paidAt: null,
    late: false,
    expiresAt: fields.expiresAt,
    createdAt: fields.createdAt,
    updatedAt: fields.createdAt,
    deposit: fields.deposit,
    txid: null,
    txidChainId: null,
    paidWith: null,
    payout: NO_PAYOUT_YET,
  };
}

/**
 * The token the payment is paid in, as the status response and webhooks name it beside the home chain's
 * `chain_id` (decision 0039): the home-chain token of the transfer `txid` names (USDC, or USDC.e where accepted),
 * else the home chain's USDC, which is also what a source chain's USDC becomes there (CCTP mints it). Never a
 * source chain's token: those are named per transfer, each with its chain.
 */
export function paymentToken(payment: Payment): PaidToken | null {
  if (payment.paidWith && homeChainTxid(payment) !== null)
    return { address: getAddress(payment.paidWith.address), symbol: payment.paidWith.symbol };
  return payment.deposit ? { address: payment.deposit.tokenAddress, symbol: 'USDC' } : null;
}

/**
 * `txid` as the status response and webhooks show it beside the home chain's `chain_id` (decision 0039): the
 * customer's transfer that completed the payment (or the latest seen) when it was sent on the home chain; null
 * when it was sent on a source chain, whose transaction the home chain does not have (`transfers` names it, with
 * its chain).
 */
export function homeChainTxid(payment: Payment): string | null {
  // A payment made before deposit addresses existed shows no chain_id and was paid on one chain only.
  if (payment.deposit === null) return payment.txid;
  return payment.txidChainId === payment.deposit.chainId ? payment.txid : null;
}

/** What a payment's status is derived against (`derivePaymentState`). */
export function paymentTerms(payment: Payment): PaymentTerms {
  return {
    requiredBaseUnits: payment.quote.usdcBaseUnits,
    underpaymentToleranceBps: payment.underpaymentToleranceBps,
    expiresAt: payment.expiresAt,
  };
}

/** The payout's state now, for the payment in `state` (derived now, or as stored by the last refresh). */
export function payoutStateOf(
  payment: Payment,
  state: { readonly status: PaymentStatus; readonly amountReceivedBaseUnits: bigint },
  policy: PayoutPolicy,
  now: Date,
): PayoutState {
  return derivePayoutState(
    {
      status: state.status,
      amountReceivedBaseUnits: state.amountReceivedBaseUnits,
      commissionBps: payment.quote.commissionBps,
      payout: payment.payout,
    },
    policy,
    now,
  );
}

/**
 * What the customer still has to send: the price less every transfer seen (final or not), never negative, and
 * nothing once paid (a tolerated shortfall is not owed).
 */
export function amountDueBaseUnits(payment: Payment, state: PaymentState): bigint {
  const price = payment.quote.usdcBaseUnits;
  const seen = state.amountSeenBaseUnits;
  return state.status === 'paid' || seen >= price ? 0n : price - seen;
}
