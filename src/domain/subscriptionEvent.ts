import { formatMoney } from './money.ts';
import type { PaymentEventType } from './paymentStatus.ts';
import type { Subscription, SubscriptionState, SubscriptionStatus } from './subscription.ts';
import type { SubscriptionPlan } from './subscriptionPlan.ts';

/** What the merchant is told of a subscription, in its API responses and its webhooks alike. */
export interface SubscriptionFields {
  readonly subscription_id: string;
  readonly plan_id: string;
  readonly status: SubscriptionStatus;
  readonly customer_email: string;
  readonly customer_wallet: string | null;
  /** Each period's price as the plan states it, and its currency (USDC or fiat, converted at each payment). */
  readonly amount: string;
  readonly currency: string;
  /** The period now (0 during the trial; the last one once canceled or ended) and its bounds. */
  readonly current_period: number;
  readonly current_period_start: string | null;
  readonly current_period_end: string | null;
  /** When the trial ends and the first period starts. */
  readonly trial_end: string | null;
  /** When a cancellation asked for takes effect (or took it). */
  readonly cancel_at: string | null;
  readonly canceled_by: 'merchant' | 'customer' | null;
  /** `requested` or `unpaid` (a period unpaid at the end of its grace) once canceled. */
  readonly canceled_reason: 'requested' | 'unpaid' | null;
  readonly ended_at: string | null;
  readonly started_at: string;
  readonly livemode: boolean;
}

export function subscriptionFields(
  sub: Subscription,
  plan: Pick<SubscriptionPlan, 'price' | 'trialDays'>,
  state: SubscriptionState,
): SubscriptionFields {
  return {
    subscription_id: sub.id,
    plan_id: sub.planId,
    status: state.status,
    customer_email: sub.customerEmail,
    customer_wallet: sub.customerWallet,
    amount: formatMoney(plan.price),
    currency: plan.price.currency.code,
    current_period: state.period,
    current_period_start: state.periodStart?.toISOString() ?? null,
    current_period_end: state.periodEnd?.toISOString() ?? null,
    trial_end: plan.trialDays > 0 ? sub.anchor.toISOString() : null,
    cancel_at: sub.cancelAt?.toISOString() ?? null,
    canceled_by: sub.canceledBy,
    canceled_reason: state.canceledReason,
    ended_at: state.endedAt?.toISOString() ?? null,
    started_at: sub.startedAt.toISOString(),
    livemode: sub.mode === 'live',
  };
}

/**
 * A subscription webhook's body: the subscription as the API shows it, with the event's own id, type and time,
 * and the period and payment the event is about (on whose timeline it is sent); `payment_id` null when no
 * period's payment carries it and it is on the subscription's own timeline (decision 0063).
 */
export interface SubscriptionEventBody extends SubscriptionFields {
  readonly id: string;
  readonly event: PaymentEventType;
  readonly created_at: string;
  readonly period: number;
  readonly payment_id: string | null;
}

export function subscriptionEventBody(
  fields: SubscriptionFields,
  event: { readonly id: string; readonly type: PaymentEventType; readonly at: Date },
  about: { readonly period: number; readonly paymentId: string | null },
): SubscriptionEventBody {
  return {
    id: event.id,
    event: event.type,
    created_at: event.at.toISOString(),
    ...fields,
    period: about.period,
    payment_id: about.paymentId,
  };
}
