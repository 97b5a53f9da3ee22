import { type Hex, recoverTypedDataAddress } from 'viem';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { quote } from '../../domain/quote.ts';
import { deriveSubscriptionState } from '../../domain/subscription.ts';
import {
  expectedTerms,
  MANDATE_TYPES,
  mandateDomain,
  mandateId,
  mandateTypedData,
  parseTerms,
  termsMismatch,
} from '../../domain/subscriptionMandate.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import type { MerchantStore } from '../merchants/ports.ts';
import { type QuoteAmountDeps, rateFor } from '../payments/quoteAmount.ts';
import type { Clock } from '../shared/ports.ts';
import type { Mandate, MandatePermit, MandateStore } from './mandatePorts.ts';
import type { SubscriptionRecord, SubscriptionStore } from './ports.ts';
import type { PullChain } from './pullCharges.ts';
import { paidPeriods } from './renewal.ts';
import { isPortalToken } from './subscriptions.ts';

export interface MandateDeps {
  readonly mandates: MandateStore;
  readonly subscriptions: Pick<SubscriptionStore, 'findByPortalToken'>;
  readonly merchants: Pick<MerchantStore, 'find'>;
  readonly chains: Partial<Record<'live' | 'test', PullChain>>;
  readonly clock: Clock;
}

/**
 * How many periods' caps the allowance of a plan that runs until canceled covers: the page's permit, and each
 * top-up the portal offers once less than a period is left. Bounded, so a stolen or misused mandate can never
 * reach more than this; a year of a monthly plan, so a customer tops up rarely.
 */
export const OPEN_ENDED_ALLOWANCE_PERIODS = 12;

/** The allowance a plan's mandate asks for: its cap times its periods, or times 12 when it runs until canceled. */
export function allowanceFor(cap: bigint, periods: number | null): bigint {
  return cap * BigInt(periods ?? OPEN_ENDED_ALLOWANCE_PERIODS);
}

/**
 * What a fiat plan's proposed cap adds to its price at today's rate: a rate that moves by up to this much by a
 * period's payment is still charged; beyond it, the period's link is e-mailed (pullCharges.ts).
 */
export const FIAT_CAP_MARGIN_PERCENT = 10n;
/** A cent of USDC, in base units: the cap proposed is rounded up to it, as a fiat quote is. */
const USDC_CENT = 10_000n;

/** A fiat plan's proposed cap from its price in USDC base units: the margin added, rounded up to the cent. */
export function capWithMargin(priceBaseUnits: bigint): bigint {
  const per = 100n * USDC_CENT;
  return ((priceBaseUnits * (100n + FIAT_CAP_MARGIN_PERCENT) + per - 1n) / per) * USDC_CENT;
}

/**
 * The cap the subscribe page offers the wallet to sign for a plan: a USDC plan's price; a fiat plan's price at
 * today's agreed rate (the payments' own quote, rounded up to the cent) plus the margin. Undefined when no rate
 * can be had now: the page then offers the e-mail way alone.
 */
export async function proposedCap(
  deps: Pick<QuoteAmountDeps, 'rates'>,
  plan: Pick<SubscriptionPlan, 'price'>,
): Promise<bigint | undefined> {
  if (plan.price.currency.code === 'USDC') return plan.price.minorUnits;
  try {
    const rate = await rateFor(deps, plan.price.currency);
    return capWithMargin(quote(plan.price, rate.usdcPerUnit, 0).usdcBaseUnits);
  } catch (error) {
    if (error instanceof PaylinkError && error.code === 'RATE_UNAVAILABLE') return undefined;
    throw error;
  }
}

/** The charger's bound on a cap (exclusive). */
export const MAX_CAP = 2n ** 128n;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

/** What the wallet is asked to sign for the subscription of this token (decision 0061), as JSON. */
export interface MandateRequest {
  readonly domain: ReturnType<typeof mandateDomain>;
  readonly types: typeof MANDATE_TYPES;
  readonly primary_type: 'Terms';
  /** The terms but `customer` (the wallet's address) and, for a fiat plan, `cap` (the customer's ceiling). */
  readonly message: Record<string, string | number>;
  /** The cap the terms must carry (a USDC plan's price); null: the customer's choice (a fiat plan). */
  readonly cap: string | null;
  /** The customer's wallet the subscription names; null: any (the signer is the payer). */
  readonly customer: string | null;
  /** Whom a permit or an approve must grant the allowance to. */
  readonly spender: string;
  readonly mandate: { readonly status: string; readonly customer: string } | null;
}

export async function mandateRequest(deps: MandateDeps, token: string): Promise<MandateRequest> {
  const { record, merchant, chain } = await openSubscription(deps, token);
  const expected = expectedTerms(record.subscription, record.plan, payeesOf(merchant, chain));
  const mandate = await deps.mandates.findMandate(record.subscription.id);
  const cap = fixedCap(record);
  const { start, end, ...fixed } = expected;
  return {
    domain: mandateDomain(chain.chainId, chain.charger),
    types: MANDATE_TYPES,
    primary_type: 'Terms',
    message: {
      ...fixed,
      start: start.toString(),
      end: end.toString(),
      ...(cap !== null ? { cap: cap.toString() } : {}),
    },
    cap: cap?.toString() ?? null,
    customer: record.subscription.customerWallet,
    spender: chain.charger,
    mandate: mandate ? { status: mandate.status, customer: mandate.terms.customer } : null,
  };
}

/**
 * Stores the customer's signed terms as the subscription's mandate, once checked: every term the one the
 * subscription's plan and merchant fix (payout, treasury, commission, token, calendar, periods, salt), the cap a
 * USDC plan's price exactly (a fiat plan's: the customer's ceiling, above zero), the signer the terms' customer
 * and the subscription's wallet when it names one. The permit, when given, must allow at least one period.
 */
export async function submitMandate(deps: MandateDeps, token: string, body: unknown): Promise<Mandate> {
  const { record, merchant, chain } = await openSubscription(deps, token);
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const terms =
    typeof input.terms === 'object' && input.terms !== null
      ? parseTerms(input.terms as Record<string, unknown>)
      : undefined;
  if (!terms) throw new ValidationError('terms', 'must be the Terms of the typed data, every field given');
  if (typeof input.signature !== 'string' || !SIGNATURE.test(input.signature))
    throw new ValidationError('signature', 'must be a 65-byte signature as 0x and 130 hex digits');
  const expected = expectedTerms(record.subscription, record.plan, payeesOf(merchant, chain));
  const differs = termsMismatch(terms, expected);
  if (differs.length > 0)
    throw new ValidationError(
      differs.map((f) => ({ field: `terms.${f}`, message: 'differs from the subscription' })),
    );
  const cap = fixedCap(record);
  // The charger refuses a cap of 2^128 or more (its fee's arithmetic): such terms could never be charged.
  if (cap !== null ? terms.cap !== cap : terms.cap <= 0n || terms.cap >= MAX_CAP)
    throw new ValidationError(
      'terms.cap',
      cap !== null ? `must be the plan's price, ${cap}` : 'must be above 0 and below 2^128',
    );
  const wallet = record.subscription.customerWallet;
  if (wallet && wallet.toLowerCase() !== terms.customer.toLowerCase())
    throw new ValidationError('terms.customer', "must be the subscription's customer wallet");
  const domain = mandateDomain(chain.chainId, chain.charger);
  const signer = await recoverTypedDataAddress({
    ...mandateTypedData(domain, terms),
    signature: input.signature as Hex,
  }).catch(() => undefined);
  if (signer?.toLowerCase() !== terms.customer.toLowerCase())
    throw new ValidationError('signature', "is not the terms' customer's signature of these terms");
  const now = deps.clock.now();
  const mandate: Mandate = {
    subscriptionId: record.subscription.id,
    chainId: chain.chainId,
    charger: chain.charger.toLowerCase(),
    mandateId: mandateId(domain, terms),
    terms,
    signature: input.signature.toLowerCase(),
    permit: parsePermit(input.permit, terms.cap),
    status: 'active',
    createdAt: now,
    updatedAt: now,
  };
  await deps.mandates.saveMandate(mandate);
  return mandate;
}

function parsePermit(value: unknown, cap: bigint): MandatePermit | null {
  if (value === undefined || value === null) return null;
  const permit = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const uint = (v: unknown) => (typeof v === 'string' && /^\d{1,78}$/.test(v) ? BigInt(v) : undefined);
  const amount = uint(permit.value);
  const deadline = uint(permit.deadline);
  if (amount === undefined || amount < cap)
    throw new ValidationError('permit.value', 'must be a decimal string of at least the cap');
  if (deadline === undefined) throw new ValidationError('permit.deadline', 'must be a decimal string');
  if (typeof permit.signature !== 'string' || !SIGNATURE.test(permit.signature))
    throw new ValidationError('permit.signature', 'must be a 65-byte signature as 0x and 130 hex digits');
  return { value: amount, deadline, signature: permit.signature.toLowerCase() };
}

/** The subscription of the portal's token, still running, its merchant, and the chain its mode is charged on. */
async function openSubscription(deps: MandateDeps, token: string) {
  const record = isPortalToken(token) ? await deps.subscriptions.findByPortalToken(token) : undefined;
  if (!record) throw new PaylinkError('NOT_FOUND', 'Subscription not found');
  const now = deps.clock.now();
  const { status } = deriveSubscriptionState(record.subscription, record.plan, paidPeriods(record), now);
  if (status === 'canceled' || status === 'ended')
    throw new PaylinkError('CONFLICT', `The subscription is ${status}`);
  const chain = deps.chains[record.subscription.mode];
  if (!chain) throw new PaylinkError('CONFLICT', 'Pull renewal is not offered by this service');
  const merchant = await deps.merchants.find(record.subscription.merchantId);
  if (!merchant?.walletAddress)
    throw new PaylinkError('MERCHANT_NOT_CONFIGURED', 'The merchant has no payout wallet');
  return { record, merchant, chain };
}

function payeesOf(merchant: Merchant, chain: PullChain) {
  return {
    merchant: merchant.walletAddress!,
    treasury: chain.treasury,
    feeBps: merchant.commissionBps,
    token: chain.token,
  };
}

/** A USDC plan's cap is its price; a fiat plan's is the customer's (null). */
function fixedCap(record: SubscriptionRecord): bigint | null {
  return record.plan.price.currency.code === 'USDC' ? record.plan.price.minorUnits : null;
}

/** The chain a mode's subscriptions are charged on by pull, or undefined: push renewal only. */
export function pullChainOf(deps: Pick<MandateDeps, 'chains'>, mode: 'live' | 'test'): PullChain | undefined {
  return deps.chains[mode];
}

/**
 * "Switch to e-mail payments" from the portal: the subscription's mandate canceled, so that nothing more is
 * charged (a charge waiting is dropped and its period e-mailed, as when the mandate is replaced). The terms stay
 * signed on chain: the customer revokes them there (`cancel(terms)` or `approve(charger, 0)`) to be sure.
 * Answers the mandate as it now is; undefined: the subscription has none.
 */
export async function switchToPush(
  deps: Pick<MandateDeps, 'mandates' | 'subscriptions' | 'clock'>,
  token: string,
): Promise<Mandate | undefined> {
  const record = isPortalToken(token) ? await deps.subscriptions.findByPortalToken(token) : undefined;
  if (!record) throw new PaylinkError('NOT_FOUND', 'Subscription not found');
  const mandate = await deps.mandates.findMandate(record.subscription.id);
  if (mandate?.status !== 'active') return mandate;
  const canceled: Mandate = { ...mandate, status: 'canceled', updatedAt: deps.clock.now() };
  await deps.mandates.saveMandate(canceled);
  return canceled;
}
