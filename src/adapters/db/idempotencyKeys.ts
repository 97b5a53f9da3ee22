import type { IdempotencyClaim, IdempotencyStore } from '../../app/payments/ports.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Db } from './db.ts';

// The idempotency keys' statements, on whichever connection they are given: the pool's (idempotencyRepository.ts)
// or the SQLite writer's (createWrites.ts), which is why they take a Db and know nothing of the handle holding it.

/**
 * The key column's value: live keys as sent (so rows written before test mode keep working), test keys behind
 * a prefix containing a space, which no client key may contain (visible ASCII only). The same Idempotency-Key
 * in test and live mode are therefore two independent rows under the same (merchant_id, key) primary key.
 */
export function storedIdempotencyKey(mode: KeyMode, key: string): string {
  return mode === 'live' ? key : `test ${key}`;
}

export type ClaimRequest = Parameters<IdempotencyStore['claim']>[0];

export interface ReleaseRequest {
  readonly merchantId: string;
  readonly mode: KeyMode;
  readonly key: string;
}

/** `IdempotencyStore.claim`, on a database or inside a transaction. */
export async function claimIdempotencyKey(db: Db, request: ClaimRequest): Promise<IdempotencyClaim> {
  const { merchantId, mode, key: clientKey, requestHash, now, expiresAt, staleClaimBefore } = request;
  const key = storedIdempotencyKey(mode, clientKey);
  const row = {
    merchant_id: merchantId,
    key,
    request_hash: requestHash,
    payment_id: null,
    claimed_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
  };
  const inserted = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['merchant_id', 'key']).doNothing())
    .returning('key')
    .execute();
  if (inserted.length > 0) return { kind: 'claimed' };

  // Take over an expired key, or a claim whose request died before committing; the WHERE makes it atomic.
  const takenOver = await db
    .updateTable('idempotency_keys')
    .set(row)
    .where('merchant_id', '=', merchantId)
    .where('key', '=', key)
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', now.toISOString()),
        eb.and([eb('payment_id', 'is', null), eb('claimed_at', '<', staleClaimBefore.toISOString())]),
      ]),
    )
    .returning('key')
    .execute();
  if (takenOver.length > 0) return { kind: 'claimed' };

  const existing = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'payment_id'])
    .where('merchant_id', '=', merchantId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!existing) return { kind: 'in_progress' }; // released between our statements: the client may retry
  if (existing.request_hash !== requestHash) return { kind: 'mismatch' };
  return existing.payment_id ? { kind: 'replay', paymentId: existing.payment_id } : { kind: 'in_progress' };
}

/** `IdempotencyStore.release`, on a database or inside a transaction. */
export async function releaseIdempotencyKey(
  db: Db,
  { merchantId, mode, key }: ReleaseRequest,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('merchant_id', '=', merchantId)
    .where('key', '=', storedIdempotencyKey(mode, key))
    .where('payment_id', 'is', null)
    .execute();
}
