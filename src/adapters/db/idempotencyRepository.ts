import type { IdempotencyStore } from '../../app/ports.ts';
import type { Db } from './database.ts';

export function idempotencyRepository(db: Db): IdempotencyStore {
  return {
    async claim({ merchantId, key, requestHash, now, expiresAt, staleClaimBefore }) {
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
      return existing.payment_id
        ? { kind: 'replay', paymentId: existing.payment_id }
        : { kind: 'in_progress' };
    },

    async release(merchantId, key) {
      await db
        .deleteFrom('idempotency_keys')
        .where('merchant_id', '=', merchantId)
        .where('key', '=', key)
        .where('payment_id', 'is', null)
        .execute();
    },
  };
}
