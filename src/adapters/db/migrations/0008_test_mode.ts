import { type Kysely, sql } from 'kysely';

/**
 * Test mode: each payment records the mode of the API key that created it. Existing payments were all created
 * with live keys. Every merchant read filters on (merchant_id, mode), so the index leads with both, then
 * created_at for the listing's keyset order.
 *
 * Idempotency keys need no column: a test-mode key is stored under a prefix no client key can contain
 * (see adapters/db/idempotencyRepository.ts), which keeps the (merchant_id, key) primary key unchanged.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo(sql`'live'`))
    .execute();
  await db.schema
    .createIndex('payments_merchant_mode_created')
    .on('payments')
    .columns(['merchant_id', 'mode', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_merchant_mode_created').execute();
  await db.schema.alterTable('payments').dropColumn('mode').execute();
}
