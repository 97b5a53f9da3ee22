import type { Kysely } from 'kysely';

/**
 * A merchant's postal or business address and tax id (decision 0057), printed on its receipts for a customer's
 * accountant. Kept on the branding row (decision 0052): both are what a customer's documents say about the
 * merchant, set on the same dashboard page, and the row is read where receipts are drawn. Nullable: unset, the
 * receipt shows neither.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchant_brands').addColumn('address', 'text').execute();
  await db.schema.alterTable('merchant_brands').addColumn('tax_id', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchant_brands').dropColumn('tax_id').execute();
  await db.schema.alterTable('merchant_brands').dropColumn('address').execute();
}
