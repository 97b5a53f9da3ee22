import type { Kysely } from 'kysely';

/**
 * For the dashboard (decision 0014): it finds a payment by the hash of a transaction that paid it (an index on
 * `transfers.tx_hash`, so that search reads a few rows, not the table), and lists every merchant's payments,
 * newest first, for operators (an index on `payments (mode, created_at)`, as one merchant's has its own).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('transfers_tx_hash').on('transfers').column('tx_hash').execute();
  await db.schema
    .createIndex('payments_mode_created')
    .on('payments')
    .columns(['mode', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_mode_created').execute();
  await db.schema.dropIndex('transfers_tx_hash').execute();
}
