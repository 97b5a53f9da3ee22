import type { ChainCancel, ChainCancelStore } from '../../app/subscriptions/chainCancels.ts';
import { isoTimestamp } from '../../domain/timestamp.ts';
import type { DatabaseHandle } from './database.ts';

/** A charger's rows, its cursor and its mandates, by chain and address (stored lowercase). */
function chargerKey(chainId: number, charger: string) {
  return { chain_id: chainId, charger: charger.toLowerCase() };
}

/** Mandates canceled on chain and the charger's cursor (migration 0054, decision 0061). */
export function chainCancelRepository(handle: DatabaseHandle): ChainCancelStore {
  const { db } = handle;
  return {
    async cancelCursor(chainId, charger) {
      const row = await db
        .selectFrom('charger_cursors')
        .select('next_block')
        .where((eb) => eb.and(chargerKey(chainId, charger)))
        .executeTakeFirst();
      return row && BigInt(row.next_block);
    },
    async oldestActiveMandate(chainId, charger) {
      const row = await db
        .selectFrom('subscription_mandates')
        .select('created_at')
        .where((eb) => eb.and(chargerKey(chainId, charger)))
        .where('status', '=', 'active')
        .orderBy('created_at')
        .executeTakeFirst();
      return row && new Date(row.created_at);
    },
    recordChainCancels(chainId, charger, cancels, nextBlock, at) {
      const key = chargerKey(chainId, charger);
      return db.transaction().execute(async (trx) => {
        const marked: ChainCancel[] = [];
        for (const cancel of cancels) {
          // The mandate's id is the digest of terms naming this charger and chain: the id alone finds it, and a
          // mandate replaced by new terms is no longer stored under it.
          const rows = await trx
            .updateTable('subscription_mandates')
            .set({
              status: 'canceled',
              chain_canceled_tx: cancel.txHash.toLowerCase(),
              chain_canceled_at: isoTimestamp(cancel.at),
              updated_at: isoTimestamp(at),
            })
            .where('mandate_id', '=', cancel.mandateId.toLowerCase())
            .where((eb) => eb.and(key))
            .where('chain_canceled_tx', 'is', null)
            .returning('subscription_id')
            .execute();
          for (const row of rows)
            marked.push({
              subscriptionId: row.subscription_id,
              mandateId: cancel.mandateId,
              txHash: cancel.txHash,
            });
        }
        await trx
          .insertInto('charger_cursors')
          .values({
            ...key,
            next_block: nextBlock.toString(),
            updated_at: isoTimestamp(at),
          })
          .onConflict((oc) =>
            oc.columns(['chain_id', 'charger']).doUpdateSet({
              next_block: nextBlock.toString(),
              updated_at: isoTimestamp(at),
            }),
          )
          .execute();
        return marked;
      });
    },
  };
}
