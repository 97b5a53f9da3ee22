import { findCurrency } from './currencies.ts';
import { isEmailAddress } from './email.ts';
import { checkEvery, ValidationError } from './errors.ts';
import { type Language, parseCustomerLanguage } from './language.ts';
import { assertLineItemsAddUp, type LineItem, parseLineItemsIn } from './lineItems.ts';
import { type Metadata, parseMetadata } from './metadata.ts';
import { type Money, parsePrice } from './money.ts';
import { parseRedirectUrl } from './redirectUrl.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_TITLE_LENGTH, optionalShownText } from './text.ts';
import { parseWebhookUrl } from './webhookUrl.ts';

/** A payment's fields as its creator gives them (the API's body, the dashboard's form, a link's page). */
export interface PaymentInput {
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
  /** What the customer is told they buy (decision 0051), each optional. */
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  /** As parsed from JSON (numbers as their text): checked here against the price (domain/lineItems.ts). */
  readonly lineItems?: unknown;
}

/** What the service's configuration says of a payment's fields. */
export interface PaymentInputRules {
  /** Plain http and private hosts allowed in the webhook and redirect URLs (the sandbox, tests). */
  readonly allowInsecureUrls: boolean;
  /** How long a payment stays payable when its creator does not say (PAYLINK_PAYMENT_TTL). */
  readonly defaultTtlMs: number;
  /** Whether e-mail is configured: without it no request e-mail can be asked for. */
  readonly requestEmailAvailable: boolean;
}

/** A payment's fields, each checked. */
export interface PaymentFields {
  readonly price: Money;
  /** Whether the creator asked for the request e-mail (decision 0025). */
  readonly sendEmail: boolean;
  readonly ttlMs: number;
  /** What the payment stores as given. */
  readonly stored: {
    readonly webhookUrl: string | null;
    readonly returnUrl: string | null;
    readonly successUrl: string | null;
    readonly cancelUrl: string | null;
    readonly metadata: Metadata | null;
    readonly orderId: string | null;
    readonly customerEmail: string | null;
    readonly customerLanguage: Language | null;
    readonly title: string | null;
    readonly description: string | null;
    readonly lineItems: readonly LineItem[] | null;
  };
}

/**
 * How long a payment may stay payable when its creator says (`expires_in`, seconds): from 5 minutes, time to
 * pay from a phone, to 30 days, an invoice's usual term. The quote is locked for that long, so the merchant
 * carries the rate's moves meanwhile: its choice, bounded.
 */
export const EXPIRES_IN_BOUNDS = { min: 300, max: 30 * 24 * 3600 } as const;

const MAX_ORDER_ID_LENGTH = 255;
/** The create's own check since its first version (deliberately simple), kept beside `isEmailAddress`. */
const CUSTOMER_EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const MAX_RETURN_URL_LENGTH = 2048;

/**
 * The fields of a payment to create, each checked: every field the client can fix is checked before anything is
 * looked up, and all that are wrong are named at once, in the order of the request's fields.
 */
export function parsePaymentInput(input: PaymentInput, rules: PaymentInputRules): PaymentFields {
  const allowInsecure = rules.allowInsecureUrls;
  const redirectUrl = (field: string, value: string | undefined) =>
    value?.trim() ? parseRedirectUrl(field, value, { allowInsecure }) : null;
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
    title,
    description,
    lineItems,
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
      string | null,
      string | null,
      readonly LineItem[] | null,
    ]
  >([
    () => parsePrice(input.amount, input.currency),
    () => parseCustomerEmail(input.customerEmail),
    () => parseCustomerLanguage(input.customerLanguage),
    () => wantsRequestEmail(input, rules.requestEmailAvailable),
    () => parseExpiresIn(input.expiresIn, rules.defaultTtlMs),
    () =>
      input.webhookUrl?.trim() ? parseWebhookUrl('webhook_url', input.webhookUrl, { allowInsecure }) : null,
    () => parseOrderId(input.orderId),
    () => (input.returnUrl?.trim() ? parseReturnUrl(input.returnUrl) : null),
    () => redirectUrl('success_url', input.successUrl),
    () => redirectUrl('cancel_url', input.cancelUrl),
    () => parseMetadata(input.metadata),
    () => optionalShownText('title', input.title, MAX_TITLE_LENGTH),
    () => optionalShownText('description', input.description, MAX_DESCRIPTION_LENGTH),
    () => parseLineItemsIn(input.lineItems, findCurrency(input.currency.trim())),
  ]);
  // Checked once the price is known to be right: the lines add up to it exactly.
  if (lineItems !== null) assertLineItemsAddUp(lineItems, price);
  return {
    price,
    sendEmail,
    ttlMs,
    stored: {
      webhookUrl,
      returnUrl,
      successUrl,
      cancelUrl,
      metadata,
      orderId,
      customerEmail,
      customerLanguage,
      title,
      description,
      lineItems,
    },
  };
}

/**
 * The customer's e-mail address as given (trimmed), or null; refused when it is not one we would write to: the
 * same check as every message's recipient (`isEmailAddress`), so an address a create accepts never makes the
 * receipt or the request fail later, in the transaction that marks the payment paid.
 */
export function parseCustomerEmail(input: string | undefined): string | null {
  const customerEmail = input?.trim() || null;
  if (customerEmail !== null && !(CUSTOMER_EMAIL.test(customerEmail) && isEmailAddress(customerEmail))) {
    throw new ValidationError('customer_email', 'must be an e-mail address');
  }
  return customerEmail;
}

/** `expires_in` in seconds, within EXPIRES_IN_BOUNDS, as milliseconds; absent: the default. */
export function parseExpiresIn(input: number | undefined, defaultMs: number): number {
  if (input === undefined) return defaultMs;
  if (!Number.isSafeInteger(input) || input < EXPIRES_IN_BOUNDS.min || input > EXPIRES_IN_BOUNDS.max) {
    throw new ValidationError(
      'expires_in',
      `must be a whole number of seconds from ${EXPIRES_IN_BOUNDS.min} to ${EXPIRES_IN_BOUNDS.max}`,
    );
  }
  return input * 1_000;
}

/** A link shown to the customer after payment: https only, so checkout never links to a script or plain http. */
function parseReturnUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new ValidationError('return_url', 'must be an absolute https URL');
  }
  if (url.protocol !== 'https:' || input.length > MAX_RETURN_URL_LENGTH) {
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

/**
 * Whether the create asks for the request e-mail: only with the customer's address (we write to no other), and
 * only where e-mail is configured.
 */
function wantsRequestEmail(input: PaymentInput, available: boolean): boolean {
  if (input.sendEmail !== true) return false;
  if (!input.customerEmail?.trim())
    throw new ValidationError('customer_email', 'is required when send_email is true');
  if (!available)
    throw new ValidationError('send_email', 'cannot be true: e-mail is not set up on this service');
  return true;
}
