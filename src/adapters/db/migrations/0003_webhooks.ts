import { type Kysely, sql } from 'kysely';

/**
 * Webhook delivery. The outbox row (`events`) carries its own delivery state, so an event is owed a delivery
 * from the moment it is written — by whatever code writes it, in whatever transaction — with nothing else to
 * insert. `webhook_attempts` keeps one row per attempt (Svix's `messageattempt`): what was sent where, what
 * came back, when the next try is. Merchants gain the previous signing secret and the end of its overlap.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('events')
    .addColumn('delivery_status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`delivery_status in ('pending', 'delivering', 'delivered', 'failed', 'stopped')`),
    )
    .execute();
  // Attempts so far, all rounds: also the fencing token of a claim (a worker's result counts only if no one
  // has claimed the event again since).
  await db.schema
    .alterTable('events')
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Attempts in the current round (since the event was written or last resent): the position in the schedule.
  await db.schema
    .alterTable('events')
    .addColumn('schedule_step', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Null: never attempted, due at once.
  await db.schema.alterTable('events').addColumn('next_attempt_at', 'text').execute();
  // The lease of the worker delivering it; past this, the worker is presumed dead and the event is claimed again.
  await db.schema.alterTable('events').addColumn('claimed_until', 'text').execute();
  await db.schema.alterTable('events').addColumn('delivered_at', 'text').execute();
  await db.schema
    .createIndex('events_delivery_due')
    .on('events')
    .columns(['delivery_status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('events_merchant_created')
    .on('events')
    .columns(['merchant_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    // Null when no URL was configured at the time of the attempt.
    .addColumn('url', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    // Null while in flight.
    .addColumn('finished_at', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('status_code', 'integer')
    .addColumn('outcome', 'text', (c) =>
      c.check(sql`outcome in ('delivered', 'retry', 'stopped', 'failed', 'abandoned')`),
    )
    .addColumn('error', 'text')
    // The first 4 KiB of the response body, for the merchant and the operator to see what their server said.
    .addColumn('response_body', 'text')
    .addColumn('next_attempt_at', 'text')
    // One row per (event, attempt number): no attempt is ever recorded — or claimed — twice.
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['event_id', 'attempt_number'])
    .execute();

  // During a rotation's overlap, webhooks carry a signature with this secret too.
  await db.schema.alterTable('merchants').addColumn('previous_webhook_secret', 'text').execute();
  await db.schema.alterTable('merchants').addColumn('previous_webhook_secret_until', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').dropColumn('previous_webhook_secret_until').execute();
  await db.schema.alterTable('merchants').dropColumn('previous_webhook_secret').execute();
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropIndex('events_merchant_created').execute();
  await db.schema.dropIndex('events_delivery_due').execute();
  for (const column of [
    'delivered_at',
    'claimed_until',
    'next_attempt_at',
    'schedule_step',
    'attempt_count',
    'delivery_status',
  ]) {
    await db.schema.alterTable('events').dropColumn(column).execute();
  }
}
