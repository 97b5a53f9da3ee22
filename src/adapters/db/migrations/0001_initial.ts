import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('wallet_address', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret', 'text', (c) => c.notNull())
    .addColumn('commission_bps', 'integer', (c) => c.notNull())
    .addColumn('underpayment_tolerance_bps', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('merchants_commission_bps', sql`commission_bps between 0 and 10000`)
    .addCheckConstraint('merchants_status', sql`status in ('active', 'disabled')`)
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_merchant_id').on('api_keys').column('merchant_id').execute();

  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('amount_minor_units', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('exchange_rate', 'text', (c) => c.notNull())
    .addColumn('rate_source', 'text', (c) => c.notNull())
    .addColumn('rate_observed_at', 'text', (c) => c.notNull())
    .addColumn('usdc_amount_base_units', 'text', (c) => c.notNull())
    .addColumn('commission_bps', 'integer', (c) => c.notNull())
    .addColumn('commission_base_units', 'text', (c) => c.notNull())
    .addColumn('merchant_share_base_units', 'text', (c) => c.notNull())
    .addColumn('underpayment_tolerance_bps', 'integer', (c) => c.notNull())
    .addColumn('payout_address', 'text', (c) => c.notNull())
    .addColumn('webhook_url', 'text')
    .addColumn('order_id', 'text')
    .addColumn('customer_email', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount_received_base_units', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text')
    .addColumn('late', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payments_merchant_created')
    .on('payments')
    .columns(['merchant_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('payments_merchant_order')
    .on('payments')
    .columns(['merchant_id', 'order_id'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payments').execute();
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('merchants').execute();
}
