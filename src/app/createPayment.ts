import { randomUUID } from 'node:crypto';
import { PaylinkError, ValidationError } from '../domain/errors.ts';
import { type Merchant, missingPaymentConfiguration } from '../domain/merchant.ts';
import type { Payment } from '../domain/payment.ts';
import { parseWebhookUrl } from '../domain/webhookUrl.ts';
import type { DepositPlanner, HostResolver, PaymentStore } from './ports.ts';
import { type QuoteAmountDeps, quoteAmount } from './quoteAmount.ts';
import { checkWebhookHost } from './webhooks/checkWebhookHost.ts';

export interface CreatePaymentDeps extends QuoteAmountDeps {
  readonly payments: PaymentStore;
  readonly deposits: DepositPlanner;
  readonly paymentTtlMs: number;
  readonly webhookAllowPrivate: boolean;
  /** Resolves the webhook host name to refuse internal ones; without it only IP literals are checked. */
  readonly hostResolver?: HostResolver | undefined;
}

export interface CreatePaymentInput {
  readonly amount: string;
  readonly currency: string;
  readonly customerEmail?: string | undefined;
  readonly webhookUrl?: string | undefined;
  readonly orderId?: string | undefined;
  readonly returnUrl?: string | undefined;
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

/** Creates a payment at a locked quote, for a merchant able to receive it. */
export async function createPayment(
  deps: CreatePaymentDeps,
  merchant: Merchant,
  input: CreatePaymentInput,
  options: { readonly idempotencyKey?: string } = {},
): Promise<Payment> {
  const missing = missingPaymentConfiguration(merchant);
  if (missing.length > 0 || !merchant.walletAddress) {
    throw new PaylinkError(
      'MERCHANT_NOT_CONFIGURED',
      `The merchant account has no ${missing.join(' and no ')} configured; ask the administrator to set it`,
    );
  }
  const orderId = input.orderId?.trim() || null;
  if (orderId !== null && orderId.length > MAX_ORDER_ID_LENGTH) {
    throw new ValidationError('order_id', `must be at most ${MAX_ORDER_ID_LENGTH} characters`);
  }
  const customerEmail = input.customerEmail?.trim() || null;
  if (customerEmail !== null && (customerEmail.length > 254 || !EMAIL_PATTERN.test(customerEmail))) {
    throw new ValidationError('customer_email', 'must be an e-mail address');
  }
  const webhookUrl = input.webhookUrl?.trim()
    ? parseWebhookUrl('webhook_url', input.webhookUrl, { allowInsecure: deps.webhookAllowPrivate })
    : null;
  const returnUrl = input.returnUrl?.trim() ? parseReturnUrl(input.returnUrl) : null;
  await checkWebhookHost(deps, 'webhook_url', webhookUrl);

  const locked = await quoteAmount(deps, {
    amount: input.amount,
    currency: input.currency,
    commissionBps: merchant.commissionBps,
  });
  const now = deps.clock.now();
  const id = randomUUID();
  const payment: Payment = {
    id,
    merchantId: merchant.id,
    quote: locked.quote,
    rateSource: locked.rateSource,
    rateObservedAt: locked.rateObservedAt,
    underpaymentToleranceBps: merchant.underpaymentToleranceBps,
    payoutAddress: merchant.walletAddress,
    webhookUrl,
    returnUrl,
    orderId,
    customerEmail,
    status: 'pending',
    amountReceivedBaseUnits: 0n,
    paidAt: null,
    late: false,
    expiresAt: new Date(now.getTime() + deps.paymentTtlMs),
    createdAt: now,
    updatedAt: now,
    deposit: deps.deposits.plan({
      paymentId: id,
      merchantWallet: merchant.walletAddress,
      commissionBps: locked.quote.commissionBps,
    }),
    txid: null,
    settledBaseUnits: 0n,
    payoutTxHash: null,
    settledAt: null,
  };
  await deps.payments.insert(payment, options);
  return payment;
}
