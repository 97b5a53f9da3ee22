import { getAddress, isAddress } from 'viem';
import type { KeyMode } from './credentials.ts';
import { findCurrency, USDC } from './currencies.ts';
import { PaylinkError, ValidationError } from './errors.ts';
import { formatUsdc, parseAmount, parseUsdc } from './money.ts';
import { type Deposit, newPayment, type Payment } from './payment.ts';
import type { PaymentEventType } from './paymentStatus.ts';
import { ONE, quote } from './quote.ts';

/**
 * A refund: money a merchant sends back to a customer through a deposit address of its own, a payment in
 * reverse (docs/decisions/0013-refunds.md). Its status is derived, never edited: from the address (given or
 * not), the clock (the claim expires), a cancel, and its deposit address's funding and payout.
 */
export const REFUND_STATUSES = [
  'awaiting_address',
  'awaiting_funds',
  'processing',
  'refunded',
  'canceled',
  'expired',
] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export interface Refund {
  /** UUID; also the id of its deposit address's row, and the payment id its forwarder commits to. */
  readonly id: string;
  readonly merchantId: string;
  readonly mode: KeyMode;
  /** The payment refunded. */
  readonly paymentId: string;
  /** What the customer is owed, in USDC base units. */
  readonly amountBaseUnits: bigint;
  /** The amount as the merchant asked for it ("overpaid", or a decimal in `requestedCurrency`). */
  readonly requestedAmount: string;
  readonly requestedCurrency: string;
  readonly reason: string | null;
  /** Checksummed; null until given. */
  readonly address: string | null;
  readonly addressSource: 'merchant' | 'customer' | null;
  readonly addressGivenAt: Date | null;
  /** Without an address by then, the refund is `expired`. */
  readonly claimExpiresAt: Date;
  readonly canceledAt: Date | null;
  /** The status the merchant was last told of (`awaiting_address` or `awaiting_funds` from the start). */
  readonly announcedStatus: RefundStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** What the refund's deposit address received and sent on, as the pipeline recorded it. */
export interface RefundFunding {
  /** Final transfers into it, in base units. */
  readonly fundedBaseUnits: bigint;
  /** Transfers seen, final or not. */
  readonly seenBaseUnits: boolean;
  /** What went on to the customer. */
  readonly sentBaseUnits: bigint;
  /** The latest transaction that paid the customer. */
  readonly txid: string | null;
  /** Why sending to the customer fails, while it does (the token's own words). */
  readonly delayedReason: string | null;
}

export const NO_FUNDING: RefundFunding = {
  fundedBaseUnits: 0n,
  seenBaseUnits: false,
  sentBaseUnits: 0n,
  txid: null,
  delayedReason: null,
};

/**
 * The refund's status now. Funding decides first: once what was asked arrived (final), the refund is
 * `processing` until everything that arrived went on to the customer, then `refunded` — whatever was
 * canceled or expired before, because the deposit address can only ever pay the customer.
 */
export function deriveRefundStatus(refund: Refund, funding: RefundFunding, now: Date): RefundStatus {
  if (funding.fundedBaseUnits > 0n && funding.fundedBaseUnits >= refund.amountBaseUnits) {
    return funding.sentBaseUnits >= funding.fundedBaseUnits ? 'refunded' : 'processing';
  }
  if (refund.canceledAt !== null) return 'canceled';
  if (refund.address === null)
    return now.getTime() >= refund.claimExpiresAt.getTime() ? 'expired' : 'awaiting_address';
  return 'awaiting_funds';
}

/** A refund counts against what its payment received unless it can no longer be funded by the merchant. */
export function countsAgainstPayment(status: RefundStatus): boolean {
  return status !== 'canceled' && status !== 'expired';
}

/** Only a refund nobody has sent money to yet may be canceled. */
export function cancelable(status: RefundStatus, funding: RefundFunding): boolean {
  return (status === 'awaiting_address' || status === 'awaiting_funds') && !funding.seenBaseUnits;
}

/**
 * The events owed between what the merchant was told and the status now, in the order they happened: a refund
 * funded and sent between two passes still owes `refund.funded` before `refund.refunded`.
 */
export function refundEventsBetween(announced: RefundStatus, now: RefundStatus): PaymentEventType[] {
  if (announced === now) return [];
  switch (now) {
    case 'processing':
      return announced === 'refunded' ? [] : ['refund.funded'];
    case 'refunded':
      return announced === 'processing' ? ['refund.refunded'] : ['refund.funded', 'refund.refunded'];
    case 'expired':
      return announced === 'awaiting_address' ? ['refund.expired'] : [];
    // Told by the request that caused them (create, claim, cancel), in its transaction.
    default:
      return [];
  }
}

/** What the payment received (final transfers) beyond its price, never negative; by default as last stored. */
export function overpaidBaseUnits(
  payment: Payment,
  state: { readonly amountReceivedBaseUnits: bigint } = payment,
): bigint {
  const over = state.amountReceivedBaseUnits - payment.quote.usdcBaseUnits;
  return over > 0n ? over : 0n;
}

export const OVERPAID = 'overpaid';

/**
 * The USDC a refund request asks for: `"overpaid"` (what the payment received beyond its price, less the refunds
 * already made), an amount in
 * USDC, or an amount in the payment's own currency converted at the payment's locked rate, rounded up to the cent
 * so the customer never gets less than the price they were charged for it.
 */
export function refundAmountBaseUnits(
  payment: Payment,
  input: { readonly amount: string; readonly currency?: string | undefined },
  /** The refunds that already count against the payment: "overpaid" is what is left of the overpayment. */
  alreadyRefundedBaseUnits = 0n,
): bigint {
  const currencyCode = (input.currency ?? 'USDC').trim().toUpperCase();
  if (input.amount.trim() === OVERPAID) {
    if (currencyCode !== 'USDC' && currencyCode !== payment.quote.amount.currency.code)
      throw new ValidationError('currency', `must be USDC or ${payment.quote.amount.currency.code}`);
    const overpaid = overpaidBaseUnits(payment) - alreadyRefundedBaseUnits;
    if (overpaid <= 0n)
      throw new PaylinkError(
        'PAYMENT_NOT_OVERPAID',
        'The payment did not receive more than its price, or its refunds already cover what it did',
        { field: 'amount' },
      );
    return overpaid;
  }
  let baseUnits: bigint;
  if (currencyCode === 'USDC') {
    const parsed = parseUsdc(input.amount.trim());
    if (parsed === undefined)
      throw new ValidationError('amount', 'must be a USDC amount with at most 6 decimals, or "overpaid"');
    baseUnits = parsed;
  } else {
    const currency = findCurrency(currencyCode);
    if (!currency || currency.code !== payment.quote.amount.currency.code)
      throw new ValidationError('currency', `must be USDC or ${payment.quote.amount.currency.code}`);
    baseUnits = quote(
      parseAmount('amount', input.amount.trim(), currency),
      payment.quote.rate,
      0,
    ).usdcBaseUnits;
  }
  if (baseUnits <= 0n) throw new ValidationError('amount', 'must be greater than zero');
  return baseUnits;
}

/** What may still be refunded: received, less every refund that counts. */
export function refundableBaseUnits(received: bigint, counted: readonly bigint[]): bigint {
  const left = received - counted.reduce((sum, amount) => sum + amount, 0n);
  return left > 0n ? left : 0n;
}

export function assertWithinReceived(payment: Payment, requested: bigint, counted: readonly bigint[]): void {
  if (payment.amountReceivedBaseUnits <= 0n)
    throw new PaylinkError('PAYMENT_NOT_REFUNDABLE', 'The payment has received nothing to refund');
  const left = refundableBaseUnits(payment.amountReceivedBaseUnits, counted);
  if (requested > left)
    throw new PaylinkError(
      'REFUND_EXCEEDS_PAYMENT',
      `The refunds would exceed what the payment received: at most ${formatUsdc(left)} USDC is left to refund`,
      { field: 'amount' },
    );
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * The customer's refund address, checked as far as it can be without the chain: an EVM address, its checksum
 * right when it is written in mixed case (a typo in a checksummed address changes the case pattern), not zero.
 * Returns it checksummed. The caller checks it is none of our own addresses (token, deposit, forwarder).
 */
export function parseRefundAddress(field: string, input: string): string {
  const text = input.trim();
  if (!/^0x[0-9a-fA-F]{40}$/.test(text))
    throw new RefundAddressError(field, 'format', 'must be an address: 0x and 40 hex digits');
  const mixedCase =
    text.slice(2) !== text.slice(2).toLowerCase() && text.slice(2) !== text.slice(2).toUpperCase();
  if (mixedCase && !isAddress(text, { strict: true }))
    throw new RefundAddressError(
      field,
      'checksum',
      'has a wrong checksum: check it for a typo, or paste it again',
    );
  if (text.toLowerCase() === ZERO_ADDRESS)
    throw new RefundAddressError(field, 'zero', 'must not be the zero address');
  return getAddress(text);
}

/**
 * Why an address cannot receive a refund, as a word the claim page translates: `format`, `checksum`, `zero`,
 * `service_contract` (the token, the factory, the forwarder) or `deposit_address` (any payment's or refund's).
 */
export type RefundAddressProblem = 'format' | 'checksum' | 'zero' | 'service_contract' | 'deposit_address';

export class RefundAddressError extends ValidationError {
  readonly problem: RefundAddressProblem;
  constructor(field: string, problem: RefundAddressProblem, message: string) {
    super(field, message);
    this.problem = problem;
  }
}

/** What the refund's deposit row (a payment of kind `refund`) says of its funding and payout. */
export function refundFundingOf(deposit: Payment | undefined): RefundFunding {
  if (!deposit) return NO_FUNDING;
  return {
    fundedBaseUnits: deposit.amountReceivedBaseUnits,
    seenBaseUnits: deposit.status !== 'pending' || deposit.amountReceivedBaseUnits > 0n,
    sentBaseUnits: deposit.payout.merchantPaidBaseUnits,
    txid: deposit.payout.txHash,
    delayedReason: deposit.payout.blockedReason,
  };
}

/** A refund's deposit address never expires: the merchant may fund it whenever it likes, or cancel it. */
const REFUND_DEPOSIT_NEVER_EXPIRES = new Date('9999-12-31T00:00:00.000Z');

/**
 * The deposit row of a refund whose address is known: a payment in reverse, of exactly the refund's amount in
 * USDC, no commission, no underpayment tolerance, and the customer as its only recipient.
 */
export function refundDepositPayment(refund: Refund, address: string, deposit: Deposit, now: Date): Payment {
  return newPayment({
    id: refund.id,
    kind: 'refund',
    merchantId: refund.merchantId,
    mode: refund.mode,
    quote: quote({ currency: USDC, minorUnits: refund.amountBaseUnits }, ONE, 0),
    rateSource: 'refund',
    rateObservedAt: now,
    underpaymentToleranceBps: 0,
    payoutAddress: address,
    expiresAt: REFUND_DEPOSIT_NEVER_EXPIRES,
    createdAt: now,
    deposit,
  });
}
