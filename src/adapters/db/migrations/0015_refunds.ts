import { type Kysely, sql } from 'kysely';

/**
 * Refunds (docs/decisions/0013-refunds.md).
 * - `refunds`: what a merchant asked to send back, to whom once known, and what the merchant was last told.
 * - A refund's deposit address is a row of `payments` with `kind = 'refund'` and the refund's id: a payment in
 *   reverse (the customer is its only recipient, no commission), so the chain watcher, finality, the settler's
 *   batching, retries and crash recovery all apply to it unchanged. Every merchant-facing read of payments
 *   filters on `kind = 'payment'`.
 * - The idempotency key of a refund create is unique per (merchant, mode): the insert itself decides replay.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo(sql`'payment'`))
    .execute();
  await db.schema
    .createTable('refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('amount_base_units', 'text', (c) => c.notNull())
    // What the merchant asked, as asked: "overpaid", USDC, or the payment's currency.
    .addColumn('requested_amount', 'text', (c) => c.notNull())
    .addColumn('requested_currency', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('address', 'text')
    .addColumn('address_source', 'text')
    .addColumn('address_given_at', 'text')
    .addColumn('claim_expires_at', 'text', (c) => c.notNull())
    .addColumn('canceled_at', 'text')
    .addColumn('announced_status', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('refunds_payment')
    .on('refunds')
    .columns(['payment_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('refunds_merchant_mode_created')
    .on('refunds')
    .columns(['merchant_id', 'mode', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('refunds_idempotency')
    .on('refunds')
    .columns(['merchant_id', 'mode', 'idempotency_key'])
    .unique()
    .where(sql<boolean>`idempotency_key is not null`)
    .execute();
  // The announcer's queue (refundRepository.listDue): by what the merchant was last told.
  await db.schema
    .createIndex('refunds_announced')
    .on('refunds')
    .columns(['announced_status', 'claim_expires_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('refunds').execute();
  await db.schema.alterTable('payments').dropColumn('kind').execute();
}
