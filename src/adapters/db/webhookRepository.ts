import { type Expression, type ExpressionBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import type {
  WebhookAttemptRecord,
  WebhookAttemptResult,
  WebhookDeliveryUpdate,
  WebhookEventFilter,
  WebhookEventRecord,
  WebhookJob,
  WebhookStore,
} from '../../app/webhooks/ports.ts';
import type { DatabaseHandle } from './database.ts';
import type { Db, DialectName } from './db.ts';
import {
  claimEndpointDeliveries,
  completeEndpointAttempt,
  listEndpointDeliveries,
  listEndpointDeliveriesByStatus,
  requeueEndpointDeliveries,
} from './endpointDeliveries.ts';
import { eventsOfMode } from './eventTimeline.ts';
import { leaseDue, leaseWindow } from './leaseClaim.ts';
import { newestFirst } from './logListing.ts';
import { toOutboxEvent } from './outbox.ts';
import type { DatabaseSchema, EventsTable, WebhookAttemptsTable } from './schema.ts';
import { dateOrNull } from './storedValues.ts';
import * as deliveryState from './webhookDeliveryState.ts';

function toEventRecord(row: Selectable<EventsTable>): WebhookEventRecord {
  return {
    ...toOutboxEvent(row),
    ...deliveryState.stateFrom(row),
    nextAttemptAt: dateOrNull(row.next_attempt_at),
    deliveredAt: dateOrNull(row.delivered_at),
  };
}

function toAttemptRecord(row: Selectable<WebhookAttemptsTable>): WebhookAttemptRecord {
  return {
    eventId: row.event_id,
    attemptNumber: Number(row.attempt_number),
    url: row.url,
    ...deliveryState.attemptAnswerFrom(row),
    finishedAt: dateOrNull(row.finished_at),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    responseBody: row.response_body,
    nextAttemptAt: dateOrNull(row.next_attempt_at),
  };
}

/** Due: never attempted or its retry time reached, or leased by a worker whose lease has run out. */
function isDue(eb: ExpressionBuilder<DatabaseSchema, 'events'>, now: string): Expression<SqlBool> {
  return eb.or([
    eb.and([
      eb('delivery_status', '=', 'pending'),
      eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]),
    ]),
    eb.and([eb('delivery_status', '=', 'delivering'), eb('claimed_until', '<=', now)]),
  ]);
}

/** Bound on one IN list (both dialects allow far more; this keeps statements small). */
const MAX_IDS = 500;

export function webhookRepository(handle: DatabaseHandle): WebhookStore {
  const { db, dialect } = handle;
  return {
    claimDue: (now, limit, leaseMs) => claimDue(db, dialect, now, limit, leaseMs),
    completeAttempt: (job, result, next) => completeAttempt(db, job, result, next),
    listEvents: (filter) => listEvents(db, filter),
    findEvent: (eventId) => findEvent(db, eventId),
    listAttempts: (eventIds, limit) => listAttempts(db, eventIds, limit),
    listEndpointDeliveries: (eventIds) => listEndpointDeliveries(db, eventIds),
    listEndpointDeliveriesByStatus: (status, limit) => listEndpointDeliveriesByStatus(db, status, limit),
    requeue: (eventId, now) => requeue(db, eventId, now),
    rotateSecret: (merchantId, newSecret, previousUntil, now) =>
      rotateSecret(db, merchantId, newSecret, previousUntil, now),
  };
}

async function claimDue(
  db: Db,
  dialect: DialectName,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<WebhookJob[]> {
  const { nowText, leasedUntil } = leaseWindow(now, limit, MAX_IDS, leaseMs);
  return db.transaction().execute(async (trx) => {
    // The events' own deliveries and the endpoints' share the claim: half each when both have work, the
    // rest to whichever has more, so a backlog of one kind never starves the other.
    const eventShare = Math.ceil(limit / 2);
    const ids = await leaseDueEvents(trx, dialect, nowText, leasedUntil, eventShare);
    const endpointJobs = await claimEndpointDeliveries(trx, {
      dialect,
      nowText,
      leasedUntil,
      limit: limit - ids.length,
    });
    const room = limit - ids.length - endpointJobs.length;
    if (ids.length === eventShare && room > 0) {
      ids.push(...(await leaseDueEvents(trx, dialect, nowText, leasedUntil, room)));
    }
    return [...(await startEventAttempts(trx, ids, nowText)), ...endpointJobs];
  });
}

/** The claimed events' jobs, each attempt recorded as started (an open one of a lost lease as abandoned). */
async function startEventAttempts(trx: Db, ids: readonly string[], nowText: string): Promise<WebhookJob[]> {
  if (ids.length === 0) return [];
  await abandonOpenAttempts(trx, ids, nowText);
  const jobs = await jobsOf(trx, ids);
  await trx
    .insertInto('webhook_attempts')
    .values(
      jobs.map((job) => ({
        event_id: job.eventId,
        attempt_number: job.attemptNumber,
        url: job.url,
        started_at: nowText,
      })),
    )
    .execute();
  return jobs;
}

/** Leases the oldest due events to this worker (counting the attempt it is about to make); their ids. */
async function leaseDueEvents(
  trx: Db,
  dialect: DialectName,
  nowText: string,
  leasedUntil: string,
  limit: number,
): Promise<string[]> {
  const due = trx
    .selectFrom('events')
    .select('id')
    .where((eb) => isDue(eb, nowText));
  return leaseDue(
    trx,
    { table: 'events', inFlight: { column: 'delivery_status', value: 'delivering' } },
    due,
    {
      limit,
      dialect,
      leasedUntil,
    },
  );
}

/**
 * An attempt still open on a claimed event belongs to a worker whose lease ran out: it will never report, so
 * say so rather than leave it looking in flight forever.
 */
async function abandonOpenAttempts(trx: Db, eventIds: readonly string[], nowText: string): Promise<void> {
  await trx
    .updateTable('webhook_attempts')
    .set({ outcome: 'abandoned', error: deliveryState.ABANDONED, finished_at: nowText })
    .where('event_id', 'in', [...eventIds])
    .where('finished_at', 'is', null)
    .execute();
}

/**
 * What a worker needs to send each claimed event: its URL (the payment's own, else the merchant's default; an event
 * on a subscription's own timeline has no payment, so the default: decision 0063) and the signing secrets.
 */
async function jobsOf(trx: Db, eventIds: readonly string[]): Promise<WebhookJob[]> {
  const rows = await trx
    .selectFrom('events as e')
    .leftJoin('payments as p', 'p.id', 'e.payment_id')
    .innerJoin('merchants as m', 'm.id', 'e.merchant_id')
    .select([
      ...deliveryState.JOB_EVENT_COLUMNS,
      'e.attempt_count',
      'e.schedule_step',
      'p.webhook_url as payment_webhook_url',
      'm.webhook_url as merchant_webhook_url',
      'm.webhook_secret',
      'm.previous_webhook_secret',
      'm.previous_webhook_secret_until',
    ])
    .where('e.id', 'in', [...eventIds])
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
  return rows.map((row) =>
    deliveryState.jobOf(row, {
      delivery: null,
      url: row.payment_webhook_url ?? row.merchant_webhook_url,
      secret: row.webhook_secret,
      previousSecret: row.previous_webhook_secret,
      previousSecretUntil: row.previous_webhook_secret_until,
    }),
  );
}

async function completeAttempt(
  db: Db,
  job: WebhookJob,
  result: WebhookAttemptResult,
  next: WebhookDeliveryUpdate,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (job.delivery) {
      return completeEndpointAttempt(trx, job.delivery.id, job.attemptNumber, result, next);
    }
    await trx
      .updateTable('webhook_attempts')
      .set(deliveryState.attemptResultColumns(result))
      .where('event_id', '=', job.eventId)
      .where('attempt_number', '=', job.attemptNumber)
      .execute();
    const updated = await trx
      .updateTable('events')
      .set(deliveryState.nextStateColumns(next))
      .where('id', '=', job.eventId)
      .where('delivery_status', '=', 'delivering')
      // The fence: a later claim has incremented attempt_count, and then this result is history only.
      .where('attempt_count', '=', job.attemptNumber)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  });
}

async function listEvents(db: Db, filter: WebhookEventFilter): Promise<WebhookEventRecord[]> {
  let query = newestFirst(db.selectFrom('events').selectAll(), filter.limit);
  if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
  if (filter.paymentId !== undefined) query = query.where('payment_id', '=', filter.paymentId);
  if (filter.status !== undefined) query = query.where('delivery_status', '=', filter.status);
  // An event has the mode of its timeline (a payment or a subscription): a test key lists only test events.
  if (filter.mode !== undefined) {
    const { mode, merchantId } = filter;
    query = query.where((eb) => eventsOfMode(eb, mode, merchantId));
  }
  return (await query.execute()).map(toEventRecord);
}

async function findEvent(db: Db, eventId: string): Promise<WebhookEventRecord | undefined> {
  const row = await db.selectFrom('events').selectAll().where('id', '=', eventId).executeTakeFirst();
  return row && toEventRecord(row);
}

async function listAttempts(
  db: Db,
  eventIds: readonly string[],
  limit: number,
): Promise<WebhookAttemptRecord[]> {
  if (eventIds.length === 0) return [];
  if (eventIds.length > MAX_IDS) throw new RangeError('too many events');
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('event_id', 'in', [...eventIds])
    .orderBy('event_id')
    .orderBy('attempt_number')
    .limit(limit)
    .execute();
  return rows.map(toAttemptRecord);
}

async function requeue(db: Db, eventId: string, now: Date): Promise<'requeued' | 'in_flight' | 'not_found'> {
  const nowText = now.toISOString();
  const updated = await db
    .updateTable('events')
    .set(deliveryState.resentColumns(nowText))
    .where('id', '=', eventId)
    .where((eb) =>
      eb.not(eb.and([eb('delivery_status', '=', 'delivering'), eb('claimed_until', '>', nowText)])),
    )
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 1) {
    await requeueEndpointDeliveries(db, eventId, nowText);
    return 'requeued';
  }
  const exists = await db.selectFrom('events').select('id').where('id', '=', eventId).executeTakeFirst();
  return exists ? 'in_flight' : 'not_found';
}

async function rotateSecret(
  db: Db,
  merchantId: string,
  newSecret: string,
  previousUntil: Date,
  now: Date,
): Promise<boolean> {
  // SET reads the row as it was: the previous secret becomes the one being replaced, in one statement.
  const updated = await db
    .updateTable('merchants')
    .set({
      previous_webhook_secret: sql<string>`webhook_secret`,
      previous_webhook_secret_until: previousUntil.toISOString(),
      webhook_secret: newSecret,
      updated_at: now.toISOString(),
    })
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
