import { newEventId } from '../../domain/credentials.ts';
import type { PaymentEventType } from '../../domain/paymentStatus.ts';
import type { Subscription, SubscriptionState } from '../../domain/subscription.ts';
import { subscriptionEventBody, subscriptionFields } from '../../domain/subscriptionEvent.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import type { OutboxEvent } from '../chain/ports.ts';
import type { PeriodAnnouncement, PeriodPayment, SubscriptionRecord, SubscriptionRelease } from './ports.ts';

/** A payment status that will never become paid: the period's payment failed. */
export const CLOSED_UNPAID: ReadonlySet<string> = new Set(['expired', 'failed']);

/**
 * One subscription event: on the timeline of the period's payment it is about, or — with no payment to carry it —
 * on the subscription's own (`paymentId` null, decision 0063), its body then naming the period the subscription
 * is in.
 */
function subscriptionEvent(
  subscription: Subscription,
  plan: Pick<SubscriptionPlan, 'price' | 'trialDays'>,
  state: SubscriptionState,
  event: { readonly type: PaymentEventType; readonly at: Date },
  about: Pick<PeriodPayment, 'period' | 'paymentId'> | undefined,
): OutboxEvent {
  const id = newEventId();
  const fields = subscriptionFields(subscription, plan, state);
  const carrier = about ?? { period: state.period, paymentId: null };
  const body = subscriptionEventBody(fields, { id, type: event.type, at: event.at }, carrier);
  return {
    id,
    paymentId: carrier.paymentId,
    subscriptionId: carrier.paymentId === null ? subscription.id : null,
    merchantId: subscription.merchantId,
    type: event.type,
    payload: JSON.stringify(body),
    createdAt: event.at,
  };
}

/**
 * `subscription.created`, written with the subscription itself (so once, and at once, trial or not) on its own
 * timeline: no period's payment exists yet when it is made.
 */
export function createdEvent(
  subscription: Subscription,
  plan: Pick<SubscriptionPlan, 'price' | 'trialDays'>,
  state: SubscriptionState,
): OutboxEvent {
  const at = subscription.createdAt;
  return subscriptionEvent(subscription, plan, state, { type: 'subscription.created', at }, undefined);
}

/**
 * The events a subscription owes its merchant now, in the order they happened, and what they announce
 * (`subscription.created` is its creation's: `createdEvent`):
 * - per period, on that period's payment's timeline: `activated` (the first paid) or `renewed` (a later one
 *   paid), once; `payment_failed` when its payment expired or failed unpaid, once;
 * - on a change of status from the one announced: `past_due`, `canceled`, `ended`, on the payment of the period
 *   concerned (else the last billed), or on the subscription's own timeline when no period was billed (canceled
 *   in a trial before its first period was billed: decision 0063).
 */
export function announce(
  record: SubscriptionRecord,
  state: SubscriptionState,
  now: Date,
): Pick<SubscriptionRelease, 'events' | 'periods' | 'announcedStatus'> {
  const { subscription, plan } = record;
  const events: OutboxEvent[] = [];
  const periods: { period: number; announced: PeriodAnnouncement }[] = [];
  const on = (type: PaymentEventType, about: PeriodPayment | undefined) =>
    events.push(subscriptionEvent(subscription, plan, state, { type, at: now }, about));
  const byPeriod = new Map(record.periods.map((p) => [p.period, p]));
  const endedAt = state.endedAt?.getTime() ?? Number.POSITIVE_INFINITY;
  for (const p of record.periods) {
    const paidInTime = p.paymentStatus === 'paid' && p.paidAt !== null && p.paidAt.getTime() <= endedAt;
    if (paidInTime && p.announced !== 'paid') {
      on(p.period === 1 ? 'subscription.activated' : 'subscription.renewed', p);
      periods.push({ period: p.period, announced: 'paid' });
    } else if (CLOSED_UNPAID.has(p.paymentStatus) && p.announced === 'billed') {
      on('subscription.payment_failed', p);
      periods.push({ period: p.period, announced: 'failed' });
    }
  }
  if (state.status !== subscription.announcedStatus) {
    const current = byPeriod.get(state.period) ?? record.periods.at(-1);
    if (state.status === 'past_due') on('subscription.past_due', current);
    if (state.status === 'canceled') on('subscription.canceled', current);
    if (state.status === 'ended') on('subscription.ended', current);
  }
  return { events, periods, announcedStatus: state.status };
}
