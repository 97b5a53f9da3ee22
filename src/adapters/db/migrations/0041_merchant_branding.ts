import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * A merchant's branding (decision 0052): one row per merchant, written whole. The logo's bytes are kept here,
 * beside its kind and hash, so Paylink serves it from its own origin (no other host in the pages' CSP) and a
 * logo never outlives the row that names it.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema
    .createTable('merchant_brands')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey().references('merchants.id'))
    .addColumn('display_name', 'text')
    .addColumn('colour', 'text')
    .addColumn('logo', bytes)
    .addColumn('logo_extension', 'text')
    .addColumn('logo_width', 'integer')
    .addColumn('logo_height', 'integer')
    .addColumn('logo_hash', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('merchant_brands').execute();
}
