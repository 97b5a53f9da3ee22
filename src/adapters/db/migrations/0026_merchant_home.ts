import type { Kysely } from 'kysely';

/**
 * A merchant's home page (docs/decisions/0026-merchant-home.md) sums what was paid today and this month: an
 * index on `payments (merchant_id, mode, paid_at)` makes that a range read of the merchant's paid payments of
 * the window, whatever the merchant's history (the listing's index is by creation, not by payment).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('payments_merchant_mode_paid')
    .on('payments')
    .columns(['merchant_id', 'mode', 'paid_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_merchant_mode_paid').execute();
}
