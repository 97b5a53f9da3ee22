import type { Kysely } from 'kysely';

/**
 * What a payment sells, as its customer sees it (docs/decisions/0051-line-items.md): a title and a description on
 * payments (links had both), and the line items of both, as JSON text of `{name, quantity, unit_minor_units}`
 * in the row's currency (money as integer text, as every amount). Nullable: a payment made before, or without
 * them, is shown as before.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('title', 'text').execute();
  await db.schema.alterTable('payments').addColumn('description', 'text').execute();
  await db.schema.alterTable('payments').addColumn('line_items', 'text').execute();
  await db.schema.alterTable('payment_links').addColumn('line_items', 'text').execute();
}
