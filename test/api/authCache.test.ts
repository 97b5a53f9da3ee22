import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantRepository } from '../../src/adapters/db/merchantRepository.ts';
import { disableMerchant, rotateApiKey } from '../../src/app/merchants/merchantAdmin.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';

/**
 * API keys are remembered by an API process for PAYLINK_AUTH_CACHE_TTL (default 5 s). A change made through
 * this process's admin API applies at once; one made elsewhere (the CLI, another API process) within the TTL.
 */
describe.each(dialects)('remembered API keys on %s', (dialect) => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApiHarness(dialect, { env: { PAYLINK_AUTH_CACHE_TTL: '5s' } });
  });
  afterAll(() => h.close());

  const convert = (key: string) =>
    h.app.inject({
      method: 'GET',
      url: '/payments/api/convert/?amount=1&currency=USD',
      headers: { 'x-api-key': key },
    });
  const admin = (url: string, payload: Record<string, unknown> = {}) => h.admin('POST', url, payload);
  /** Another process's view of the same database: writes that this API process does not see happen. */
  const elsewhere = () => ({
    merchants: merchantRepository(h.database.handle.db),
    clock: h.clock,
    webhookAllowPrivate: false,
  });

  it('applies a disable through the admin API at once', async () => {
    const { id, apiKey } = await h.merchant();
    expect((await convert(apiKey)).statusCode).toBe(200);
    expect((await admin(`/admin/api/merchants/${id}/disable/`)).statusCode).toBe(200);
    expect((await convert(apiKey)).statusCode).toBe(401);
  });

  it('applies a disable made by another process within the TTL', async () => {
    const { id, apiKey } = await h.merchant();
    expect((await convert(apiKey)).statusCode).toBe(200);
    await disableMerchant(elsewhere(), id);
    h.clock.advance(4_999);
    expect((await convert(apiKey)).statusCode).toBe(200);
    h.clock.advance(1);
    expect((await convert(apiKey)).statusCode).toBe(401);
  });

  it('ends a rotated key’s grace period on time, remembered or not', async () => {
    const { id, apiKey } = await h.merchant();
    expect((await convert(apiKey)).statusCode).toBe(200);
    const { apiKey: newKey } = await rotateApiKey(elsewhere(), id, 60_000);
    expect((await convert(newKey)).statusCode).toBe(200);
    h.clock.advance(5_000); // the remembered entry is stale: re-read, now with its end of grace
    expect((await convert(apiKey)).statusCode).toBe(200);
    h.clock.advance(55_000);
    expect((await convert(apiKey)).statusCode).toBe(401);
    expect((await convert(newKey)).statusCode).toBe(200);
  });

  it('looks keys up every time with PAYLINK_AUTH_CACHE_TTL=0', async () => {
    const uncached = await startApiHarness(dialect, { env: { PAYLINK_AUTH_CACHE_TTL: '0' } });
    try {
      const { id, apiKey } = await uncached.merchant();
      const request = () =>
        uncached.app.inject({
          method: 'GET',
          url: '/payments/api/convert/?amount=1&currency=USD',
          headers: { 'x-api-key': apiKey },
        });
      expect((await request()).statusCode).toBe(200);
      await disableMerchant(
        {
          merchants: merchantRepository(uncached.database.handle.db),
          clock: uncached.clock,
          webhookAllowPrivate: false,
        },
        id,
      );
      expect((await request()).statusCode).toBe(401);
    } finally {
      await uncached.close();
    }
  });
});
