import type { Kysely } from 'kysely';

/**
 * Subscriptions (decision 0060): `subscription_plans` (a merchant's terms, never changed once made: archived,
 * not edited), `subscriptions` (a plan bought by a customer; its status derived, `announced_status` only what
 * the last event said) and `subscription_payments`, each billed period's ordinary payment: the primary key
 * (subscription, period) is what makes one payment per period however many workers bill it. The renewal job
 * claims subscriptions whose `next_check_at` is due with a lease (`claimed_until`), as the outboxes' rows are.
 * A create's Idempotency-Key is kept on the row it made (as a refund's), unique per merchant and mode.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscription_plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_minor_units', 'text', (c) => c.notNull())
    .addColumn('interval_unit', 'text', (c) => c.notNull())
    .addColumn('interval_count', 'integer', (c) => c.notNull())
    .addColumn('trial_days', 'integer', (c) => c.notNull())
    .addColumn('grace_days', 'integer', (c) => c.notNull())
    .addColumn('periods', 'integer')
    .addColumn('archived_at', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // A merchant's plans of one mode, newest first: the listing's keyset.
  await db.schema
    .createIndex('subscription_plans_merchant_created')
    .on('subscription_plans')
    .columns(['merchant_id', 'mode', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('subscription_plans_idempotency')
    .on('subscription_plans')
    .columns(['merchant_id', 'mode', 'idempotency_key'])
    .unique()
    .execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('plan_id', 'text', (c) => c.notNull().references('subscription_plans.id'))
    .addColumn('customer_email', 'text', (c) => c.notNull())
    .addColumn('customer_wallet', 'text')
    .addColumn('language', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('anchor', 'text', (c) => c.notNull())
    .addColumn('cancel_at', 'text')
    .addColumn('canceled_by', 'text')
    .addColumn('announced_status', 'text', (c) => c.notNull())
    .addColumn('next_check_at', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscriptions_merchant_created')
    .on('subscriptions')
    .columns(['merchant_id', 'mode', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('subscriptions_idempotency')
    .on('subscriptions')
    .columns(['merchant_id', 'mode', 'idempotency_key'])
    .unique()
    .execute();
  // The renewal job's one read: what is due to be looked at. A finished subscription's is null.
  await db.schema
    .createIndex('subscriptions_next_check')
    .on('subscriptions')
    .column('next_check_at')
    .execute();

  await db.schema
    .createTable('subscription_payments')
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id'))
    .addColumn('period', 'integer', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull().unique().references('payments.id'))
    .addColumn('reminded_at', 'text')
    // What the subscription's events said of this period's payment so far: billed, paid or failed.
    .addColumn('announced', 'text', (c) => c.notNull().defaultTo('billed'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscription_payments_pkey', ['subscription_id', 'period'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('subscription_payments').execute();
  await db.schema.dropTable('subscriptions').execute();
  await db.schema.dropTable('subscription_plans').execute();
}
