import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { OutboxEvent } from '../../app/chain/ports.ts';
import type {
  EndpointDeliveryRecord,
  WebhookAttemptResult,
  WebhookDeliveryUpdate,
  WebhookJob,
} from '../../app/webhooks/ports.ts';
import { endpointWants, eventTypesOf } from '../../domain/webhookEndpoint.ts';
import type { Db, DialectName } from './db.ts';
import { leaseDue } from './leaseClaim.ts';
import type { DatabaseSchema } from './schema.ts';
import * as deliveryState from './webhookDeliveryState.ts';

// What an event owes each of the merchant's webhook endpoints (decision 0058): written with the event, claimed,
// attempted and recorded apart from the delivery the event itself carries (the payment's or account's URL).

/**
 * In the event's own transaction: one delivery for each endpoint of the merchant, of the mode of the event's
 * timeline (its payment's, or its subscription's: decision 0063), that is enabled and wants the event's type. An
 * endpoint made or enabled later does not receive earlier events (the events API has them).
 */
export async function insertEndpointDeliveries(trx: Db, event: OutboxEvent): Promise<void> {
  const timeline =
    event.paymentId !== null
      ? await trx.selectFrom('payments').select('mode').where('id', '=', event.paymentId).executeTakeFirst()
      : await trx
          .selectFrom('subscriptions')
          .select('mode')
          .where('id', '=', event.subscriptionId ?? '')
          .executeTakeFirst();
  if (!timeline) return;
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'event_types'])
    .where('merchant_id', '=', event.merchantId)
    .where('mode', '=', timeline.mode as 'live' | 'test')
    .where('enabled', '=', 1)
    .where('deleted_at', 'is', null)
    .execute();
  const wanting = endpoints.filter((endpoint) =>
    endpointWants({ eventTypes: eventTypesOf(endpoint.event_types) }, event.type),
  );
  if (wanting.length === 0) return;
  await trx
    .insertInto('webhook_deliveries')
    .values(
      wanting.map((endpoint) => ({
        id: `${event.id}:${endpoint.id}`,
        event_id: event.id,
        endpoint_id: endpoint.id,
        created_at: event.createdAt.toISOString(),
      })),
    )
    .execute();
}

/**
 * Due: never attempted or its retry time reached, or leased by a worker whose lease ran out; and its endpoint
 * enabled and not deleted (a disabled endpoint's deliveries wait for it, a deleted one's are never sent).
 */
function isDue(
  eb: ExpressionBuilder<DatabaseSchema, 'webhook_deliveries'>,
  now: string,
): Expression<SqlBool> {
  return eb.and([
    eb.or([
      eb.and([
        eb('delivery_status', '=', 'pending'),
        eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]),
      ]),
      eb.and([eb('delivery_status', '=', 'delivering'), eb('claimed_until', '<=', now)]),
    ]),
    eb(
      'endpoint_id',
      'in',
      eb
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('enabled', '=', 1)
        .where('deleted_at', 'is', null),
    ),
  ]);
}

/** Leases up to `limit` due deliveries and records each attempt as started: the jobs to send. */
export async function claimEndpointDeliveries(
  trx: Db,
  claim: {
    readonly dialect: DialectName;
    readonly nowText: string;
    readonly leasedUntil: string;
    readonly limit: number;
  },
): Promise<WebhookJob[]> {
  if (claim.limit < 1) return [];
  const due = trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where((eb) => isDue(eb, claim.nowText));
  const ids = await leaseDue(
    trx,
    { table: 'webhook_deliveries', inFlight: { column: 'delivery_status', value: 'delivering' } },
    due,
    claim,
  );
  if (ids.length === 0) return [];
  await trx
    .updateTable('webhook_delivery_attempts')
    .set({ outcome: 'abandoned', error: deliveryState.ABANDONED, finished_at: claim.nowText })
    .where('delivery_id', 'in', ids)
    .where('finished_at', 'is', null)
    .execute();
  const jobs = await jobsOf(trx, ids);
  await trx
    .insertInto('webhook_delivery_attempts')
    .values(
      jobs.map((job) => ({
        delivery_id: job.delivery?.id ?? '',
        attempt_number: job.attemptNumber,
        url: job.url ?? '',
        started_at: claim.nowText,
      })),
    )
    .execute();
  return jobs;
}

async function jobsOf(trx: Db, deliveryIds: readonly string[]): Promise<WebhookJob[]> {
  const rows = await trx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select([
      'd.id as delivery_id',
      'd.endpoint_id',
      'd.attempt_count',
      'd.schedule_step',
      ...deliveryState.JOB_EVENT_COLUMNS,
      'w.url',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_until',
    ])
    .where('d.id', 'in', [...deliveryIds])
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
  return rows.map((row) =>
    deliveryState.jobOf(row, {
      delivery: { id: row.delivery_id, endpointId: row.endpoint_id },
      url: row.url,
      secret: row.secret,
      previousSecret: row.previous_secret,
      previousSecretUntil: row.previous_secret_until,
    }),
  );
}

/** Records an endpoint's attempt and, if the claim still holds, the delivery's next state; whether it held. */
export async function completeEndpointAttempt(
  trx: Db,
  deliveryId: string,
  attemptNumber: number,
  result: WebhookAttemptResult,
  next: WebhookDeliveryUpdate,
): Promise<boolean> {
  await trx
    .updateTable('webhook_delivery_attempts')
    .set(deliveryState.attemptResultColumns(result))
    .where('delivery_id', '=', deliveryId)
    .where('attempt_number', '=', attemptNumber)
    .execute();
  const updated = await trx
    .updateTable('webhook_deliveries')
    .set(deliveryState.nextStateColumns(next))
    .where('id', '=', deliveryId)
    .where('delivery_status', '=', 'delivering')
    // The fence: a later claim has incremented attempt_count, and then this result is history only.
    .where('attempt_count', '=', attemptNumber)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** An operator's resend: the event's endpoint deliveries not in flight start a fresh schedule too. */
export async function requeueEndpointDeliveries(db: Db, eventId: string, nowText: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set(deliveryState.resentColumns(nowText))
    .where('event_id', '=', eventId)
    .where((eb) =>
      eb.not(eb.and([eb('delivery_status', '=', 'delivering'), eb('claimed_until', '>', nowText)])),
    )
    .execute();
}

/** The events' endpoint deliveries, oldest first per event, each with its latest attempt (for the webhook log). */
export async function listEndpointDeliveries(
  db: Db,
  eventIds: readonly string[],
): Promise<EndpointDeliveryRecord[]> {
  if (eventIds.length === 0) return [];
  const rows = await deliveriesWithLastAttempt(db)
    .where('d.event_id', 'in', [...eventIds])
    .orderBy('d.event_id')
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
  return rows.map(toDeliveryRecord);
}

/** Every merchant's newest endpoint deliveries in this state, for the operators' failing endpoints. */
export async function listEndpointDeliveriesByStatus(
  db: Db,
  status: 'pending' | 'failed',
  limit: number,
): Promise<EndpointDeliveryRecord[]> {
  const rows = await deliveriesWithLastAttempt(db)
    .where('d.delivery_status', '=', status)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toDeliveryRecord);
}

function deliveriesWithLastAttempt(db: Db) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .leftJoin('webhook_delivery_attempts as a', (join) =>
      join.onRef('a.delivery_id', '=', 'd.id').onRef('a.attempt_number', '=', 'd.attempt_count'),
    )
    .select([
      'd.event_id',
      'd.endpoint_id',
      'd.delivery_status',
      'd.attempt_count',
      'e.merchant_id',
      'e.url as endpoint_url',
      'a.url as attempt_url',
      'a.started_at',
      'a.status_code',
      'a.error',
      'a.outcome',
    ]);
}

function toDeliveryRecord(
  row: Awaited<ReturnType<ReturnType<typeof deliveriesWithLastAttempt>['execute']>>[number],
): EndpointDeliveryRecord {
  return {
    eventId: row.event_id,
    merchantId: row.merchant_id,
    endpointId: row.endpoint_id,
    url: row.attempt_url ?? row.endpoint_url,
    ...deliveryState.stateFrom(row),
    lastAttempt:
      row.started_at === null
        ? null
        : deliveryState.attemptAnswerFrom({ ...row, started_at: row.started_at }),
  };
}
