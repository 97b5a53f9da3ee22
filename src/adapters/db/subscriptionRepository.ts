import type { Kysely } from 'kysely';
import type {
  SubscriptionRecord,
  SubscriptionRelease,
  SubscriptionStore,
} from '../../app/subscriptions/ports.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PlanChange, Subscription } from '../../domain/subscription.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import { isoTimestamp } from '../../domain/timestamp.ts';
import type { DatabaseHandle, Db, DialectName } from './database.ts';
import { insertEmailMessage } from './emailOutbox.ts';
import { insertOnce } from './idempotentInsert.ts';
import { claimable } from './leaseClaim.ts';
import { insertOutboxEvent } from './outbox.ts';
import { paymentRow, referenceChecked } from './paymentRepository.ts';
import type { DatabaseSchema } from './schema.ts';
import {
  type PeriodPaymentRow,
  planRow,
  subscriptionRow,
  toPeriodPayment,
  toPlan,
  toSubscription,
} from './subscriptionRows.ts';

/** Subscriptions claimed by one renewal pass at most. */
export const MAX_RENEWAL_CLAIM = 100;

async function findPlanById(db: Db, id: string): Promise<SubscriptionPlan | undefined> {
  const row = await db.selectFrom('subscription_plans').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toPlan(row) : undefined;
}

async function findPlan(db: Db, merchantId: string, id: string, mode: KeyMode) {
  const plan = await findPlanById(db, id);
  return plan && plan.merchantId === merchantId && plan.mode === mode ? plan : undefined;
}

/** Newest first (created_at, then id), after a keyset position: a plans' or subscriptions' page. */
function newestFirst<T extends 'subscription_plans' | 'subscriptions'>(
  db: Db,
  table: T,
  query: Parameters<SubscriptionStore['listPlans']>[0],
) {
  let select = db
    .selectFrom(table as 'subscriptions')
    .select('id')
    .where('merchant_id', '=', query.merchantId)
    .where('mode', '=', query.mode);
  const { after } = query;
  if (after !== undefined) {
    const createdAt = after.createdAt.toISOString();
    select = select
      .where('created_at', '<=', createdAt)
      .where((eb) =>
        eb.or([
          eb('created_at', '<', createdAt),
          eb.and([eb('created_at', '=', createdAt), eb('id', '<', after.id)]),
        ]),
      );
  }
  return select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit);
}

async function archivePlan(db: Db, merchantId: string, id: string, mode: KeyMode, at: Date) {
  await db
    .updateTable('subscription_plans')
    .set({ archived_at: isoTimestamp(at) })
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('archived_at', 'is', null)
    .execute();
  return findPlan(db, merchantId, id, mode);
}

/** A subscription with its plan and its billed periods (each period's payment's stored status). */
async function findRecord(db: Db, id: string): Promise<SubscriptionRecord | undefined> {
  const row = await db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const plan = await findPlanById(db, row.plan_id);
  if (!plan) throw new Error(`subscription ${id} names a missing plan`);
  const nextPlan =
    row.pending_plan_id === null ? null : ((await findPlanById(db, row.pending_plan_id)) ?? null);
  const periods: PeriodPaymentRow[] = await db
    .selectFrom('subscription_payments as s')
    .innerJoin('payments as p', 'p.id', 's.payment_id')
    .select([
      's.subscription_id',
      's.period',
      's.payment_id',
      's.reminded_at',
      's.announced',
      'p.status',
      'p.paid_at',
    ])
    .where('s.subscription_id', '=', id)
    .orderBy('s.period')
    .execute();
  return { subscription: toSubscription(row), plan, nextPlan, periods: periods.map(toPeriodPayment) };
}

async function findForMerchant(db: Db, merchantId: string, id: string, mode: KeyMode) {
  const record = await findRecord(db, id);
  const sub = record?.subscription;
  return sub && sub.merchantId === merchantId && sub.mode === mode ? record : undefined;
}

async function cancel(
  db: Db,
  id: string,
  request: { readonly at: Date; readonly by: 'merchant' | 'customer' },
  now: Date,
): Promise<SubscriptionRecord | undefined> {
  const at = isoTimestamp(request.at);
  // An earlier cancellation stands: asking again to cancel at period end never postpones one asked at once.
  await db
    .updateTable('subscriptions')
    .set({
      cancel_at: at,
      canceled_by: request.by,
      next_check_at: isoTimestamp(now),
      updated_at: isoTimestamp(now),
    })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('cancel_at', 'is', null), eb('cancel_at', '>', at)]))
    .execute();
  return findRecord(db, id);
}

/** A plan change recorded or withdrawn: the renewal job looks at once, as after a cancellation. */
async function setPlanChange(db: Db, id: string, change: PlanChange | null, now: Date) {
  await db
    .updateTable('subscriptions')
    .set({
      pending_plan_id: change?.planId ?? null,
      pending_plan_from: change?.fromPeriod ?? null,
      next_check_at: isoTimestamp(now),
      updated_at: isoTimestamp(now),
    })
    .where('id', '=', id)
    .execute();
  return findRecord(db, id);
}

/** The pending plan becomes the plan, only if it is still the change pending (a newer one is not overwritten). */
async function applyPlanChange(db: Db, id: string, change: PlanChange, now: Date) {
  const rows = await db
    .updateTable('subscriptions')
    .set({
      plan_id: change.planId,
      pending_plan_id: null,
      pending_plan_from: null,
      updated_at: isoTimestamp(now),
    })
    .where('id', '=', id)
    .where('pending_plan_id', '=', change.planId)
    .where('pending_plan_from', '=', change.fromPeriod)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** Subscriptions still running, soonest next look first: the operator console's list. */
async function listRunning(db: Db, limit: number) {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RUNNING_LIST)
    throw new RangeError('bad running list limit');
  const rows = await db
    .selectFrom('subscriptions')
    .select('id')
    .where('next_check_at', 'is not', null)
    .orderBy('next_check_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  const records = await Promise.all(rows.map((row) => findRecord(db, row.id)));
  return records.filter((record): record is SubscriptionRecord => record !== undefined);
}

/** The operator console's list at most. */
export const MAX_RUNNING_LIST = 500;

async function claimDue(db: Db, dialect: DialectName, now: Date, limit: number, leaseMs: number) {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RENEWAL_CLAIM)
    throw new RangeError('bad claim limit');
  const nowText = isoTimestamp(now);
  const leasedUntil = isoTimestamp(new Date(now.getTime() + leaseMs));
  return db.transaction().execute(async (trx) => {
    const due = trx
      .selectFrom('subscriptions')
      .select('id')
      .where('next_check_at', '<=', nowText)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', nowText)]));
    const rows = await trx
      .updateTable('subscriptions')
      .set({ claimed_until: leasedUntil })
      .where('id', 'in', claimable(due, limit, dialect))
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  });
}

/** Thrown inside a period payment's transaction to roll it back: another insert billed the period first. */
class PeriodTaken extends Error {}

async function insertPeriodPayment(
  db: Db,
  payment: Payment,
  subscriptionId: string,
  period: number,
  email: Parameters<SubscriptionStore['insertPeriodPayment']>[3],
): Promise<boolean> {
  const inserted = db
    .transaction()
    .execute(async (trx) => {
      await trx.insertInto('payments').values(paymentRow(payment)).execute();
      // The period's primary key decides between two workers: on PostgreSQL the second waits for the first's
      // commit here, then finds the period taken and rolls its payment back with it.
      const claimed = await trx
        .insertInto('subscription_payments')
        .values({
          subscription_id: subscriptionId,
          period,
          payment_id: payment.id,
          reminded_at: null,
          created_at: isoTimestamp(payment.createdAt),
        })
        .onConflict((oc) => oc.columns(['subscription_id', 'period']).doNothing())
        .returning('period')
        .execute();
      if (claimed.length === 0) throw new PeriodTaken();
      if (email) await insertEmailMessage(trx, email);
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof PeriodTaken) return false;
      throw error;
    });
  await referenceChecked(payment, inserted);
  return inserted;
}

async function remind(
  db: Db,
  subscriptionId: string,
  period: number,
  email: Parameters<SubscriptionStore['remind']>[2],
  at: Date,
) {
  return db.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable('subscription_payments')
      .set({ reminded_at: isoTimestamp(at) })
      .where('subscription_id', '=', subscriptionId)
      .where('period', '=', period)
      .where('reminded_at', 'is', null)
      .returning('period')
      .execute();
    if (marked.length === 0) return false;
    if (email) await insertEmailMessage(trx, email);
    return true;
  });
}

async function claimOne(db: Db, id: string, now: Date, leaseMs: number): Promise<boolean> {
  const nowText = isoTimestamp(now);
  const rows = await db
    .updateTable('subscriptions')
    .set({ claimed_until: isoTimestamp(new Date(now.getTime() + leaseMs)) })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', nowText)]))
    .returning('id')
    .execute();
  return rows.length > 0;
}

async function release(db: Db, id: string, change: SubscriptionRelease, at: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('subscriptions')
      .select('updated_at')
      .where('id', '=', id)
      .executeTakeFirst();
    const changedMeanwhile = row !== undefined && row.updated_at !== isoTimestamp(change.seenUpdatedAt);
    const next = changedMeanwhile ? at : change.nextCheckAt;
    await trx
      .updateTable('subscriptions')
      .set({
        next_check_at: next ? isoTimestamp(next) : null,
        announced_status: change.announcedStatus,
        claimed_until: null,
        updated_at: isoTimestamp(at),
      })
      .where('id', '=', id)
      .execute();
    for (const { period, announced } of change.periods)
      await trx
        .updateTable('subscription_payments')
        .set({ announced })
        .where('subscription_id', '=', id)
        .where('period', '=', period)
        .execute();
    for (const event of change.events) await insertOutboxEvent(trx as Kysely<DatabaseSchema>, event);
  });
}

/** Plans and subscriptions on either dialect. */
export function subscriptionRepository(handle: DatabaseHandle): SubscriptionStore {
  const { db, dialect } = handle;
  return {
    insertPlan: (plan, idempotency) =>
      insertOnce(db, 'subscription_plans', plan, planRow(plan), idempotency, (id) => findPlanById(db, id)),
    findPlan: (merchantId, id, mode) => findPlan(db, merchantId, id, mode),
    async listPlans(query) {
      const rows = await newestFirst(db, 'subscription_plans', query).execute();
      return (await Promise.all(rows.map((row) => findPlanById(db, row.id)))).filter(
        (plan): plan is SubscriptionPlan => plan !== undefined,
      );
    },
    archivePlan: (merchantId, id, mode, at) => archivePlan(db, merchantId, id, mode, at),
    insertSubscription: (sub: Subscription, nextCheckAt, idempotency, events) =>
      insertOnce(
        db,
        'subscriptions',
        sub,
        subscriptionRow(sub, nextCheckAt),
        idempotency,
        async (id) => (await findRecord(db, id))?.subscription,
        events,
      ),
    find: (id) => findRecord(db, id),
    findForMerchant: (merchantId, id, mode) => findForMerchant(db, merchantId, id, mode),
    async list(query) {
      const rows = await newestFirst(db, 'subscriptions', query).execute();
      return (await Promise.all(rows.map((row) => findRecord(db, row.id)))).filter(
        (record): record is SubscriptionRecord => record !== undefined,
      );
    },
    cancel: (id, request, now) => cancel(db, id, request, now),
    findPlanById: (id) => findPlanById(db, id),
    async findByPortalToken(token) {
      const row = await db
        .selectFrom('subscriptions')
        .select('id')
        .where('portal_token', '=', token)
        .executeTakeFirst();
      return row ? findRecord(db, row.id) : undefined;
    },
    listRunning: (limit) => listRunning(db, limit),
    setPlanChange: (id, change, now) => setPlanChange(db, id, change, now),
    applyPlanChange: (id, change, now) => applyPlanChange(db, id, change, now),
    claimDue: (now, limit, leaseMs) => claimDue(db, dialect, now, limit, leaseMs),
    claimOne: (id, now, leaseMs) => claimOne(db, id, now, leaseMs),
    insertPeriodPayment: (payment, id, period, email) => insertPeriodPayment(db, payment, id, period, email),
    remind: (id, period, email, at) => remind(db, id, period, email, at),
    release: (id, change, at) => release(db, id, change, at),
  };
}
