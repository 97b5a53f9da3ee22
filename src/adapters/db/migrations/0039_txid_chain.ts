import { type Kysely, sql } from 'kysely';

/**
 * The chain of the transfer `payments.txid` names (docs/decisions/0039-one-meaning-per-field.md): since a payment
 * can be paid on a source chain, a transaction hash alone does not say which chain has it, and the status, list
 * and webhooks show `txid` beside the home chain's `chain_id` only when it is the home chain's. Filled from the
 * payment's recorded transfer of that hash; a txid without one (recorded before transfers were kept per chain) is
 * the home chain's, the only chain there was.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('txid_chain_id', 'integer').execute();
  await sql`
    update payments set txid_chain_id = coalesce((
      select min(t.chain_id) from transfers t where t.payment_id = payments.id and t.tx_hash = payments.txid
    ), chain_id)
    where txid is not null
  `.execute(db);
}
