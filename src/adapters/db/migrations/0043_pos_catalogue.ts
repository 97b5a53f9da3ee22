import type { Kysely } from 'kysely';

/**
 * The point of sale (decision 0054): `pos_catalogue_items`, a merchant's small catalogue of items (a name and a
 * unit price in `currency`'s minor units, as integer text like every amount), listed at the counter in the order
 * they were added: `position`, one more than the merchant's last, given in the insert's transaction (times alone
 * tie within a millisecond). A PoS user is a `dashboard_users` row of role `pos`: no schema change.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('pos_catalogue_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('unit_price_minor_units', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // A merchant's items in their order: the counter's one read.
  await db.schema
    .createIndex('pos_catalogue_items_merchant_position')
    .on('pos_catalogue_items')
    .columns(['merchant_id', 'position'])
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pos_catalogue_items').execute();
}
