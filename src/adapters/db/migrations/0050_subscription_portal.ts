import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * The customer's side of subscriptions and plan changes (decision 0062):
 * - `portal_token`: the unguessable part of the customer portal's address (32 random bytes, base64url), sent in
 *   every e-mail of the subscription; unique, so the portal finds its subscription by it. Rows made before this
 *   migration get one here.
 * - `pending_plan_id` and `pending_plan_from`: a plan change asked for, and the first period it bills; the
 *   renewal job bills that period and the next ones with the new plan, and makes it the subscription's plan once
 *   that period starts.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('portal_token', 'text').execute();
  // No foreign key: SQLite cannot drop a column that has one (down); the change's use case reads the plan first.
  await db.schema.alterTable('subscriptions').addColumn('pending_plan_id', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('pending_plan_from', 'integer').execute();
  const rows: { id: string }[] = await db.selectFrom('subscriptions').select('id').execute();
  for (const { id } of rows)
    await db
      .updateTable('subscriptions')
      .set({ portal_token: randomBytes(32).toString('base64url') })
      .where('id', '=', id)
      .execute();
  await db.schema
    .createIndex('subscriptions_portal_token')
    .on('subscriptions')
    .column('portal_token')
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('subscriptions_portal_token').execute();
  await db.schema.alterTable('subscriptions').dropColumn('pending_plan_from').execute();
  await db.schema.alterTable('subscriptions').dropColumn('pending_plan_id').execute();
  await db.schema.alterTable('subscriptions').dropColumn('portal_token').execute();
}
