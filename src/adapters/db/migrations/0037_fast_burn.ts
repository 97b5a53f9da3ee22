import { type Kysely, sql } from 'kysely';

/**
 * A fast burn carries named transfers home (docs/decisions/0037-fast-that-is-fast.md): on a chain whose speed is
 * fast, a transfer is burnt once it is a few blocks deep, long before it is final there, and the burn that
 * carries it is written on its row (`transfers.bridge_transfer_id`). Once that burn's mint is final on the home
 * chain the transfer counts as final for its payment, even if a reorg of the source chain then removes it: what
 * Circle attested is Circle's to honour. A transfer carried once is never burnt again, nor is the same
 * transaction found again in another block.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transfers').addColumn('bridge_transfer_id', 'text').execute();
  await db.schema
    .createIndex('transfers_bridge_transfer')
    .on('transfers')
    .column('bridge_transfer_id')
    .where(sql.raw<boolean>('bridge_transfer_id is not null'))
    .execute();
}
