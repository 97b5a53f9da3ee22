import type { Db } from './db.ts';

/** Why a payment's payout is held up, when the bridge says so: the mint clears only a hold-up of its own. */
export const BRIDGE_HOLD_PREFIX = 'cross-chain transfer: ';

/**
 * A setback of a transfer's current step, inside the caller's database transaction: attempts + 1, the next
 * attempt and the reason; a stall keeps its start and marks the payment's payout held up since then.
 */
export async function setbackIn(
  trx: Db,
  id: string,
  setback: { reason: string; nextAttemptAt: Date; stalled: boolean },
  at: Date,
): Promise<void> {
  const row = await trx
    .updateTable('bridge_transfers')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      next_attempt_at: setback.nextAttemptAt.toISOString(),
      last_error: setback.reason,
      stalled_since: setback.stalled
        ? eb.fn.coalesce('stalled_since', eb.val(at.toISOString()))
        : eb.ref('stalled_since'),
      updated_at: at.toISOString(),
    }))
    .where('id', '=', id)
    .returning(['payment_id', 'stalled_since'])
    .executeTakeFirst();
  if (!row?.stalled_since) return;
  // Reported as a payout held up since the stall began, unless the payout is held up for its own reason.
  await trx
    .updateTable('payments')
    .set((eb) => ({
      payout_blocked_since: eb.fn.coalesce('payout_blocked_since', eb.val(row.stalled_since as string)),
      payout_blocked_reason: `${BRIDGE_HOLD_PREFIX}${setback.reason}`,
      updated_at: at.toISOString(),
    }))
    .where('id', '=', row.payment_id)
    .where((eb) =>
      eb.or([
        eb('payout_blocked_since', 'is', null),
        eb('payout_blocked_reason', 'like', `${BRIDGE_HOLD_PREFIX}%`),
      ]),
    )
    .execute();
}
