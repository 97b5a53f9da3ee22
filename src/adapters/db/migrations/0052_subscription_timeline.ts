import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * A subscription's own timeline of events (docs/decisions/0063-subscription-timeline.md). An event is on one
 * timeline: a payment's (`payment_id`, as every event so far) or, new, a subscription's (`subscription_id`), for
 * a change of a subscription that no period's payment carries (`subscription.created` at its creation, a
 * cancellation in its trial). So `payment_id` may be null, `subscription_id` is added, exactly one of the two is
 * set (a check), and `sequence` numbers the events of each timeline (unique per subscription as per payment).
 *
 * PostgreSQL alters the table in place. SQLite cannot drop a NOT NULL nor add a check to a table: the table is
 * made again under its own name with every row, column and index, foreign keys set aside meanwhile (SQLite's own
 * procedure), because `webhook_attempts` and `webhook_deliveries` refer to it and dropping the old table with
 * them on would delete or refuse.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table events alter column payment_id drop not null`.execute(db);
    await sql`alter table events add column subscription_id text references subscriptions (id)`.execute(db);
    await sql`alter table events add constraint events_one_timeline check (${sql.raw(ONE_TIMELINE)})`.execute(
      db,
    );
  } else {
    await rebuildOnSqlite(db, { nullablePayment: true });
  }
  await db.schema
    .createIndex('events_subscription_sequence')
    .on('events')
    .columns(['subscription_id', 'sequence'])
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  // Events of no payment cannot stay in a table whose every event has one: they go, with their deliveries.
  const orphans = db.selectFrom('events').select('id').where('payment_id', 'is', null);
  const orphanDeliveries = db.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', orphans);
  await db.deleteFrom('webhook_delivery_attempts').where('delivery_id', 'in', orphanDeliveries).execute();
  await db.deleteFrom('webhook_deliveries').where('event_id', 'in', orphans).execute();
  await db.deleteFrom('webhook_attempts').where('event_id', 'in', orphans).execute();
  await db.deleteFrom('events').where('payment_id', 'is', null).execute();
  await db.schema.dropIndex('events_subscription_sequence').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table events drop constraint events_one_timeline`.execute(db);
    await sql`alter table events drop column subscription_id`.execute(db);
    await sql`alter table events alter column payment_id set not null`.execute(db);
  } else {
    await rebuildOnSqlite(db, { nullablePayment: false });
  }
}

/** Exactly one timeline: a payment's or a subscription's. */
const ONE_TIMELINE = '(payment_id is null) <> (subscription_id is null)';

/** The columns `events` had at migration 0051, in order. */
const COLUMNS_AT_0051 = [
  'id',
  'payment_id',
  'merchant_id',
  'sequence',
  'type',
  'payload',
  'created_at',
  'delivery_status',
  'attempt_count',
  'schedule_step',
  'next_attempt_at',
  'claimed_until',
  'delivered_at',
];

/** The events of the index of migration 0026, written as its query writes them. */
const UNDELIVERED = "delivery_status in ('pending', 'delivering', 'failed')";

/**
 * `events` made again on SQLite, every row kept: with a nullable `payment_id`, `subscription_id` and the check
 * (up), or as migration 0051 left it (down). Foreign keys are off meanwhile and checked before they are on again.
 */
// biome-ignore lint/suspicious/noExplicitAny: see up()
async function rebuildOnSqlite(db: Kysely<any>, shape: { readonly nullablePayment: boolean }): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      let table = trx.schema
        .createTable('events_rebuilt')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('payment_id', 'text', (c) =>
          shape.nullablePayment ? c.references('payments.id') : c.notNull().references('payments.id'),
        )
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('sequence', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
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
        .addColumn('delivered_at', 'text');
      if (shape.nullablePayment)
        table = table
          .addColumn('subscription_id', 'text', (c) => c.references('subscriptions.id'))
          .addCheckConstraint('events_one_timeline', sql.raw(ONE_TIMELINE));
      await table.addUniqueConstraint('events_payment_sequence', ['payment_id', 'sequence']).execute();
      const columns = sql.join(COLUMNS_AT_0051.map((column) => sql.ref(column)));
      await sql`insert into events_rebuilt (${columns}) select ${columns} from events`.execute(trx);
      await trx.schema.dropTable('events').execute();
      await trx.schema.alterTable('events_rebuilt').renameTo('events').execute();
      await trx.schema
        .createIndex('events_delivery_due')
        .on('events')
        .columns(['delivery_status', 'next_attempt_at'])
        .execute();
      await trx.schema
        .createIndex('events_merchant_created')
        .on('events')
        .columns(['merchant_id', 'created_at'])
        .execute();
      await trx.schema
        .createIndex('events_merchant_undelivered')
        .on('events')
        .columns(['merchant_id', 'created_at'])
        .where(sql.raw<boolean>(UNDELIVERED))
        .execute();
      await trx.schema
        .createIndex('events_merchant_type_created')
        .on('events')
        .columns(['merchant_id', 'type', 'created_at'])
        .execute();
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error('events rebuilt with a broken foreign key');
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
