import type { Kysely } from 'kysely';

/**
 * `payments_merchant_created` (merchant_id, created_at) has served no query since test mode: every merchant read
 * filters on the mode too, and `payments_merchant_mode_created` (0008) leads with both. Each index is written by
 * every payment created, so it goes.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_merchant_created').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('payments_merchant_created')
    .on('payments')
    .columns(['merchant_id', 'created_at'])
    .execute();
}
