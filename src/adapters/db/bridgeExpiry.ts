import type { StepSetback } from '../../app/bridge/ports.ts';
import { stepTransactionColumns } from './bridgeRows.ts';
import { setbackIn } from './bridgeSetback.ts';
import type { Db } from './db.ts';

/**
 * A fast attestation that expired before its mint (migration 0036, decision 0036): the transfer goes back from
 * `mint` to `attest`, where its source chain's job asks Circle to re-attest the message and waits for the
 * re-signed one. One database transaction, so a crash leaves it either waiting to mint or waiting for its
 * re-attestation, never between.
 */
export async function recordExpiry(db: Db, id: string, setback: StepSetback, at: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('bridge_transfers')
      .set({
        step: 'attest',
        // Our mint of the expired message can never succeed: forgotten, so that the next mint is signed anew.
        ...stepTransactionColumns('mint', null),
        expired_at: at.toISOString(),
        reattest_requested_at: null,
        // The new step's back-off starts over; the stall (kept by the setback) goes on.
        attempts: 0,
        updated_at: at.toISOString(),
      })
      .where('id', '=', id)
      .where('step', '=', 'mint')
      .returning('id')
      .executeTakeFirst();
    if (!moved) return false;
    await setbackIn(trx, id, setback, at);
    return true;
  });
}

export async function recordReattestRequested(db: Db, id: string, at: Date): Promise<void> {
  await db
    .updateTable('bridge_transfers')
    .set({ reattest_requested_at: at.toISOString(), updated_at: at.toISOString() })
    .where('id', '=', id)
    .where('step', '=', 'attest')
    .where('expired_at', 'is not', null)
    .execute();
}
