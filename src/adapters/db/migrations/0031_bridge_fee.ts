import { type Kysely, sql } from 'kysely';

/**
 * The CCTP fee counted in the payment's payout (docs/decisions/0034-the-cctp-fee-stated-and-counted.md): a fast
 * transfer's fee is taken on the way to the home chain, so what can ever be paid out of a payment is
 * received − fee. `payments.bridge_fee_base_units` sums the fees CCTP took of the payment's minted transfers, and
 * `settled_base_units` (the partial index payments_unsettled compares it with what was received) now counts it
 * with what went to merchant and treasury: a payment whose fee is at or above the dust threshold is no longer
 * listed unsettled forever. `bridge_fee_bound_base_units` is the most CCTP may still keep of the payment's burns
 * not minted yet (their `max_fee`): the payout shown never promises what may not arrive. Both are counted from
 * `bridge_transfers` for transfers already under way.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    .addColumn('bridge_fee_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .execute();
  await db.schema
    .alterTable('payments')
    .addColumn('bridge_fee_bound_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .execute();
  await sql`
    update payments set bridge_fee_bound_base_units = cast((
      select sum(cast(t.max_fee_base_units as bigint))
      from bridge_transfers t where t.payment_id = payments.id and t.step in ('attest', 'mint')
    ) as text)
    where exists (
      select 1 from bridge_transfers t where t.payment_id = payments.id and t.step in ('attest', 'mint')
    )
  `.execute(db);
  await sql`
    update payments set bridge_fee_base_units = cast((
      select sum(cast(t.amount_base_units as bigint) - cast(t.minted_base_units as bigint))
      from bridge_transfers t where t.payment_id = payments.id and t.step = 'done'
    ) as text)
    where exists (select 1 from bridge_transfers t where t.payment_id = payments.id and t.step = 'done')
  `.execute(db);
  await sql`
    update payments set settled_base_units = cast(
      cast(merchant_paid_base_units as bigint) + cast(treasury_paid_base_units as bigint)
        + cast(bridge_fee_base_units as bigint) as text)
    where bridge_fee_base_units <> '0'
  `.execute(db);
}
