import type { Kysely } from 'kysely';

/**
 * The dashboard finds a payment by the hash of a transaction that paid it (decision 0014): an index on
 * `transfers.tx_hash`, so that search reads a few rows, not the table.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('transfers_tx_hash').on('transfers').column('tx_hash').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transfers_tx_hash').execute();
}
