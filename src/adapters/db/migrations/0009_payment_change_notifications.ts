import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * PostgreSQL tells every API process when a payment's row or its transfers change, so a cached status read is
 * dropped as soon as the change commits (adapters/db/paymentChanges.ts). A trigger, not the writers, sends the
 * notification: no write path can forget it. The channel name is PAYMENT_CHANGES_CHANNEL there.
 *
 * New payments notify nothing: no cached read of a payment can exist before its row does. SQLite needs no
 * trigger: one process owns the database and counts its writes.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function paylink_notify_payment_change() returns trigger language plpgsql as $$
    declare
      changed record;
    begin
      if tg_op = 'DELETE' then changed := old; else changed := new; end if;
      if tg_table_name = 'payments' then
        perform pg_notify('paylink_payment_changes', changed.id::text);
      else
        perform pg_notify('paylink_payment_changes', changed.payment_id::text);
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger payments_notify_change after update or delete on payments
    for each row execute function paylink_notify_payment_change()`.execute(db);
  await sql`
    create trigger transfers_notify_change after insert or update or delete on transfers
    for each row execute function paylink_notify_payment_change()`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop trigger transfers_notify_change on transfers`.execute(db);
  await sql`drop trigger payments_notify_change on payments`.execute(db);
  await sql`drop function paylink_notify_payment_change()`.execute(db);
}
