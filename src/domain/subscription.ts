import type { KeyMode } from './credentials.ts';
import type { Language } from './language.ts';
import { periodAt, periodEnd, periodStart } from './subscriptionPeriods.ts';
import { daysMs, type SubscriptionPlan } from './subscriptionPlan.ts';

/**
 * A plan bought by one customer (decision 0060). Its status is never stored as the truth: it is derived from
 * these facts, the plan, the periods paid and the clock (`deriveSubscriptionState`), as a payment's is.
 */
export interface Subscription {
  readonly id: string;
  readonly merchantId: string;
  readonly mode: KeyMode;
  readonly planId: string;
  readonly customerEmail: string;
  /** The wallet the customer said they pay from; shown to the merchant, never required of a payment. */
  readonly customerWallet: string | null;
  /** The language of the e-mails to the customer; null: the merchant's, else English. */
  readonly language: Language | null;
  readonly startedAt: Date;
  /** The first period's start: `startedAt` plus the plan's trial days. */
  readonly anchor: Date;
  /** When a cancellation takes (or took) effect: the moment asked for, or the end of the period it was asked in. */
  readonly cancelAt: Date | null;
  readonly canceledBy: 'merchant' | 'customer' | null;
  /** The status last announced by an event (subscription.*): what the next change is compared with. */
  readonly announcedStatus: SubscriptionStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /**
   * The secret part of the customer portal's address (decision 0062), sent in the subscription's e-mails: whoever
   * holds it sees the subscription and may cancel it, as the customer.
   */
  readonly portalToken: string;
  /** A plan change asked for (decision 0062): the plan billed from period `fromPeriod` on; null: none. */
  readonly planChange: PlanChange | null;
}

/** A subscription's next plan, and the first period billed with it. */
export interface PlanChange {
  readonly planId: string;
  readonly fromPeriod: number;
}

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled', 'ended'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** A plan's terms that its subscriptions' calendar reads. */
export type PlanCalendar = Pick<SubscriptionPlan, 'interval' | 'graceDays' | 'periods'>;

/** Each billed period's payment as far as the subscription cares: when it was paid, if it was. */
export type PaidPeriods = ReadonlyMap<number, Date>;

export interface SubscriptionState {
  readonly status: SubscriptionStatus;
  /** The period `now` falls in (0 in the trial); the last one once ended. */
  readonly period: number;
  readonly periodStart: Date | null;
  readonly periodEnd: Date | null;
  /** Why a canceled subscription is: asked for, or a period unpaid at the end of its grace. */
  readonly canceledReason: 'requested' | 'unpaid' | null;
  /** When it became canceled or ended; null while it runs. */
  readonly endedAt: Date | null;
}

/**
 * When period `period`'s grace ends: its payment's expiry. Paid by then (the moment itself included), it counts;
 * unpaid a millisecond later, the subscription is canceled, dated at this moment.
 */
export function graceEnd(anchor: Date, plan: PlanCalendar, period: number): Date {
  return new Date(periodStart(anchor, plan.interval, period).getTime() + daysMs(plan.graceDays));
}

/** The end of the last period of a plan with a number of periods; null for an open-ended one. */
export function lastPeriodEnd(anchor: Date, plan: PlanCalendar): Date | null {
  return plan.periods === null ? null : periodEnd(anchor, plan.interval, plan.periods);
}

/**
 * The first moment an unpaid period canceled the subscription, up to `now`: the grace end of the first period
 * not paid by it. Periods are walked from the first, so a subscription lapsed long ago says when.
 */
function lapsedAt(sub: Pick<Subscription, 'anchor'>, plan: PlanCalendar, paid: PaidPeriods, now: Date) {
  const current = periodAt(sub.anchor, plan.interval, now);
  const last = plan.periods === null ? current : Math.min(current, plan.periods);
  for (let period = 1; period <= last; period++) {
    const deadline = graceEnd(sub.anchor, plan, period);
    // The grace's end itself is still on time, as a payment's `expires_at` is: its payment expires then.
    if (deadline.getTime() >= now.getTime()) return null;
    const paidAt = paid.get(period);
    if (paidAt === undefined || paidAt.getTime() > deadline.getTime()) return deadline;
  }
  return null;
}

/**
 * The subscription's status at `now`, from its facts. The first row that applies gives it:
 * - canceled: its cancellation's moment is reached (before its last period's end), or a period was unpaid at the
 *   end of its grace, once that end is past (whichever came first);
 * - ended: the plan's last period is over;
 * - trialing: before the first period;
 * - active: the current period is paid;
 * - past_due: the current period is due (its start is reached) and not paid yet, its grace still running.
 * A payment made after the grace that lapsed it revives nothing: the merchant refunds it if they wish.
 */
export function deriveSubscriptionState(
  sub: Pick<Subscription, 'anchor' | 'cancelAt'>,
  plan: PlanCalendar,
  paid: PaidPeriods,
  now: Date,
): SubscriptionState {
  const end = lastPeriodEnd(sub.anchor, plan);
  const requested = sub.cancelAt !== null && (end === null || sub.cancelAt.getTime() < end.getTime());
  const lapsed = lapsedAt(sub, plan, paid, now);
  const canceledAt = earliest(
    requested && sub.cancelAt.getTime() <= now.getTime() ? sub.cancelAt : null,
    lapsed,
  );
  if (canceledAt !== null) {
    return {
      ...periodFields(sub.anchor, plan, periodBefore(sub.anchor, plan, canceledAt)),
      status: 'canceled',
      canceledReason: canceledAt === lapsed ? 'unpaid' : 'requested',
      endedAt: canceledAt,
    };
  }
  if (end !== null && now.getTime() >= end.getTime()) {
    const fields = periodFields(sub.anchor, plan, periodBefore(sub.anchor, plan, end));
    return { ...fields, status: 'ended', canceledReason: null, endedAt: end };
  }
  const fields = periodFields(sub.anchor, plan, periodAt(sub.anchor, plan.interval, now));
  if (fields.period === 0) return { ...fields, status: 'trialing', canceledReason: null, endedAt: null };
  // A payment counts from the moment it was paid: its block's time, which the watcher may learn of later.
  const paidAt = paid.get(fields.period);
  const isPaid = paidAt !== undefined && paidAt.getTime() <= now.getTime();
  return { ...fields, status: isPaid ? 'active' : 'past_due', canceledReason: null, endedAt: null };
}

function earliest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.getTime() <= b.getTime() ? a : b;
}

/** The period in force just before `at`, the moment that closed the subscription (itself in the next period). */
function periodBefore(anchor: Date, plan: PlanCalendar, at: Date): number {
  const inside = periodAt(anchor, plan.interval, new Date(at.getTime() - 1));
  return plan.periods === null ? inside : Math.min(inside, plan.periods);
}

function periodFields(anchor: Date, plan: PlanCalendar, period: number) {
  if (period === 0) return { period, periodStart: null, periodEnd: anchor };
  return {
    period,
    periodStart: periodStart(anchor, plan.interval, period),
    periodEnd: periodEnd(anchor, plan.interval, period),
  };
}

/**
 * The moment a cancellation asked for at `now` takes effect: at once, or at the end of the period in force (the
 * trial's end during the trial).
 */
export function cancellationMoment(anchor: Date, plan: PlanCalendar, now: Date, atPeriodEnd: boolean): Date {
  if (!atPeriodEnd) return now;
  const period = periodAt(anchor, plan.interval, now);
  return period === 0 ? anchor : periodEnd(anchor, plan.interval, period);
}

/**
 * The periods whose payment should exist at `now` (push renewal): the current one, and the next once its start is
 * `leadMs` away or less; none once the subscription is canceled or ended, and not a period starting at or after a
 * cancellation's moment or past the plan's last.
 */
export function periodsToBill(
  sub: Pick<Subscription, 'anchor' | 'cancelAt'>,
  plan: PlanCalendar,
  paid: PaidPeriods,
  now: Date,
  leadMs: number,
): number[] {
  const state = deriveSubscriptionState(sub, plan, paid, now);
  if (state.status === 'canceled' || state.status === 'ended') return [];
  const billable = (period: number) => {
    if (period < 1 || (plan.periods !== null && period > plan.periods)) return false;
    const start = periodStart(sub.anchor, plan.interval, period).getTime();
    if (sub.cancelAt !== null && start >= sub.cancelAt.getTime()) return false;
    return start - leadMs <= now.getTime();
  };
  return [state.period, state.period + 1].filter(billable);
}

/**
 * When the customer is reminded of an unpaid period: a day before its grace ends, or at its due moment when the
 * grace is shorter; null without a grace (the payment is due and lapses at the same moment).
 */
export function reminderMoment(anchor: Date, plan: PlanCalendar, period: number): Date | null {
  if (plan.graceDays === 0) return null;
  const due = periodStart(anchor, plan.interval, period).getTime();
  const deadline = graceEnd(anchor, plan, period).getTime();
  return new Date(Math.max(due, deadline - daysMs(1)));
}

/**
 * When the subscription's next period starts, and its payment is due: null once canceled or ended, after the
 * plan's last period, or when a cancellation takes effect first.
 */
export function nextChargeAt(
  sub: Pick<Subscription, 'anchor' | 'cancelAt'>,
  plan: PlanCalendar,
  state: SubscriptionState,
): Date | null {
  if (state.status === 'canceled' || state.status === 'ended') return null;
  const next = state.period + 1;
  if (plan.periods !== null && next > plan.periods) return null;
  const start = periodStart(sub.anchor, plan.interval, next);
  if (sub.cancelAt !== null && start.getTime() >= sub.cancelAt.getTime()) return null;
  return start;
}
