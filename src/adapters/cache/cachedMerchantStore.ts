import type { ApiKeyRecord, MerchantStore } from '../../app/merchants/ports.ts';
import { mapValueOrPromise } from '../../app/shared/valueOrPromise.ts';
import type { Merchant } from '../../domain/merchant.ts';

interface Entry {
  readonly found: { key: ApiKeyRecord; merchant: Merchant };
  readonly freshUntilMs: number;
}

const MAX_ENTRIES = 10_000;

/**
 * The merchant store with API-key lookups remembered for `ttlMs` (docs/decisions/0007-rate-limits.md): every
 * authenticated request looks its key up — twice, once for the rate limit and once for the route — and the
 * answer rarely changes. What keeps this safe:
 *
 * - Only keys that authenticated are remembered, so guessing keys fills nothing.
 * - A remembered key's own end (`expiresAt`, set by a rotation's grace period) is checked on every use.
 * - Writes through this store (admin API: update, disable, rotate; a key made or revoked) forget everything at
 *   once.
 * - Writes by another process (the CLI, another API process) are seen within `ttlMs` at the latest: that is the
 *   longest a disabled merchant or a revoked key can keep working. `PAYLINK_AUTH_CACHE_TTL=0` turns it off.
 */
export function cachedMerchantStore(inner: MerchantStore, ttlMs: number): MerchantStore {
  if (ttlMs <= 0) return inner;
  const entries = new Map<string, Entry>();
  const forgetAll = <T>(result: T): T => {
    entries.clear();
    return result;
  };
  return {
    ...inner,
    insert: async (merchant, key, moreKeys) => forgetAll(await inner.insert(merchant, key, moreKeys)),
    save: async (merchant) => forgetAll(await inner.save(merchant)),
    replaceKeys: async (newKey, oldKeysExpireAt) =>
      forgetAll(await inner.replaceKeys(newKey, oldKeysExpireAt)),
    insertKey: async (key) => forgetAll(await inner.insertKey(key)),
    revokeKey: async (merchantId, mode, keyId, now) =>
      forgetAll(await inner.revokeKey(merchantId, mode, keyId, now)),
    // A remembered key is answered at once (the value, not a promise): that is every authenticated request but
    // the first of each key in `ttlMs`.
    findByKeyHash(keyHash, now) {
      const nowMs = now.getTime();
      const entry = entries.get(keyHash);
      if (entry && entry.freshUntilMs > nowMs) {
        const expiresAt = entry.found.key.expiresAt;
        if (expiresAt !== null && expiresAt.getTime() <= nowMs) return undefined;
        return entry.found;
      }
      return mapValueOrPromise(inner.findByKeyHash(keyHash, now), (found) => {
        entries.delete(keyHash);
        if (found) {
          // Oldest first in a Map: past the bound, the first inserted goes.
          if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
          entries.set(keyHash, { found, freshUntilMs: nowMs + ttlMs });
        }
        return found;
      });
    },
  };
}
