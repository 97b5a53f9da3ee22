import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { coinbaseSource } from '../../src/adapters/rates/coinbase.ts';
import { coingeckoSource } from '../../src/adapters/rates/coingecko.ts';
import { marketRates } from '../../src/adapters/rates/marketRates.ts';
import { fetchLosslessJson } from '../../src/adapters/rates/rateSource.ts';
import { PaylinkError } from '../../src/domain/errors.ts';
import { formatRate } from '../../src/domain/quote.ts';
import { startApiHarness } from '../helpers/apiHarness.ts';
import { TestClock } from '../helpers/clock.ts';
import { FixtureServer } from '../helpers/fixtureServer.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/rates/${name}`, import.meta.url), 'utf8');
const COINBASE = fixture('coinbase-exchange-rates-USDC.json');
const COINGECKO = fixture('coingecko-simple-price-usd-coin.json');
// The CoinGecko fixture's last_updated_at.
const COINGECKO_UPDATED = new Date(1763712000 * 1000);

describe('rate sources against local servers in the real APIs’ formats', () => {
  let coinbase: FixtureServer;
  let coingecko: FixtureServer;
  let clock: TestClock;

  beforeAll(async () => {
    coinbase = await new FixtureServer().start();
    coingecko = await new FixtureServer().start();
  });
  afterAll(async () => {
    await coinbase.stop();
    await coingecko.stop();
  });
  beforeEach(() => {
    clock = new TestClock(new Date(COINGECKO_UPDATED.getTime() + 30_000));
    coinbase.requests.length = 0;
    coingecko.requests.length = 0;
    coinbase.respond = (_req, url) =>
      url.pathname === '/v2/exchange-rates' && url.searchParams.get('currency') === 'USDC'
        ? { status: 200, body: COINBASE }
        : { status: 404, body: '{"errors":[{"id":"not_found"}]}' };
    coingecko.respond = (_req, url) =>
      url.pathname === '/api/v3/simple/price' &&
      url.searchParams.get('ids') === 'usd-coin' &&
      url.searchParams.get('vs_currencies')?.split(',').includes('eur') &&
      url.searchParams.get('include_last_updated_at') === 'true'
        ? { status: 200, body: COINGECKO }
        : { status: 400, body: '{"error":"bad request"}' };
  });

  const provider = (overrides: Partial<Parameters<typeof marketRates>[0]> = {}) =>
    marketRates({
      sources: [coinbaseSource(coinbase.url, () => clock.now()), coingeckoSource(coingecko.url)],
      clock,
      cacheTtlMs: 60_000,
      maxAgeMs: 10 * 60_000,
      maxSpreadBps: 100,
      timeoutMs: 2_000,
      logger: capturingLogger().logger,
      ...overrides,
    });

  it('reads Coinbase’s decimal strings and inverts them to USDC per unit', async () => {
    const table = await coinbaseSource(coinbase.url, () => clock.now()).fetchTable(
      AbortSignal.timeout(2_000),
    );
    expect(formatRate(table.usdcPerUnit.get('EUR')!)).toBe('1.08003024'); // 1 / 0.9259
    expect(formatRate(table.usdcPerUnit.get('USD')!)).toBe('1.00015002'); // 1 / 0.99985
    expect(table.observedAt).toStrictEqual(clock.now());
  });

  it('reads CoinGecko’s numbers losslessly, with its own timestamp', async () => {
    const table = await coingeckoSource(coingecko.url).fetchTable(AbortSignal.timeout(2_000));
    expect(formatRate(table.usdcPerUnit.get('EUR')!)).toBe('1.08002907'); // 1 / 0.925901
    expect(table.observedAt).toStrictEqual(COINGECKO_UPDATED);
    coingecko.respond = () => ({
      status: 200,
      body: '{"usd-coin":{"eur":0.92590123456789012345678,"last_updated_at":1}}',
    });
    const precise = await fetchLosslessJson(`${coingecko.url}/x`, AbortSignal.timeout(2_000));
    expect(precise).toStrictEqual({ 'usd-coin': { eur: '0.92590123456789012345678', last_updated_at: '1' } });
  });

  it('agrees on the median of both and serves repeated asks from the cache', async () => {
    const rates = provider();
    const eur = await rates.usdcPerUnit('EUR');
    expect(formatRate(eur.usdcPerUnit)).toBe('1.08002966'); // mean of 1.08003024 and 1.08002907, half-up
    expect(eur.sources).toStrictEqual(['coingecko', 'coinbase']);
    await rates.usdcPerUnit('CAD');
    await rates.usdcPerUnit('EUR');
    expect(coinbase.requests).toHaveLength(1);
    expect(coingecko.requests).toHaveLength(1);
    clock.advance(60_000);
    await rates.usdcPerUnit('EUR');
    expect(coinbase.requests).toHaveLength(2);
  });

  it('asks each source once for concurrent callers', async () => {
    const rates = provider();
    await Promise.all(Array.from({ length: 20 }, () => rates.usdcPerUnit('EUR')));
    expect(coinbase.requests).toHaveLength(1);
    expect(coingecko.requests).toHaveLength(1);
  });

  it('drops a stale source and carries on with the fresh one', async () => {
    clock.advance(10 * 60_000); // CoinGecko's last_updated_at is now 10.5 minutes old
    const eur = await provider().usdcPerUnit('EUR');
    expect(eur.sources).toStrictEqual(['coinbase']);
    expect(formatRate(eur.usdcPerUnit)).toBe('1.08003024');
  });

  it('survives a source answering 429 and keeps a failed source’s last answer while it is fresh', async () => {
    coingecko.respond = () => ({ status: 429, body: '{"status":{"error_code":429}}' });
    const rates = provider();
    expect((await rates.usdcPerUnit('EUR')).sources).toStrictEqual(['coinbase']);
    coinbase.respond = () => ({ status: 503, body: 'down' });
    clock.advance(60_000);
    expect((await rates.usdcPerUnit('EUR')).sources).toStrictEqual(['coinbase']); // last answer, 1 min old
    clock.advance(10 * 60_000);
    await expect(rates.usdcPerUnit('EUR')).rejects.toMatchObject({ code: 'RATE_UNAVAILABLE', status: 503 });
  });

  it('refuses when the sources disagree beyond the bound', async () => {
    coingecko.respond = () => ({
      status: 200,
      body: `{"usd-coin":{"eur":0.90,"last_updated_at":${Math.floor(COINGECKO_UPDATED.getTime() / 1000)}}}`,
    });
    const error = await Promise.resolve(provider().usdcPerUnit('EUR')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaylinkError);
    expect(error).toMatchObject({ code: 'RATE_UNAVAILABLE' });
  });

  it('refuses malformed answers rather than guessing', async () => {
    coinbase.respond = () => ({ status: 200, body: '{"data":{"currency":"BTC","rates":{"EUR":"0.9"}}}' });
    coingecko.respond = () => ({ status: 200, body: 'not json' });
    await expect(provider().usdcPerUnit('EUR')).rejects.toMatchObject({ code: 'RATE_UNAVAILABLE' });
  });

  it('prices payments through the API from the live sources', async () => {
    const h = await startApiHarness('sqlite', {
      env: {
        PAYLINK_RATES: 'coinbase,coingecko',
        PAYLINK_RATES_COINBASE_URL: coinbase.url,
        PAYLINK_RATES_COINGECKO_URL: coingecko.url,
      },
    });
    try {
      h.clock.advance(COINGECKO_UPDATED.getTime() + 30_000 - h.clock.now().getTime());
      const { apiKey } = await h.merchant();
      const response = await h.app.inject({
        method: 'GET',
        url: '/payments/api/convert/?amount=100&currency=EUR',
        headers: { 'x-api-key': apiKey },
      });
      // 100 × 1.08002966 = 108.002966 → rounded up to the cent.
      expect(response.json()).toStrictEqual({
        amount: '100.00',
        currency: 'EUR',
        usdc_amount: '108.01',
        exchange_rate: '1.08002966',
      });
    } finally {
      await h.close();
    }
  });
});
