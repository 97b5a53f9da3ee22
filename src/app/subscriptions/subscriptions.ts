import { randomBytes } from 'node:crypto';
import type { KeyMode } from '../../domain/credentials.ts';
import { checkEvery, PaylinkError, ValidationError } from '../../domain/errors.ts';
import { type Language, parseCustomerLanguage } from '../../domain/language.ts';
import { parseWalletAddress } from '../../domain/merchant.ts';
import { parseCustomerEmail } from '../../domain/paymentInput.ts';
import {
  cancellationMoment,
  deriveSubscriptionState,
  type Subscription,
  type SubscriptionState,
} from '../../domain/subscription.ts';
import { daysMs } from '../../domain/subscriptionPlan.ts';
import { timeOrderedId } from '../payments/timeOrderedId.ts';
import type { PageRequest } from '../shared/keysetPage.ts';
import { answerOnce, checkIdempotencyKey, listPage } from './plans.ts';
import type { IdempotentCreate, SubscriptionRecord } from './ports.ts';
import { type LookOptions, paidPeriods, type RenewalDeps, renewNow } from './renewal.ts';
import { createdEvent } from './subscriptionEvents.ts';

/** The customer portal's token: 32 random bytes, base64url (43 characters), as a receipt's. */
export function newPortalToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A portal token's shape: anything else is refused before the database is asked. */
export function isPortalToken(text: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(text);
}

/** A subscription as a client asks for it. */
export interface SubscriptionInput {
  readonly planId?: string | undefined;
  readonly customerEmail?: string | undefined;
  readonly customerWallet?: string | undefined;
  readonly customerLanguage?: string | undefined;
}

/** A subscription with its status derived now, as every answer shows it. */
export interface ShownSubscription extends SubscriptionRecord {
  readonly state: SubscriptionState;
}

export function shown(record: SubscriptionRecord, now: Date): ShownSubscription {
  const state = deriveSubscriptionState(record.subscription, record.plan, paidPeriods(record), now);
  return { ...record, state };
}

/**
 * Subscribes a customer to one of the merchant's plans (not archived) in the key's mode. Its first period starts
 * after the plan's trial, or at once: then its payment is made, and its link e-mailed, before this answers. With
 * an Idempotency-Key the same key and body give the same subscription.
 */
export async function createSubscription(
  deps: RenewalDeps,
  merchantId: string,
  mode: KeyMode,
  input: SubscriptionInput,
  idempotency?: IdempotentCreate,
  look: LookOptions = {},
): Promise<{ subscription: ShownSubscription; replayed: boolean }> {
  checkIdempotencyKey(idempotency);
  const [planId, customerEmail, customerWallet, language] = checkEvery<
    [string, string, string | null, Language | null]
  >([
    () => {
      if (!input.planId?.trim()) throw new ValidationError('plan_id', 'is required');
      return input.planId.trim().toLowerCase();
    },
    () => {
      const email = parseCustomerEmail(input.customerEmail);
      if (email === null) throw new ValidationError('customer_email', 'is required');
      return email;
    },
    () => (input.customerWallet?.trim() ? parseWalletAddress('customer_wallet', input.customerWallet) : null),
    () => parseCustomerLanguage(input.customerLanguage),
  ]);
  const plan = await deps.subscriptions.findPlan(merchantId, planId, mode);
  if (!plan) throw new PaylinkError('NOT_FOUND', 'Plan not found');
  if (plan.archivedAt !== null)
    throw new PaylinkError('CONFLICT', 'This plan is archived: it takes no new subscriptions');
  const now = deps.clock.now();
  const anchor = new Date(now.getTime() + daysMs(plan.trialDays));
  const facts = { anchor, cancelAt: null };
  const state = deriveSubscriptionState(facts, plan, new Map(), now);
  const subscription: Subscription = {
    id: timeOrderedId(),
    merchantId,
    mode,
    planId: plan.id,
    customerEmail,
    customerWallet,
    language,
    startedAt: now,
    anchor,
    cancelAt: null,
    canceledBy: null,
    announcedStatus: state.status,
    createdAt: now,
    updatedAt: now,
    portalToken: newPortalToken(),
    planChange: null,
  };
  // Announced with the row, at once and once, trial or not (decision 0063).
  const created = createdEvent(subscription, plan, state);
  const outcome = await deps.subscriptions.insertSubscription(subscription, now, idempotency, [created]);
  const { row, replayed } = answerOnce(outcome, idempotency);
  // The first look at once: a subscription without a trial owes its first period now.
  if (!replayed) await renewNow(deps, row.id, look);
  return { subscription: await showSubscription(deps, merchantId, mode, row.id), replayed };
}

export async function showSubscription(
  deps: Pick<RenewalDeps, 'subscriptions' | 'clock'>,
  merchantId: string,
  mode: KeyMode,
  subscriptionId: string,
): Promise<ShownSubscription> {
  const record = await deps.subscriptions.findForMerchant(merchantId, subscriptionId.toLowerCase(), mode);
  if (!record) throw new PaylinkError('NOT_FOUND', 'Subscription not found');
  return shown(record, deps.clock.now());
}

export async function listSubscriptions(
  deps: Pick<RenewalDeps, 'subscriptions' | 'clock'>,
  merchantId: string,
  mode: KeyMode,
  input: PageRequest,
) {
  const now = deps.clock.now();
  const page = await listPage(
    'subscriptions',
    merchantId,
    mode,
    input,
    (q) => deps.subscriptions.list(q),
    (record) => record.subscription,
  );
  return { subscriptions: page.rows.map((record) => shown(record, now)), nextCursor: page.nextCursor };
}

/**
 * Cancels a subscription, at once or at the end of the period in force (the trial's end during a trial). A
 * canceled or ended one answers as it is; an earlier cancellation is never moved later.
 */
export async function cancelSubscription(
  deps: RenewalDeps,
  merchantId: string,
  mode: KeyMode,
  subscriptionId: string,
  request: { readonly atPeriodEnd: boolean; readonly by: 'merchant' | 'customer' },
): Promise<ShownSubscription> {
  const current = await showSubscription(deps, merchantId, mode, subscriptionId);
  const { status } = current.state;
  if (status === 'canceled' || status === 'ended') return current;
  const now = deps.clock.now();
  const { subscription, plan } = current;
  const at = cancellationMoment(subscription.anchor, plan, now, request.atPeriodEnd);
  await deps.subscriptions.cancel(subscription.id, { at, by: request.by }, now);
  // Announced at once when it takes effect at once (the event with the cancellation's own answer).
  await renewNow(deps, subscription.id);
  return showSubscription(deps, merchantId, mode, subscription.id);
}
