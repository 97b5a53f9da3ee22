import { describe, expect, it } from 'vitest';
import { testMerchant } from '../../../test/fakes/merchantFixture.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import { cachedMerchantStore } from './cachedMerchantStore.ts';

const merchant = testMerchant();
const key = {
  id: 'key_1',
  merchantId: merchant.id,
  keyHash: 'a'.repeat(64),
  keyPrefix: 'sk_live_test',
  mode: 'live' as const,
  createdAt: new Date(0),
  expiresAt: null,
};
const at = (ms: number) => new Date(ms);

/** A store that knows one key, counts its lookups, and fails while `failing` is set. */
function innerStore() {
  const state = { lookups: 0, failing: false };
  const store = {
    async findByKeyHash(keyHash: string) {
      state.lookups += 1;
      if (state.failing) throw new Error('database down');
      return keyHash === key.keyHash ? { key, merchant } : undefined;
    },
  } as Partial<MerchantStore> as MerchantStore;
  return { store, state };
}

describe('cachedMerchantStore', () => {
  it('answers a remembered key at once, and asks the store again once the entry is stale', async () => {
    const { store, state } = innerStore();
    const cached = cachedMerchantStore(store, 1_000);
    const first = cached.findByKeyHash(key.keyHash, at(0));
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toStrictEqual({ key, merchant });
    const remembered = cached.findByKeyHash(key.keyHash, at(999));
    expect(remembered).not.toBeInstanceOf(Promise);
    expect(remembered).toStrictEqual({ key, merchant });
    expect(state.lookups).toBe(1);
    expect(cached.findByKeyHash(key.keyHash, at(1_000))).toBeInstanceOf(Promise);
    expect(state.lookups).toBe(2);
  });

  it('remembers neither unknown keys nor failures, and a failure stays a rejection', async () => {
    const { store, state } = innerStore();
    const cached = cachedMerchantStore(store, 1_000);
    expect(await cached.findByKeyHash('b'.repeat(64), at(0))).toBeUndefined();
    expect(cached.findByKeyHash('b'.repeat(64), at(1))).toBeInstanceOf(Promise);
    state.failing = true;
    await expect(cached.findByKeyHash(key.keyHash, at(2))).rejects.toThrow('database down');
    state.failing = false;
    expect(cached.findByKeyHash(key.keyHash, at(3))).toBeInstanceOf(Promise);
    expect(state.lookups).toBe(4);
  });
});
