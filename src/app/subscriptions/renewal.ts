import { PaylinkError } from '../../domain/errors.ts';
import { formatMoney } from '../../domain/money.ts';
import {
  deriveSubscriptionState,
  graceEnd,
  lastPeriodEnd,
  type PaidPeriods,
  periodsToBill,
  reminderMoment,
  type SubscriptionState,
} from '../../domain/subscription.ts';
import { periodStart } from '../../domain/subscriptionPeriods.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import { paymentRequestMessage } from '../email/paymentRequests.ts';
import type { MerchantStore } from '../merchants/ports.ts';
import { type CreatePaymentDeps, createPayment } from '../payments/createPayment.ts';
import type { SubscriptionRecord, SubscriptionStore } from './ports.ts';
import type { PullRenewal } from './pullCharges.ts';
import { announce, CLOSED_UNPAID } from './subscriptionEvents.ts';

/** A period's payment that nothing but a reorg changes any more: paid, or closed unpaid. */
const CLOSED: ReadonlySet<string> = new Set(['paid', ...CLOSED_UNPAID]);

export interface RenewalDeps extends CreatePaymentDeps {
  readonly subscriptions: SubscriptionStore;
  readonly merchants: Pick<MerchantStore, 'find'>;
  /** How long before a period is due its payment is made and its link e-mailed (PAYLINK_SUBSCRIPTION_LEAD). */
  readonly renewalLeadMs: number;
  /** How soon a subscription waiting for a payment is looked at again: a payment is paid without telling it. */
  readonly renewalRecheckMs: number;
  readonly logger?: { warn(fields: object, message: string): void } | undefined;
  /** Pull renewal (decision 0061): periods of a subscription with a mandate are charged, not e-mailed ahead. */
  readonly pull?: PullRenewal | undefined;
}

/** How long before a period is due its payment is made and its link e-mailed, unless the wiring says otherwise. */
export const DEFAULT_RENEWAL_LEAD_MS = 3 * 86_400_000;
/** How soon a subscription waiting for a payment is looked at again, unless the wiring says otherwise. */
export const DEFAULT_RENEWAL_RECHECK_MS = 60_000;

/** The shortest time a period's payment is made for: less than this before its grace ends, none is made. */
export const MIN_PERIOD_PAYMENT_MS = 5 * 60_000;

/** The periods paid, and when, as the subscription's status reads them. */
export function paidPeriods(record: SubscriptionRecord): PaidPeriods {
  return new Map(
    record.periods.flatMap((p) =>
      p.paymentStatus === 'paid' && p.paidAt ? [[p.period, p.paidAt] as const] : [],
    ),
  );
}

/**
 * One look at one subscription, which the caller holds (its lease): makes the payments of the periods due
 * soon (each an ordinary payment, its link e-mailed to the customer), reminds the customer of an unpaid one a
 * day before its grace ends, announces what changed, and says when to look again.
 */
export async function renewSubscription(
  deps: RenewalDeps,
  subscriptionId: string,
  options: LookOptions = {},
): Promise<void> {
  const now = deps.clock.now();
  let record = await applyDuePlanChange(deps, await deps.subscriptions.find(subscriptionId), now);
  if (!record) return;
  const seenUpdatedAt = record.subscription.updatedAt;
  const pulled = (await deps.pull?.hasLiveMandate(subscriptionId)) ?? false;
  const withheld = pulled || options.mandateComing === true;
  const { billed, failed } = await billDuePeriods(deps, record, now, withheld);
  if (billed.length > 0) record = (await deps.subscriptions.find(subscriptionId)) ?? record;
  if (pulled) await deps.pull?.queueDue(record, now);
  await remindUnpaid(deps, record, now);
  const state = deriveSubscriptionState(record.subscription, record.plan, paidPeriods(record), now);
  const nextCheckAt = failed
    ? new Date(now.getTime() + deps.renewalRecheckMs)
    : nextLook(deps, record, state, now);
  await deps.subscriptions.release(
    subscriptionId,
    { ...announce(record, state, now), nextCheckAt, seenUpdatedAt },
    now,
  );
}

/**
 * The plan a period is billed with (decision 0062): the pending change's plan from its first period on, else the
 * subscription's own.
 */
export function planForPeriod(record: SubscriptionRecord, period: number): SubscriptionPlan {
  const change = record.subscription.planChange;
  return change && record.nextPlan && period >= change.fromPeriod ? record.nextPlan : record.plan;
}

/**
 * A plan change whose first period has started becomes the subscription's plan, so that every reader (its
 * status, the API, the pages) follows the new plan from then on. The record as it is after.
 */
async function applyDuePlanChange(deps: RenewalDeps, record: SubscriptionRecord | undefined, now: Date) {
  const change = record?.subscription.planChange;
  if (!record || !change || !record.nextPlan) return record;
  const { anchor } = record.subscription;
  if (now.getTime() < periodStart(anchor, record.plan.interval, change.fromPeriod).getTime()) return record;
  await deps.subscriptions.applyPlanChange(record.subscription.id, change, now);
  return deps.subscriptions.find(record.subscription.id);
}

/** How long a look may hold a subscription: a worker that dies holding it lets it go after this. */
export const RENEWAL_LEASE_MS = 60_000;

/**
 * A look at one subscription outside the renewal job (its creation, a cancellation): only if no worker is looking
 * at it now, which then sees the change itself. Two looks at once could announce one change twice.
 */
export async function renewNow(
  deps: RenewalDeps,
  subscriptionId: string,
  options: LookOptions = {},
): Promise<void> {
  if (await deps.subscriptions.claimOne(subscriptionId, deps.clock.now(), RENEWAL_LEASE_MS))
    await renewSubscription(deps, subscriptionId, options);
}

export interface LookOptions {
  /**
   * The customer is signing a mandate now (the subscribe page's wallet way): a period billed by this look is not
   * e-mailed, since its charge will pay it — an e-mailed link too could be paid a second time. Should no mandate
   * come, the period's reminder e-mails its link before its grace ends.
   */
  readonly mandateComing?: boolean;
}

/** One pass of the renewal job: the subscriptions due for a look, claimed, each looked at. How many. */
export async function renewDueSubscriptions(deps: RenewalDeps, limit: number): Promise<number> {
  const ids = await deps.subscriptions.claimDue(deps.clock.now(), limit, RENEWAL_LEASE_MS);
  for (const id of ids) await renewSubscription(deps, id);
  return ids.length;
}

async function billDuePeriods(deps: RenewalDeps, record: SubscriptionRecord, now: Date, pulled: boolean) {
  const { subscription: sub, plan } = record;
  const billedBefore = new Set(record.periods.map((p) => p.period));
  const due = periodsToBill(sub, plan, paidPeriods(record), now, deps.renewalLeadMs).filter(
    (period) => !billedBefore.has(period),
  );
  const billed: number[] = [];
  let failed = false;
  for (const period of due) {
    const ttlMs = graceEnd(sub.anchor, planForPeriod(record, period), period).getTime() - now.getTime();
    if (ttlMs < MIN_PERIOD_PAYMENT_MS) continue;
    try {
      if (await billPeriod(deps, record, period, ttlMs, pulled)) billed.push(period);
    } catch (error) {
      // A rate missing, a merchant's wallet not set: the period is billed at the next look, its grace running.
      if (!(error instanceof PaylinkError)) throw error;
      failed = true;
      deps.logger?.warn(
        { subscription: sub.id, period, code: error.code },
        'subscription period not billed yet',
      );
    }
  }
  return { billed, failed };
}

/**
 * Makes a period's payment, payable until its grace ends; false when another worker made it first. Its link is
 * e-mailed unless the period is to be charged (`pulled`): then only if the charge fails.
 */
async function billPeriod(
  deps: RenewalDeps,
  record: SubscriptionRecord,
  period: number,
  ttlMs: number,
  pulled: boolean,
) {
  const sub = record.subscription;
  const plan = planForPeriod(record, period);
  const merchant = await deps.merchants.find(sub.merchantId);
  if (!merchant) throw new Error(`subscription ${sub.id} names a missing merchant`);
  let inserted = false;
  await createPayment(
    { ...deps, paymentTtlMs: ttlMs },
    merchant,
    {
      amount: formatMoney(plan.price),
      currency: plan.price.currency.code,
      customerEmail: sub.customerEmail,
      customerLanguage: sub.language ?? undefined,
      sendEmail: deps.paymentRequests !== undefined && !pulled,
      title: plan.name,
      description: plan.description ?? undefined,
      metadata: { subscription_id: sub.id, subscription_period: String(period) },
    },
    {
      mode: sub.mode,
      insert: async (payment, email) => {
        // The request e-mail with the customer portal's link (decision 0062).
        const withPortal =
          email && deps.paymentRequests
            ? paymentRequestMessage(deps.paymentRequests, merchant, payment, deps.clock.now(), sub)
            : email;
        inserted = await deps.subscriptions.insertPeriodPayment(payment, sub.id, period, withPortal);
      },
    },
  );
  return inserted;
}

/** The request e-mail again for a period still unpaid, once, from its reminder moment until its grace ends. */
async function remindUnpaid(deps: RenewalDeps, record: SubscriptionRecord, now: Date): Promise<void> {
  const { subscription: sub, plan } = record;
  for (const p of record.periods) {
    const moment = reminderMoment(sub.anchor, plan, p.period);
    const open = p.paymentStatus === 'pending' && p.remindedAt === null;
    if (!open || moment === null || moment.getTime() > now.getTime()) continue;
    if (graceEnd(sub.anchor, plan, p.period).getTime() < now.getTime()) continue;
    const merchant = await deps.merchants.find(sub.merchantId);
    const payment = await deps.payments.findById(p.paymentId);
    const email =
      deps.paymentRequests && merchant && payment
        ? paymentRequestMessage(deps.paymentRequests, merchant, payment, now, sub)
        : undefined;
    await deps.subscriptions.remind(sub.id, p.period, email, now);
  }
}

/**
 * The next moment anything can change of the subscription by the clock alone (a period to bill, a reminder, a
 * due moment, a grace's end, a cancellation, the last period's end), or sooner while a payment may still be paid:
 * the job is not told of payments. Once canceled or ended, only a period's payment still open keeps it looked at,
 * until that payment closes and its `payment_failed` (or its payment) is announced; then null.
 */
function nextLook(deps: RenewalDeps, record: SubscriptionRecord, state: SubscriptionState, now: Date) {
  if (state.status === 'canceled' || state.status === 'ended') {
    const open = record.periods.some((p) => p.announced === 'billed' && !CLOSED.has(p.paymentStatus));
    return open ? new Date(now.getTime() + deps.renewalRecheckMs) : null;
  }
  const { subscription: sub, plan } = record;
  const next = state.period + 1;
  const nextStart = periodStart(sub.anchor, plan.interval, next);
  const moments: (Date | null)[] = [
    new Date(nextStart.getTime() - deps.renewalLeadMs),
    nextStart,
    sub.cancelAt,
    lastPeriodEnd(sub.anchor, plan),
  ];
  let waiting = false;
  for (const p of record.periods) {
    if (CLOSED.has(p.paymentStatus)) continue;
    waiting = true;
    moments.push(
      new Date(graceEnd(sub.anchor, plan, p.period).getTime() + 1),
      reminderMoment(sub.anchor, plan, p.period),
    );
  }
  if (state.period > 0 && !record.periods.some((p) => p.period === state.period))
    moments.push(new Date(graceEnd(sub.anchor, plan, state.period).getTime() + 1));
  if (waiting) moments.push(new Date(now.getTime() + deps.renewalRecheckMs));
  const future = moments.filter((m): m is Date => m !== null && m.getTime() > now.getTime());
  return future.reduce<Date | null>((soonest, m) => (soonest === null || m < soonest ? m : soonest), null);
}
