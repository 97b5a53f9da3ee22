import { type Kysely, sql } from 'kysely';

/**
 * A merchant's home page (docs/decisions/0026-merchant-home.md) sums what was paid today and this month: an
 * index on `payments (merchant_id, mode, paid_at)` makes that a range read of the merchant's paid payments of
 * the window, whatever the merchant's history (the listing's index is by creation, not by payment). Its
 * delayed payouts are read on a partial index that only delayed payouts fill, led by the merchant: the
 * service-wide `payments_payout_blocked` has no merchant, and planners prefer the merchant's whole history to it.
 * Likewise its failing webhooks: events still owed or given up on, by merchant (delivered events, nearly all of
 * them, leave this index as they are delivered).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('payments_merchant_mode_paid')
    .on('payments')
    .columns(['merchant_id', 'mode', 'paid_at'])
    .execute();
  await db.schema
    .createIndex('payments_merchant_payout_blocked')
    .on('payments')
    .columns(['merchant_id', 'mode', 'payout_blocked_since'])
    .where(sql.raw<boolean>('payout_blocked_since is not null'))
    .execute();
  await db.schema
    .createIndex('events_merchant_undelivered')
    .on('events')
    .columns(['merchant_id', 'created_at'])
    .where(sql.raw<boolean>(UNDELIVERED))
    .execute();
}

/** The events of the index: written here as the query writes it, so that both planners see it applies. */
const UNDELIVERED = "delivery_status in ('pending', 'delivering', 'failed')";

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_merchant_undelivered').execute();
  await db.schema.dropIndex('payments_merchant_payout_blocked').execute();
  await db.schema.dropIndex('payments_merchant_mode_paid').execute();
}
