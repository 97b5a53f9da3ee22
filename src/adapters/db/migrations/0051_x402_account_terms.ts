import { type Kysely, sql } from 'kysely';

/**
 * A merchant's x402 address follows its payout wallet and commission (decision 0059): the forwarder behind an x402
 * address commits to the wallet and commission it was made with, so a merchant who changes either gets a new
 * address, and the old one is kept (still watched, still flushed to the terms it committed to). Migration 0047's
 * index allowed one x402 address per merchant and mode; this one allows one per merchant, mode, wallet and
 * commission, which still makes two concurrent first calls under the same terms agree on one.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_x402_account').execute();
  await db.schema
    .createIndex('payments_x402_account_terms')
    .on('payments')
    .columns(['merchant_id', 'mode', 'payout_address', 'commission_bps'])
    .unique()
    .where(sql.raw<boolean>(`kind = 'x402'`))
    .execute();
}

/** Back to one per merchant and mode: refused (a unique violation) once a merchant has a second x402 address. */
// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_x402_account_terms').execute();
  await db.schema
    .createIndex('payments_x402_account')
    .on('payments')
    .columns(['merchant_id', 'mode'])
    .unique()
    .where(sql.raw<boolean>(`kind = 'x402'`))
    .execute();
}
