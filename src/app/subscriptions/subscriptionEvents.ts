import { newEventId } from '../../domain/credentials.ts';
import type { PaymentEventType } from '../../domain/paymentStatus.ts';
import type { SubscriptionState } from '../../domain/subscription.ts';
import { subscriptionEventBody, subscriptionFields } from '../../domain/subscriptionEvent.ts';
import type { OutboxEvent } from '../chain/ports.ts';
import type { PeriodAnnouncement, PeriodPayment, SubscriptionRecord, SubscriptionRelease } from './ports.ts';

/** A payment status that will never become paid: the period's payment failed. */
const CLOSED_UNPAID = new Set(['expired', 'failed']);

/**
 * The events a subscription owes its merchant now, in the order they happened, each on the timeline of the
 * payment of the period it is about (decision 0060), and what they announce:
 * - `subscription.created` when its first period's payment is billed (with a trial: a lead before its end);
 * - per period: `activated` (the first paid) or `renewed` (a later one paid), once; `payment_failed` when its
 *   payment expired or failed unpaid, once;
 * - on a change of status from the one announced: `past_due`, `canceled`, `ended` (on the payment of the
 *   period concerned). A change with no billed payment to carry it (canceled in a trial before the first
 *   period was billed) is not sent: events have no timeline of a subscription's own yet.
 */
export function announce(
  record: SubscriptionRecord,
  state: SubscriptionState,
  billedNow: readonly number[],
  now: Date,
): Pick<SubscriptionRelease, 'events' | 'periods' | 'announcedStatus'> {
  const { subscription, plan } = record;
  const fields = subscriptionFields(subscription, plan, state);
  const events: OutboxEvent[] = [];
  const periods: { period: number; announced: PeriodAnnouncement }[] = [];
  const on = (type: PaymentEventType, about: PeriodPayment | undefined) => {
    if (!about) return;
    const id = newEventId();
    const body = subscriptionEventBody(fields, { id, type, at: now }, about);
    events.push({
      id,
      paymentId: about.paymentId,
      merchantId: subscription.merchantId,
      type,
      payload: JSON.stringify(body),
      createdAt: now,
    });
  };
  const byPeriod = new Map(record.periods.map((p) => [p.period, p]));
  if (billedNow.includes(1)) on('subscription.created', byPeriod.get(1));
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
