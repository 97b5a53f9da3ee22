import { describe, expect, it } from 'vitest';
import { testMerchant } from '../../../test/fakes/merchantFixture.ts';
import { cachedMerchantStore } from '../../adapters/cache/cachedMerchantStore.ts';
import { hashApiKey } from '../../domain/credentials.ts';
import { authenticateMerchant, UnauthorizedError } from './authenticateMerchant.ts';
import type { MerchantStore } from './ports.ts';

const KEY = 'sk_live_authenticate_merchant_test';
const clock = { now: () => new Date(0) };

function storeWith(status: 'active' | 'disabled'): MerchantStore {
  const merchant = testMerchant({ status });
  const key = {
    id: 'key_1',
    merchantId: merchant.id,
    keyHash: hashApiKey(KEY),
    keyPrefix: 'sk_live_auth',
    mode: 'live' as const,
    createdAt: new Date(0),
    expiresAt: null,
  };
  return {
    async findByKeyHash(keyHash: string) {
      return keyHash === key.keyHash ? { key, merchant } : undefined;
    },
  } as Partial<MerchantStore> as MerchantStore;
}

describe('authenticateMerchant', () => {
  it('authenticates at once when the store remembers the key', async () => {
    const deps = { merchants: cachedMerchantStore(storeWith('active'), 60_000), clock };
    expect((await authenticateMerchant(deps, KEY)).key.mode).toBe('live');
    const remembered = authenticateMerchant(deps, KEY);
    expect(remembered).not.toBeInstanceOf(Promise);
    expect(remembered).toMatchObject({ merchant: { status: 'active' } });
  });

  it.each([
    ['missing', undefined, 'active'],
    ['too long', `${KEY}${'x'.repeat(200)}`, 'active'],
    ['unknown', `${KEY}x`, 'active'],
    ['of a disabled merchant', KEY, 'disabled'],
  ] as const)('refuses a key %s with a rejection, never a throw', async (_case, presented, status) => {
    const deps = { merchants: cachedMerchantStore(storeWith(status), 60_000), clock };
    // Twice: the second time any remembered answer is at hand.
    for (let i = 0; i < 2; i += 1) {
      const answer = authenticateMerchant(deps, presented);
      expect(answer).toBeInstanceOf(Promise);
      await expect(answer).rejects.toBeInstanceOf(UnauthorizedError);
    }
  });
});
