import type { Kysely } from 'kysely';

/**
 * People who sign in to the dashboard (decision 0014):
 * - `dashboard_users`: an operator or a merchant's user, created by an operator; `password_hash` is null until
 *   the person sets one through a one-time link.
 * - `dashboard_password_links`: those one-time links, by the SHA-256 of their token (the token itself is only
 *   ever in the link); used once, valid 24 h.
 * - `dashboard_sessions`: server-side sessions, by the SHA-256 of the cookie's token, each with its CSRF token.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dashboard_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
    .addColumn('password_hash', 'text')
    // TOTP (RFC 6238) second factor: the base32 secret once enrolled, and the last time step used (no replay).
    .addColumn('totp_secret', 'text')
    .addColumn('totp_last_step', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('dashboard_password_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('dashboard_users.id'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('dashboard_users.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_user').on('dashboard_sessions').column('user_id').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.dropTable('dashboard_password_links').execute();
  await db.schema.dropTable('dashboard_users').execute();
}
