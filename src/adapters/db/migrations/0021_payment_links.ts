import type { Kysely } from 'kysely';

/**
 * Where the customer goes, the merchant's references, and reusable links (issue 28):
 * - `payments.success_url`, `cancel_url`: https URLs the customer is sent to (never fetched);
 *   `payments.metadata`: the merchant's map of strings as JSON text; `payments.link_id`: the link paid through.
 * - `payment_links`: a reusable link ("payment page"). Its price is fixed (`amount_minor_units`, with a quantity
 *   up to `max_quantity`) or open (`min_minor_units` to `max_minor_units`, `suggested_minor_units` as a JSON
 *   array of integer text), all in `currency`'s minor units. A link never has a deposit address of its own:
 *   each payer's payment is a `payments` row carrying `link_id`, counted per link through
 *   `payments_link_created`.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payment_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('image_url', 'text')
    .addColumn('price_type', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_minor_units', 'text')
    .addColumn('max_quantity', 'integer')
    .addColumn('min_minor_units', 'text')
    .addColumn('max_minor_units', 'text')
    .addColumn('suggested_minor_units', 'text')
    .addColumn('max_uses', 'integer')
    .addColumn('ends_at', 'text')
    .addColumn('success_url', 'text')
    .addColumn('cancel_url', 'text')
    .addColumn('metadata', 'text')
    .addColumn('deactivated_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A merchant's links of one mode, newest first (the list's keyset order).
  await db.schema
    .createIndex('payment_links_merchant_mode_created')
    .on('payment_links')
    .columns(['merchant_id', 'mode', 'created_at', 'id'])
    .execute();
  await db.schema.alterTable('payments').addColumn('success_url', 'text').execute();
  await db.schema.alterTable('payments').addColumn('cancel_url', 'text').execute();
  await db.schema.alterTable('payments').addColumn('metadata', 'text').execute();
  await db.schema.alterTable('payments').addColumn('link_id', 'text').execute();
  // A link's payments (its uses and its totals) without reading the merchant's others.
  await db.schema
    .createIndex('payments_link_created')
    .on('payments')
    .columns(['link_id', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_link_created').execute();
  for (const column of ['link_id', 'metadata', 'cancel_url', 'success_url']) {
    await db.schema.alterTable('payments').dropColumn(column).execute();
  }
  await db.schema.dropIndex('payment_links_merchant_mode_created').execute();
  await db.schema.dropTable('payment_links').execute();
}
