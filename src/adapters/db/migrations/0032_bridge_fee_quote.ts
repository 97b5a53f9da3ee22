import { type Kysely, sql } from 'kysely';

/**
 * The CCTP fee at the burn against the quote (docs/decisions/0035-cctp-minimum-fee.md): since CCTP v2.1 a
 * TokenMessengerV2 may ask a minimum fee of every burn, standard ones too, so a burn may have to let CCTP keep
 * more than the quote's `max_fee_bps` said its network could (0 for standard). Each transfer keeps what the quote
 * allowed of its amount (`quoted_max_fee_base_units`) beside the bound it was burnt with; the payment sums the
 * quote's allowance of what was burnt and counts the burns bound above it, written with the bound at the burn.
 * Every burn before this one was bound within the quote (standard at 0, fast within the cap): its allowance is
 * its own bound.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('bridge_transfers')
    .addColumn('quoted_max_fee_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .execute();
  await sql`update bridge_transfers set quoted_max_fee_base_units = max_fee_base_units`.execute(db);
  await db.schema
    .alterTable('payments')
    .addColumn('bridge_fee_quoted_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .execute();
  await db.schema
    .alterTable('payments')
    .addColumn('bridge_burns_above_quote', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`
    update payments set bridge_fee_quoted_base_units = cast((
      select sum(cast(t.quoted_max_fee_base_units as bigint))
      from bridge_transfers t where t.payment_id = payments.id and t.step <> 'burn'
    ) as text)
    where exists (select 1 from bridge_transfers t where t.payment_id = payments.id and t.step <> 'burn')
  `.execute(db);
}
