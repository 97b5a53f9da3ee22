import { type Kysely, sql } from 'kysely';

/**
 * Webhook endpoints and the events API (docs/decisions/0058-webhook-endpoints-and-events.md).
 *
 * `webhook_endpoints`: a merchant's endpoints of one mode, each with its URL, its own signing secret (and the one
 * a rotation replaced, signing too until `previous_secret_until`), the event types it wants (`*`: all, else
 * space-separated), enabled or not; deleting one sets `deleted_at` (its deliveries keep their history).
 *
 * `webhook_deliveries`: what one event owes one endpoint, written with the event in its transaction, with its own
 * delivery state (as `events` carries the payment's or account's URL's), so each endpoint is retried and recorded
 * on its own; `webhook_delivery_attempts` keeps each attempt, as `webhook_attempts` does for the event's URL.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('event_types', 'text', (c) => c.notNull().defaultTo('*'))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1).check(sql`enabled in (0, 1)`))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  // A merchant's endpoints of one mode, in the order they were made: the list, and the fan-out of every event.
  await db.schema
    .createIndex('webhook_endpoints_merchant_mode')
    .on('webhook_endpoints')
    .columns(['merchant_id', 'mode', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    // `<event id>:<endpoint id>`: one delivery per event and endpoint, however often the fan-out runs.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    // The event's: deliveries are claimed oldest event first.
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivery_status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`delivery_status in ('pending', 'delivering', 'delivered', 'failed', 'stopped')`),
    )
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('schedule_step', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['delivery_status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .columns(['event_id', 'endpoint_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('webhook_delivery_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('status_code', 'integer')
    .addColumn('outcome', 'text', (c) =>
      c.check(sql`outcome in ('delivered', 'retry', 'stopped', 'failed', 'abandoned')`),
    )
    .addColumn('error', 'text')
    .addColumn('response_body', 'text')
    .addColumn('next_attempt_at', 'text')
    .addPrimaryKeyConstraint('webhook_delivery_attempts_pk', ['delivery_id', 'attempt_number'])
    .execute();

  // The events API lists a merchant's events by type too; (merchant_id, created_at) already serves the rest.
  await db.schema
    .createIndex('events_merchant_type_created')
    .on('events')
    .columns(['merchant_id', 'type', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_merchant_type_created').execute();
  await db.schema.dropTable('webhook_delivery_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
