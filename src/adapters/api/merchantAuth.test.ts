import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { testMerchant } from '../../../test/fakes/merchantFixture.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import { systemClock } from '../../app/shared/ports.ts';
import { hashApiKey } from '../../domain/credentials.ts';
import { authenticateRequest, declareAuthenticationFields, requireMerchant } from './merchantAuth.ts';

const KEY = 'sk_live_merchant_auth_test_key';

const merchant = testMerchant();

/** A store that knows KEY and counts its lookups. */
function countingStore(): { store: MerchantStore; lookups: () => number } {
  let lookups = 0;
  const store = {
    async findByKeyHash(keyHash: string) {
      lookups += 1;
      if (keyHash !== hashApiKey(KEY)) return undefined;
      const key = {
        id: 'key_1',
        merchantId: merchant.id,
        keyHash,
        keyPrefix: 'sk_live_merc',
        mode: 'live' as const,
        createdAt: new Date(0),
        expiresAt: null,
      };
      return { key, merchant };
    },
  } as Partial<MerchantStore> as MerchantStore;
  return { store, lookups: () => lookups };
}

describe('authenticateRequest', () => {
  it('looks a request key up once, whoever asks first, and keeps the merchant on the request', async () => {
    const { store, lookups } = countingStore();
    const deps = { merchants: store, clock: systemClock };
    const app = Fastify();
    declareAuthenticationFields(app);
    // As the rate limit does: authenticates in a root hook, before the route's own hook asks again.
    app.addHook('onRequest', async (request) => {
      await Promise.resolve(authenticateRequest(request, deps)).catch(() => undefined);
    });
    await app.register(async (scoped) => {
      requireMerchant(scoped, deps);
      scoped.get('/who', async (request) => {
        const again = await authenticateRequest(request, deps);
        return { merchant: request.merchant?.id, mode: request.keyMode, same: again.merchant === merchant };
      });
    });

    const known = await app.inject({ url: '/who', headers: { 'x-api-key': KEY } });
    expect(known.json()).toStrictEqual({ merchant: 'mch_1', mode: 'live', same: true });
    expect(lookups()).toBe(1);

    const unknown = await app.inject({ url: '/who', headers: { 'x-api-key': `${KEY}x` } });
    expect(unknown.statusCode).toBe(401);
    expect(lookups()).toBe(2);
  });

  it('declares the fields it sets, so every request is built with them', () => {
    const app = Fastify();
    declareAuthenticationFields(app);
    expect(
      ['merchant', 'keyMode', 'authentication'].map((name) => app.hasRequestDecorator(name)),
    ).toStrictEqual([true, true, true]);
  });
});
