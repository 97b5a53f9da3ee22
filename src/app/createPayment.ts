import { randomUUID } from 'node:crypto';
import type { KeyMode } from '../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../domain/errors.ts';
import { type Merchant, missingPaymentConfiguration } from '../domain/merchant.ts';
import type { Payment } from '../domain/payment.ts';
import { NO_PAYOUT_YET } from '../domain/payout.ts';
import { parseWebhookUrl } from '../domain/webhookUrl.ts';
import type { DepositPlanner, DepositPlanners } from './ports/deposits.ts';
import type { PaymentStore } from './ports/payments.ts';
import type { HostResolver } from './ports/webhookSender.ts';
import { type QuoteAmountDeps, quoteAmount } from './quoteAmount.ts';
import { assertTokenCanPay, type TokenControlsByMode } from './tokenControls.ts';
import { checkWebhookHost } from './webhooks/checkWebhookHost.ts';

export interface CreatePaymentDeps extends QuoteAmountDeps {
  readonly payments: PaymentStore;
  /** One planner per mode's chain: a test payment's deposit address is on the test chain. */
  readonly deposits: DepositPlanners;
  readonly paymentTtlMs: number;
  readonly webhookAllowPrivate: boolean;
  /** Resolves the webhook host name to refuse internal ones; without it only IP literals are checked. */
  readonly hostResolver?: HostResolver | undefined;
  /** What each mode's token says of the merchant's wallet and of transfers now; absent: not checked. */
  readonly tokenControls?: TokenControlsByMode | undefined;
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
 * Creates a payment at a locked quote, for a merchant able to receive it, in the mode of the caller's key
 * (default live): stored with the payment, and choosing the chain its deposit address is on.
 */
export async function createPayment(
  deps: CreatePaymentDeps,
  merchant: Merchant,
  input: CreatePaymentInput,
  options: { readonly idempotencyKey?: string; readonly mode?: KeyMode } = {},
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
  // Never sell a link whose money could not reach the merchant (a blacklisted wallet) or could not be sent.
  await assertTokenCanPay(deps.tokenControls?.[mode], merchant.walletAddress);

  const locked = await quoteAmount(deps, {
    amount: input.amount,
    currency: input.currency,
    commissionBps: merchant.commissionBps,
  });
  const now = deps.clock.now();
  const id = randomUUID();
  const payment: Payment = {
    id,
    kind: 'payment',
    merchantId: merchant.id,
    mode,
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
    announcedStatus: 'pending',
    amountReceivedBaseUnits: 0n,
    paidAt: null,
    late: false,
    expiresAt: new Date(now.getTime() + deps.paymentTtlMs),
    createdAt: now,
    updatedAt: now,
    deposit: planner.plan({
      paymentId: id,
      merchantWallet: merchant.walletAddress,
      commissionBps: locked.quote.commissionBps,
    }),
    txid: null,
    paidWith: null,
    payout: NO_PAYOUT_YET,
  };
  await deps.payments.insert(
    payment,
    options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey },
  );
  return payment;
}
