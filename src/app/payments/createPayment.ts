import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { Language } from '../../domain/language.ts';
import { type Merchant, missingPaymentConfiguration } from '../../domain/merchant.ts';
import { formatUsdc } from '../../domain/money.ts';
import { newPayment, type Payment } from '../../domain/payment.ts';
import { type PaymentInput, parsePaymentInput } from '../../domain/paymentInput.ts';
import { assertTokenCanPay, type TokenControlsByMode } from '../chain/tokenControls.ts';
import { type PaymentRequestSettings, paymentRequestMessage } from '../email/paymentRequests.ts';
import type { EmailMessage } from '../email/ports.ts';
import { checkWebhookHost, type WebhookUrlRules } from '../webhooks/checkWebhookHost.ts';
import {
  type DepositPlanner,
  type DepositPlanners,
  PaymentReferenceTaken,
  type PaymentStore,
} from './ports.ts';
import { priceAt, type QuoteAmountDeps, rateFor } from './quoteAmount.ts';
import { timeOrderedId } from './timeOrderedId.ts';

export interface CreatePaymentDeps extends QuoteAmountDeps, WebhookUrlRules {
  readonly payments: PaymentStore;
  /** The least USDC a link may ask for (PAYLINK_MIN_AMOUNT), after conversion. */
  readonly minAmountBaseUnits: bigint;
  /** One planner per mode's chain: a test payment's deposit address is on the test chain. */
  readonly deposits: DepositPlanners;
  readonly paymentTtlMs: number;
  /** What each mode's token says of the merchant's wallet and of transfers now; absent: not checked. */
  readonly tokenControls?: TokenControlsByMode | undefined;
  /** Payment requests by e-mail (`send_email`); absent where e-mail is not configured: none can be asked for. */
  readonly paymentRequests?: PaymentRequestSettings | undefined;
}

export interface CreatePaymentInput extends PaymentInput {
  /** Set only by payLink (app/links): the link the payer paid through, already checked. */
  readonly linkId?: string | undefined;
  /** Set only by payLink: the language the link's page showed the payer who committed to pay. */
  readonly payerLanguage?: Language | undefined;
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
    /**
     * Stores the payment instead of `deps.payments.insert` (a link's, checked against its uses as it goes in; a
     * subscription period's, with its period), with its request e-mail if one was asked for.
     */
    readonly insert?: (payment: Payment, email: EmailMessage | undefined) => Promise<void>;
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
  const { price, sendEmail, ttlMs, stored } = parsePaymentInput(input, {
    allowInsecureUrls: deps.webhookAllowPrivate,
    defaultTtlMs: deps.paymentTtlMs,
    requestEmailAvailable: deps.paymentRequests !== undefined,
  });
  await checkWebhookHost(deps, 'webhook_url', stored.webhookUrl);
  // Never sell a link whose money could not reach the merchant (a blacklisted wallet) or could not be sent.
  await assertTokenCanPay(deps.tokenControls?.[mode], merchant.walletAddress);

  const locked = priceAt(deps, price, await rateFor(deps, price.currency), merchant.commissionBps);
  assertAtLeastMinimum(deps.minAmountBaseUnits, locked.quote.usdcBaseUnits);
  const now = deps.clock.now();
  const terms = {
    ...stored,
    quote: locked.quote,
    mode,
    now,
    ttlMs,
    sendEmail,
    wallet: merchant.walletAddress,
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await storeNewPayment(deps, merchant, planner, input, terms, locked, options);
    } catch (error) {
      // Another of the merchant's payments has this id's reference (1 in 2^40 per payment it has): a new id
      // draws a new reference. Twice in a row is no chance but a fault, and propagates.
      if (!(error instanceof PaymentReferenceTaken) || attempt === REFERENCE_ATTEMPTS) throw error;
    }
  }
}

/** Ids drawn for one create before a reference taken each time is called a fault. */
const REFERENCE_ATTEMPTS = 3;

/** Builds the payment on a new id and stores it (with its request e-mail, if asked for). */
async function storeNewPayment(
  deps: CreatePaymentDeps,
  merchant: Merchant,
  planner: DepositPlanner,
  input: CreatePaymentInput,
  terms: ReturnType<typeof parsePaymentInput>['stored'] & {
    readonly quote: Payment['quote'];
    readonly mode: KeyMode;
    readonly now: Date;
    readonly ttlMs: number;
    readonly sendEmail: boolean;
    readonly wallet: string;
  },
  locked: { readonly rateSource: string; readonly rateObservedAt: Date },
  options: {
    readonly idempotencyKey?: string;
    readonly insert?: (payment: Payment, email: EmailMessage | undefined) => Promise<void>;
  },
): Promise<Payment> {
  const { quote, mode, now, ttlMs, sendEmail, wallet, ...stored } = terms;
  // Time-ordered (UUIDv7, decision 0017): each insert lands at the end of the id index, not on a random page.
  const id = timeOrderedId();
  const payment = newPayment({
    id,
    kind: 'payment',
    merchantId: merchant.id,
    mode,
    quote,
    rateSource: locked.rateSource,
    rateObservedAt: locked.rateObservedAt,
    underpaymentToleranceBps: merchant.underpaymentToleranceBps,
    payoutAddress: wallet,
    ...stored,
    linkId: input.linkId ?? null,
    payerLanguage: input.payerLanguage ?? null,
    expiresAt: new Date(now.getTime() + ttlMs),
    createdAt: now,
    deposit: planner.plan({
      paymentId: id,
      merchantWallet: wallet,
      commissionBps: quote.commissionBps,
    }),
  });
  // Composed from the payment as it is stored, and written in the same commit (the SQLite writer's transaction or
  // PostgreSQL's group commit): the request exists if and only if the payment does (decision 0025). Not composed
  // inside that commit: one create's template error would roll back the other creates of its group (0043).
  const email =
    sendEmail && deps.paymentRequests
      ? paymentRequestMessage(deps.paymentRequests, merchant, payment, now)
      : undefined;
  if (options.insert) await options.insert(payment, email);
  else
    await deps.payments.insert(payment, {
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      ...(email ? { email } : {}),
    });
  return payment;
}
