import { PaylinkError } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PaymentStatus } from '../../domain/paymentStatus.ts';
import type { Clock } from '../shared/ports.ts';
import { emailToCustomer } from './composeEmail.ts';
import type { EmailMessage, EmailStore, EmailTemplate } from './ports.ts';

/** What a payment request e-mail says: figures as exact decimal strings, never numbers. */
export interface PaymentRequestData {
  readonly merchantName: string;
  /** The price as the merchant set it ("25.00") and its currency ("EUR"). */
  readonly amount: string;
  readonly currency: string;
  /** The USDC the customer pays ("27.00"). */
  readonly usdcAmount: string;
  readonly orderId: string | null;
  readonly expiresAt: Date;
  /** The checkout page of the payment (`payment_url`): the button. */
  readonly paymentUrl: string;
  /** A subscription's period: its customer portal (decision 0062), linked below the button; absent: none. */
  readonly portalUrl?: string | undefined;
}

/** What writing payment requests takes: set only where e-mail is configured (config.mail). */
export interface PaymentRequestSettings {
  readonly template: EmailTemplate<PaymentRequestData>;
  /** The right-hand side of our Message-IDs (PAYLINK_MAIL_FROM's domain). */
  readonly messageDomain: string;
  /** The payment's checkout page (`payment_url`). */
  readonly paymentUrl: (paymentId: string) => string;
  /** A subscription's customer portal, from its token (decision 0062). */
  readonly portalUrl?: ((portalToken: string) => string) | undefined;
}

/** Request e-mails one payment may send at most, the first included: a resend button is not a mailing list. */
export const MAX_REQUESTS_PER_PAYMENT = 5;

/**
 * A payment's request e-mail to its `customer_email`, the address the merchant gave (the only one it is ever
 * sent to), in the customer's language (customerLanguageOf). The caller writes it in the transaction that
 * creates the payment, or on its own for a resend.
 */
export function paymentRequestMessage(
  settings: PaymentRequestSettings,
  merchant: Pick<Merchant, 'name'>,
  payment: Payment,
  now: Date,
  subscription?: { readonly portalToken: string },
): EmailMessage {
  const data: PaymentRequestData = {
    merchantName: merchant.name,
    amount: formatMoney(payment.quote.amount),
    currency: payment.quote.amount.currency.code,
    usdcAmount: formatUsdc(payment.quote.usdcBaseUnits),
    orderId: payment.orderId,
    expiresAt: payment.expiresAt,
    paymentUrl: settings.paymentUrl(payment.id),
    ...(subscription && settings.portalUrl
      ? { portalUrl: settings.portalUrl(subscription.portalToken) }
      : {}),
  };
  return emailToCustomer(settings.template, data, payment, { messageDomain: settings.messageDomain, now });
}

export interface ResendPaymentRequestDeps {
  readonly emails: Pick<EmailStore, 'enqueue' | 'list'>;
  readonly clock: Clock;
  readonly paymentRequests: PaymentRequestSettings;
}

/** Why a request was not sent again: the payment has no address, is no longer payable, or had its share. */
export type RequestRefusal = 'no_email' | 'not_open' | 'limit';

const REFUSALS: Readonly<Record<RequestRefusal, string>> = {
  no_email: 'This payment has no customer e-mail to send its request to',
  not_open: 'Only a payment still waiting to be paid can be requested again',
  limit: `This payment's request was already sent ${MAX_REQUESTS_PER_PAYMENT} times: no more are sent`,
};

/** A request refused (409 CONFLICT), with its reason for a page to word in its own language. */
export class PaymentRequestRefused extends PaylinkError {
  constructor(readonly reason: RequestRefusal) {
    super('CONFLICT', REFUSALS[reason]);
  }
}

/**
 * Sends a payment's request again (the dashboard's button): only while nothing was paid and it can still be
 * (`status`, as derived now, is pending), only to its `customer_email`, and at most MAX_REQUESTS_PER_PAYMENT
 * times in all. A message in a transaction of its own: nothing else changes with it.
 */
export async function resendPaymentRequest(
  deps: ResendPaymentRequestDeps,
  merchant: Pick<Merchant, 'id' | 'name'>,
  payment: Payment,
  status: PaymentStatus,
): Promise<EmailMessage> {
  if (payment.merchantId !== merchant.id) throw new Error('a payment request for another merchant’s payment');
  if (payment.customerEmail === null) throw new PaymentRequestRefused('no_email');
  if (status !== 'pending') throw new PaymentRequestRefused('not_open');
  const sent = await deps.emails.list({ paymentId: payment.id, limit: 100 });
  if (sent.filter((message) => message.kind === 'payment_request').length >= MAX_REQUESTS_PER_PAYMENT)
    throw new PaymentRequestRefused('limit');
  const message = paymentRequestMessage(deps.paymentRequests, merchant, payment, deps.clock.now());
  await deps.emails.enqueue(message);
  return message;
}
