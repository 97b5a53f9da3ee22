import type { Insertable, Selectable } from 'kysely';
import type { PeriodPayment } from '../../app/subscriptions/ports.ts';
import { keyModeOf } from '../../domain/credentials.ts';
import { findCurrency } from '../../domain/currencies.ts';
import { isLanguage } from '../../domain/language.ts';
import { SUBSCRIPTION_STATUSES, type Subscription } from '../../domain/subscription.ts';
import { INTERVAL_UNITS } from '../../domain/subscriptionPeriods.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import { isoTimestamp } from '../../domain/timestamp.ts';
import { dateOrNull, oneOf } from './storedValues.ts';
import type { SubscriptionPlansTable, SubscriptionsTable } from './subscriptionSchema.ts';

// A plan's and a subscription's rows, both ways: what subscriptionRepository.ts reads and writes.

export function planRow(plan: SubscriptionPlan): Insertable<SubscriptionPlansTable> {
  return {
    id: plan.id,
    merchant_id: plan.merchantId,
    mode: plan.mode,
    name: plan.name,
    description: plan.description,
    currency: plan.price.currency.code,
    amount_minor_units: plan.price.minorUnits.toString(),
    interval_unit: plan.interval.unit,
    interval_count: plan.interval.count,
    trial_days: plan.trialDays,
    grace_days: plan.graceDays,
    periods: plan.periods,
    archived_at: plan.archivedAt ? isoTimestamp(plan.archivedAt) : null,
    created_at: isoTimestamp(plan.createdAt),
  };
}

export function toPlan(row: Selectable<SubscriptionPlansTable>): SubscriptionPlan {
  const currency = findCurrency(row.currency);
  if (!currency) throw new Error(`plan ${row.id} has an unknown currency`);
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: keyModeOf(row.mode),
    name: row.name,
    description: row.description,
    price: { currency, minorUnits: BigInt(row.amount_minor_units) },
    interval: {
      unit: oneOf(INTERVAL_UNITS, row.interval_unit, `plan ${row.id}'s interval`),
      count: Number(row.interval_count),
    },
    trialDays: Number(row.trial_days),
    graceDays: Number(row.grace_days),
    periods: row.periods === null ? null : Number(row.periods),
    archivedAt: dateOrNull(row.archived_at),
    createdAt: new Date(row.created_at),
  };
}

export function subscriptionRow(sub: Subscription, nextCheckAt: Date | null): Insertable<SubscriptionsTable> {
  return {
    id: sub.id,
    merchant_id: sub.merchantId,
    mode: sub.mode,
    plan_id: sub.planId,
    customer_email: sub.customerEmail,
    customer_wallet: sub.customerWallet,
    language: sub.language,
    started_at: isoTimestamp(sub.startedAt),
    anchor: isoTimestamp(sub.anchor),
    cancel_at: sub.cancelAt ? isoTimestamp(sub.cancelAt) : null,
    canceled_by: sub.canceledBy,
    announced_status: sub.announcedStatus,
    next_check_at: nextCheckAt ? isoTimestamp(nextCheckAt) : null,
    claimed_until: null,
    created_at: isoTimestamp(sub.createdAt),
    updated_at: isoTimestamp(sub.updatedAt),
    portal_token: sub.portalToken,
    pending_plan_id: sub.planChange?.planId ?? null,
    pending_plan_from: sub.planChange?.fromPeriod ?? null,
  };
}

export function toSubscription(row: Selectable<SubscriptionsTable>): Subscription {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: keyModeOf(row.mode),
    planId: row.plan_id,
    customerEmail: row.customer_email,
    customerWallet: row.customer_wallet,
    language: isLanguage(row.language) ? row.language : null,
    startedAt: new Date(row.started_at),
    anchor: new Date(row.anchor),
    cancelAt: dateOrNull(row.cancel_at),
    canceledBy: row.canceled_by === 'merchant' || row.canceled_by === 'customer' ? row.canceled_by : null,
    announcedStatus: oneOf(
      SUBSCRIPTION_STATUSES,
      row.announced_status,
      `subscription ${row.id}'s announced status`,
    ),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    // Every row has one since migration 0050 (which gave the older rows theirs).
    portalToken: row.portal_token ?? '',
    planChange:
      row.pending_plan_id !== null && row.pending_plan_from !== null
        ? { planId: row.pending_plan_id, fromPeriod: Number(row.pending_plan_from) }
        : null,
  };
}

export interface PeriodPaymentRow {
  readonly subscription_id: string;
  readonly period: number;
  readonly payment_id: string;
  readonly reminded_at: string | null;
  readonly announced: string;
  readonly status: string;
  readonly paid_at: string | null;
}

export function toPeriodPayment(row: PeriodPaymentRow): PeriodPayment {
  return {
    period: Number(row.period),
    paymentId: row.payment_id,
    paymentStatus: row.status,
    paidAt: dateOrNull(row.paid_at),
    remindedAt: dateOrNull(row.reminded_at),
    announced: row.announced === 'paid' || row.announced === 'failed' ? row.announced : 'billed',
  };
}
