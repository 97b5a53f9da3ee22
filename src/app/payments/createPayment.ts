import type { KeyMode } from '../../domain/credentials.ts';
import { checkEvery, PaylinkError, ValidationError } from '../../domain/errors.ts';
import { type Language, parseCustomerLanguage } from '../../domain/language.ts';
import { type Merchant, missingPaymentConfiguration } from '../../domain/merchant.ts';
import { type Metadata, parseMetadata } from '../../domain/metadata.ts';
import { formatUsdc, type Money, parsePrice } from '../../domain/money.ts';
import { newPayment, type Payment } from '../../domain/payment.ts';
import { parseRedirectUrl } from '../../domain/redirectUrl.ts';
import { parseWebhookUrl } from '../../domain/webhookUrl.ts';
import { assertTokenCanPay, type TokenControlsByMode } from '../chain/tokenControls.ts';
import { type PaymentRequestSettings, paymentRequestMessage } from '../email/paymentRequests.ts';
import { checkWebhookHost } from '../webhooks/checkWebhookHost.ts';
import type { HostResolver } from '../webhooks/ports.ts';
import type { DepositPlanner, DepositPlanners, PaymentStore } from './ports.ts';
import { priceAt, type QuoteAmountDeps, rateFor } from './quoteAmount.ts';
import { timeOrderedId } from './timeOrderedId.ts';

export interface CreatePaymentDeps extends QuoteAmountDeps {
  readonly payments: PaymentStore;
  /** The least USDC a link may ask for (PAYLINK_MIN_AMOUNT), after conversion. */
  readonly minAmountBaseUnits: bigint;
  /** One planner per mode's chain: a test payment's deposit address is on the test chain. */
  readonly deposits: DepositPlanners;
  readonly paymentTtlMs: number;
  readonly webhookAllowPrivate: boolean;
  /** Resolves the webhook host name to refuse internal ones; without it only IP literals are checked. */
  readonly hostResolver?: HostResolver | undefined;
  /** What each mode's token says of the merchant's wallet and of transfers now; absent: not checked. */
  readonly tokenControls?: TokenControlsByMode | undefined;
  /** Payment requests by e-mail (`send_email`); absent where e-mail is not configured: none can be asked for. */
  readonly paymentRequests?: PaymentRequestSettings | undefined;
}

export interface CreatePaymentInput {
  readonly amount: string;
  readonly currency: string;
  readonly customerEmail?: string | undefined;
  /** A BCP-47 tag of a language we write in (domain/language.ts). */
  readonly customerLanguage?: string | undefined;
  /** Queue the payment request e-mail to `customerEmail` with the payment (decision 0025). */
  readonly sendEmail?: boolean | undefined;
  /** How long the payment stays payable, in seconds (EXPIRES_IN_BOUNDS); absent: PAYLINK_PAYMENT_TTL. */
  readonly expiresIn?: number | undefined;
  readonly webhookUrl?: string | undefined;
  readonly orderId?: string | undefined;
  readonly returnUrl?: string | undefined;
  readonly successUrl?: string | undefined;
  readonly cancelUrl?: string | undefined;
  /** As parsed from JSON: checked here (domain/metadata.ts). */
  readonly metadata?: unknown;
  /** Set only by payLink (app/links): the link the payer paid through, already checked. */
  readonly linkId?: string | undefined;
  /** Set only by payLink: the language the link's page showed the payer who committed to pay. */
  readonly payerLanguage?: Language | undefined;
}

/**
 * How long a payment may stay payable when its creator says (`expires_in`, seconds): from 5 minutes, time to
 * pay from a phone, to 30 days, an invoice's usual term. The quote is locked for that long, so the merchant
 * carries the rate's moves meanwhile: its choice, bounded.
 */
export const EXPIRES_IN_BOUNDS = { min: 300, max: 30 * 24 * 3600 } as const;

function parseExpiresIn(input: number | undefined, defaultMs: number): number {
  if (input === undefined) return defaultMs;
  if (!Number.isSafeInteger(input) || input < EXPIRES_IN_BOUNDS.min || input > EXPIRES_IN_BOUNDS.max) {
    throw new ValidationError(
      'expires_in',
      `must be a whole number of seconds from ${EXPIRES_IN_BOUNDS.min} to ${EXPIRES_IN_BOUNDS.max}`,
    );
  }
  return input * 1_000;
}

const MAX_ORDER_ID_LENGTH = 255;
// Deliberately simple (RFC 5322 is not the point): one @, no spaces, a dot in the domain.
const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

/** A link shown to the customer after payment: https only, so checkout never links to a script or plain http. */
function parseReturnUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new ValidationError('return_url', 'must be an absolute https URL');
  }
  if (url.protocol !== 'https:' || input.length > 2048) {
    throw new ValidationError('return_url', 'must be an absolute https URL');
  }
  return url.toString();
}

function parseOrderId(input: string | undefined): string | null {
  const orderId = input?.trim() || null;
  if (orderId !== null && orderId.length > MAX_ORDER_ID_LENGTH) {
    throw new ValidationError('order_id', `must be at most ${MAX_ORDER_ID_LENGTH} characters`);
  }
  return orderId;
}

/** The customer's e-mail address as given (trimmed), or null; refused when it is not one. */
export function parseCustomerEmail(input: string | undefined): string | null {
  const customerEmail = input?.trim() || null;
  if (customerEmail !== null && (customerEmail.length > 254 || !EMAIL_PATTERN.test(customerEmail))) {
    throw new ValidationError('customer_email', 'must be an e-mail address');
  }
  return customerEmail;
}

/**
 * A link must ask for at least PAYLINK_MIN_AMOUNT of USDC, whatever its currency: below it, the network's fee
 * and the commission's rounding are a real share of the payment (5 JPY asks for 0.04 USDC). Checked on the USDC
 * the customer would send, so the same rule holds in every currency.
 */
function assertAtLeastMinimum(minAmountBaseUnits: bigint, usdcBaseUnits: bigint): void {
  if (usdcBaseUnits < minAmountBaseUnits) {
    throw new ValidationError(
      'amount',
      `must be at least the equivalent of ${formatUsdc(minAmountBaseUnits)} USDC; it converts to ${formatUsdc(usdcBaseUnits)} USDC`,
    );
  }
}

/** The planner of the mode's chain, or TEST_MODE_UNAVAILABLE when this deployment has no test chain. */
export function depositPlannerFor(deposits: DepositPlanners, mode: KeyMode): DepositPlanner {
  if (mode === 'live') return deposits.live;
  if (!deposits.test) {
    throw new PaylinkError(
      'TEST_MODE_UNAVAILABLE',
      'Test mode is not available on this deployment (no test network is configured): use a live API key, or ask the operator to set PAYLINK_TEST_NETWORK',
    );
  }
  return deposits.test;
}

/**
 * The create's fields, each checked: every field the client can fix is checked before anything is looked up, and
 * all that are wrong are named at once, in the order of the request's fields.
 */
function checkedFields(deps: CreatePaymentDeps, input: CreatePaymentInput) {
  const redirectUrl = (field: string, value: string | undefined) =>
    value?.trim() ? parseRedirectUrl(field, value, { allowInsecure: deps.webhookAllowPrivate }) : null;
  const [
    price,
    customerEmail,
    customerLanguage,
    sendEmail,
    ttlMs,
    webhookUrl,
    orderId,
    returnUrl,
    successUrl,
    cancelUrl,
    metadata,
  ] = checkEvery<
    [
      Money,
      string | null,
      Language | null,
      boolean,
      number,
      string | null,
      string | null,
      string | null,
      string | null,
      string | null,
      Metadata | null,
    ]
  >([
    () => parsePrice(input.amount, input.currency),
    () => parseCustomerEmail(input.customerEmail),
    () => parseCustomerLanguage(input.customerLanguage),
    () => wantsRequestEmail(deps, input),
    () => parseExpiresIn(input.expiresIn, deps.paymentTtlMs),
    () =>
      input.webhookUrl?.trim()
        ? parseWebhookUrl('webhook_url', input.webhookUrl, { allowInsecure: deps.webhookAllowPrivate })
        : null,
    () => parseOrderId(input.orderId),
    () => (input.returnUrl?.trim() ? parseReturnUrl(input.returnUrl) : null),
    () => redirectUrl('success_url', input.successUrl),
    () => redirectUrl('cancel_url', input.cancelUrl),
    () => parseMetadata(input.metadata),
  ]);
  return {
    price,
    sendEmail,
    ttlMs,
    /** What the payment stores as given. */
    stored: {
      webhookUrl,
      returnUrl,
      successUrl,
      cancelUrl,
      metadata,
      orderId,
      customerEmail,
      customerLanguage,
    },
  };
}

/**
 * Creates a payment at a locked quote, for a merchant able to receive it, in the mode of the caller's key
 * (default live): stored with the payment, and choosing the chain its deposit address is on.
 */
export async function createPayment(
  deps: CreatePaymentDeps,
  merchant: Merchant,
  input: CreatePaymentInput,
  options: {
    readonly idempotencyKey?: string;
    readonly mode?: KeyMode;
    /** Stores the payment instead of `deps.payments.insert` (a link's, checked against its uses as it goes in). */
    readonly insert?: (payment: Payment) => Promise<void>;
  } = {},
): Promise<Payment> {
  const mode = options.mode ?? 'live';
  // Checked first: a test key on a deployment without a test chain can never create anything.
  const planner = depositPlannerFor(deps.deposits, mode);
  const missing = missingPaymentConfiguration(merchant);
  if (missing.length > 0 || !merchant.walletAddress) {
    throw new PaylinkError(
      'MERCHANT_NOT_CONFIGURED',
      `The merchant account has no ${missing.join(' and no ')} configured; ask the administrator to set it`,
    );
  }
  const { price, sendEmail, ttlMs, stored } = checkedFields(deps, input);
  await checkWebhookHost(deps, 'webhook_url', stored.webhookUrl);
  // Never sell a link whose money could not reach the merchant (a blacklisted wallet) or could not be sent.
  await assertTokenCanPay(deps.tokenControls?.[mode], merchant.walletAddress);

  const locked = priceAt(deps, price, await rateFor(deps, price.currency), merchant.commissionBps);
  assertAtLeastMinimum(deps.minAmountBaseUnits, locked.quote.usdcBaseUnits);
  const now = deps.clock.now();
  // Time-ordered (UUIDv7, decision 0017): each insert lands at the end of the id index, not on a random page.
  const id = timeOrderedId();
  const payment = newPayment({
    id,
    kind: 'payment',
    merchantId: merchant.id,
    mode,
    quote: locked.quote,
    rateSource: locked.rateSource,
    rateObservedAt: locked.rateObservedAt,
    underpaymentToleranceBps: merchant.underpaymentToleranceBps,
    payoutAddress: merchant.walletAddress,
    ...stored,
    linkId: input.linkId ?? null,
    payerLanguage: input.payerLanguage ?? null,
    expiresAt: new Date(now.getTime() + ttlMs),
    createdAt: now,
    deposit: planner.plan({
      paymentId: id,
      merchantWallet: merchant.walletAddress,
      commissionBps: locked.quote.commissionBps,
    }),
  });
  // Composed before anything is written, and written in the payment's transaction: the request exists if and
  // only if the payment does (decision 0025).
  const email =
    sendEmail && deps.paymentRequests
      ? paymentRequestMessage(deps.paymentRequests, merchant, payment, now)
      : undefined;
  if (options.insert) await options.insert(payment);
  else
    await deps.payments.insert(payment, {
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      ...(email ? { email } : {}),
    });
  return payment;
}

/**
 * Whether the create asks for the request e-mail: only with the customer's address (we write to no other), and
 * only where e-mail is configured.
 */
function wantsRequestEmail(deps: CreatePaymentDeps, input: CreatePaymentInput): boolean {
  if (input.sendEmail !== true) return false;
  if (!input.customerEmail?.trim())
    throw new ValidationError('customer_email', 'is required when send_email is true');
  if (!deps.paymentRequests)
    throw new ValidationError('send_email', 'cannot be true: e-mail is not set up on this service');
  return true;
}
