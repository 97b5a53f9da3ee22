import { type Kysely, sql } from 'kysely';

/**
 * - `announced_status`: the status of the last event written for a payment, so that a reorg taking it back to
 *   `pending` and forward again does not tell the merchant the same status twice. Existing payments: the status
 *   of their latest status event, or `pending` when they have none.
 * - The underpayment tolerance is bounded to 10 % (domain/merchant.ts): merchants set above it are brought down
 *   to it; payments already quoted keep the tolerance they were created with.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    .addColumn('announced_status', 'text', (c) => c.notNull().defaultTo(sql`'pending'`))
    .execute();
  await sql`
    update payments set announced_status = coalesce((
      select substr(events.type, 9) from events
      where events.payment_id = payments.id
        and events.type in ('payment.processing', 'payment.paid', 'payment.failed', 'payment.expired')
      order by events.sequence desc
      limit 1
    ), 'pending')
  `.execute(db);
  await db
    .updateTable('merchants')
    .set({ underpayment_tolerance_bps: 1_000 })
    .where('underpayment_tolerance_bps', '>', 1_000)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').dropColumn('announced_status').execute();
}
