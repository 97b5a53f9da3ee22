import { type Kysely, sql } from 'kysely';

/**
 * Restricted API keys (docs/decisions/0056-restricted-api-keys.md): a key's kind (every key so far is the
 * secret key, `secret`), the scopes of a restricted one (space-separated; empty for a secret key, which holds
 * them all), its name (a secret key has none: pages name it by its kind, in the reader's language), when it was
 * revoked (apart from `expires_at`, which a rotation's grace period or the creator's choice sets) and when it was
 * last used (written at most once a minute per key).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('kind', 'text', (c) =>
      c.notNull().defaultTo('secret').check(sql`kind in ('secret', 'restricted')`),
    )
    .execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('scopes', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('name', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('revoked_at', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['last_used_at', 'revoked_at', 'name', 'scopes', 'kind']) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
}
