import { describe, expect, it } from 'vitest';
import { parsePrice } from '../../domain/money.ts';
import { deriveSubscriptionState, type Subscription } from '../../domain/subscription.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import type { PeriodPayment, SubscriptionRecord } from './ports.ts';
import { paidPeriods } from './renewal.ts';
import { announce, createdEvent } from './subscriptionEvents.ts';

const DAY = 86_400_000;
const T0 = new Date('2027-01-31T10:00:00.000Z');

/** A monthly 10 USDC plan with a 14-day trial. */
const plan: SubscriptionPlan = {
  id: 'plan-1',
  merchantId: 'mch_1',
  mode: 'live',
  name: 'Tea club',
  description: null,
  price: parsePrice('10', 'USDC'),
  interval: { unit: 'month', count: 1 },
  trialDays: 14,
  graceDays: 3,
  periods: null,
  archivedAt: null,
  createdAt: T0,
};

const subscription = (facts: Partial<Subscription> = {}): Subscription => ({
  id: 'sub-1',
  merchantId: 'mch_1',
  mode: 'live',
  planId: plan.id,
  customerEmail: 'ann@example.com',
  customerWallet: null,
  language: null,
  startedAt: T0,
  anchor: new Date(T0.getTime() + 14 * DAY),
  cancelAt: null,
  canceledBy: null,
  announcedStatus: 'trialing',
  createdAt: T0,
  updatedAt: T0,
  portalToken: 'token',
  planChange: null,
  ...facts,
});

const record = (sub: Subscription, periods: PeriodPayment[] = []): SubscriptionRecord => ({
  subscription: sub,
  plan,
  nextPlan: null,
  periods,
});

const announced = (rec: SubscriptionRecord, now: Date) => {
  const state = deriveSubscriptionState(rec.subscription, rec.plan, paidPeriods(rec), now);
  return announce(rec, state, now);
};

const bodyOf = (payload: string) => JSON.parse(payload) as Record<string, unknown>;

/**
 * Where a subscription's events go (decision 0063): `created` on its own timeline with its creation, a change of
 * status on the period's payment when one was billed, else on the subscription's own timeline; never `created`
 * again at the first period's billing.
 */
describe('a subscription’s events and their timelines', () => {
  it('announces created on the subscription’s own timeline, with no payment and the trial’s period 0', () => {
    const sub = subscription();
    const state = deriveSubscriptionState(sub, plan, new Map(), T0);
    const event = createdEvent(sub, plan, state);
    expect(event).toMatchObject({
      paymentId: null,
      subscriptionId: 'sub-1',
      merchantId: 'mch_1',
      type: 'subscription.created',
      createdAt: T0,
    });
    expect(bodyOf(event.payload)).toMatchObject({
      id: event.id,
      event: 'subscription.created',
      status: 'trialing',
      period: 0,
      payment_id: null,
    });
  });

  it('puts a cancellation with no billed period on the subscription’s own timeline, once', () => {
    const now = new Date(T0.getTime() + DAY);
    const canceled = subscription({ cancelAt: now, canceledBy: 'merchant' });
    const { events, announcedStatus } = announced(record(canceled), now);
    expect(announcedStatus).toBe('canceled');
    expect(events.map((e) => [e.type, e.paymentId, e.subscriptionId])).toEqual([
      ['subscription.canceled', null, 'sub-1'],
    ]);
    expect(bodyOf(events[0]!.payload)).toMatchObject({ payment_id: null, status: 'canceled' });
    // Announced: the next look says nothing more.
    const again = announced(record({ ...canceled, announcedStatus: 'canceled' }), now);
    expect(again.events).toEqual([]);
  });

  it('puts a past due with no billed period there too, and the ones with a billed period on its payment', () => {
    const due = new Date(T0.getTime() + 14 * DAY);
    const unbilled = announced(record(subscription()), due);
    expect(unbilled.events.map((e) => [e.type, e.paymentId, e.subscriptionId])).toEqual([
      ['subscription.past_due', null, 'sub-1'],
    ]);
    const billed: PeriodPayment = {
      period: 1,
      paymentId: 'pay-1',
      paymentStatus: 'pending',
      paidAt: null,
      remindedAt: null,
      announced: 'billed',
    };
    const onPayment = announced(record(subscription(), [billed]), due);
    // No `created` at the first period's billing: it was the subscription's creation's.
    expect(onPayment.events.map((e) => [e.type, e.paymentId, e.subscriptionId])).toEqual([
      ['subscription.past_due', 'pay-1', null],
    ]);
    expect(bodyOf(onPayment.events[0]!.payload)).toMatchObject({ payment_id: 'pay-1', period: 1 });
  });
});
