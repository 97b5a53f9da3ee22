import type { Kysely } from 'kysely';

/**
 * A mandate canceled on chain (decision 0061): the customer may call the charger's `cancel(terms)` from any wallet.
 * - `subscription_mandates.chain_canceled_tx` and `chain_canceled_at`: the transaction of the charger's `Canceled`
 *   of this mandate, once final, and the time of its block; null while none is known. The portal and the dashboard
 *   show it.
 * - `charger_cursors`: per chain and charger, the first block whose `Canceled` logs are not read yet. The job
 *   reads final blocks only, so a cancel a reorg removes before finality is never seen.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_mandates').addColumn('chain_canceled_tx', 'text').execute();
  await db.schema.alterTable('subscription_mandates').addColumn('chain_canceled_at', 'text').execute();
  await db.schema
    .createTable('charger_cursors')
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('charger', 'text', (c) => c.notNull())
    .addColumn('next_block', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('charger_cursors_pkey', ['chain_id', 'charger'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('charger_cursors').execute();
  await db.schema.alterTable('subscription_mandates').dropColumn('chain_canceled_at').execute();
  await db.schema.alterTable('subscription_mandates').dropColumn('chain_canceled_tx').execute();
}
