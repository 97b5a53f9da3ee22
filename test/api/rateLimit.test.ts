import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clientPartition } from '../../src/adapters/api/rateLimit.ts';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { redisBucketStore } from '../../src/adapters/rateLimit/redisBucketStore.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { createRestrictedKey } from '../../src/app/merchants/restrictedKeys.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { buildApiServer } from '../../src/main/webServers.ts';
import { createRates } from '../../src/main/wiring.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { countRows, dialects } from '../helpers/database.ts';

const RATE_LIMITED = { error: 'Too many requests; retry after 1 s', code: 'RATE_LIMITED' };
/**
 * Redis is a real part, like PostgreSQL: the shared-bucket tests run when PAYLINK_TEST_REDIS_URL names a
 * server, and then an unreachable one fails them. CI sets it, so they can never be skipped silently there.
 */
const REDIS_URL = process.env.PAYLINK_TEST_REDIS_URL;
if (!REDIS_URL && process.env.CI) {
  throw new Error('CI must set PAYLINK_TEST_REDIS_URL: the Redis tests may not be skipped');
}
if (!REDIS_URL) {
  console.warn(
    'rate limit tests: PAYLINK_TEST_REDIS_URL is not set; the shared-bucket (Redis) tests do not run',
  );
}

// Small buckets so a test drains them in a few requests: 10/s with a burst of 3 per key, 1/s burst 2 per address.
const LIMITS = {
  PAYLINK_RATE_LIMIT: '10/s',
  PAYLINK_RATE_LIMIT_BURST: '3',
  PAYLINK_RATE_LIMIT_IP: '1/s',
  PAYLINK_RATE_LIMIT_IP_BURST: '2',
};

describe.each(dialects)('rate limits on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let otherKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect, { env: LIMITS });
    apiKey = (await h.merchant()).apiKey;
    otherKey = (await h.merchant({ name: 'Other Shop' })).apiKey;
  });
  afterAll(() => h.close());
  // Every test starts with full buckets: a bucket refills completely in 2 s of test-clock time.
  afterEach(() => h.clock.advance(60_000));

  const convert = (headers: Record<string, string>, remoteAddress = '203.0.113.7') =>
    h.app.inject({
      method: 'GET',
      url: '/payments/api/convert/?amount=1&currency=USD',
      headers,
      remoteAddress,
    });

  it('lets a burst through per API key, then answers 429 RATE_LIMITED with Retry-After', async () => {
    const first = await convert({ 'x-api-key': apiKey });
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"key";q=3;w=1');
    expect(first.headers.ratelimit).toBe('"key";r=2;t=1');
    expect((await convert({ 'x-api-key': apiKey })).statusCode).toBe(200);
    const last = await convert({ authorization: `Bearer ${apiKey}` }); // the same key, however presented
    expect(last.statusCode).toBe(200);
    expect(last.headers.ratelimit).toBe('"key";r=0;t=1');

    const refused = await convert({ 'x-api-key': apiKey });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toStrictEqual(RATE_LIMITED);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit-policy']).toBe('"key";q=3;w=1');
    expect(refused.headers.ratelimit).toBe('"key";r=0;t=1');
    expect(refused.headers['x-request-id']).toBeDefined();
  });

  it('refills at the configured rate: 100 ms of the clock buys one request at 10/s', async () => {
    for (let i = 0; i < 3; i += 1) await convert({ 'x-api-key': apiKey });
    expect((await convert({ 'x-api-key': apiKey })).statusCode).toBe(429);
    h.clock.advance(99);
    expect((await convert({ 'x-api-key': apiKey })).statusCode).toBe(429);
    h.clock.advance(1);
    expect((await convert({ 'x-api-key': apiKey })).statusCode).toBe(200);
    expect((await convert({ 'x-api-key': apiKey })).statusCode).toBe(429);
  });

  it('keeps one bucket per key: another merchant, and other addresses, are unaffected', async () => {
    for (let i = 0; i < 4; i += 1) await convert({ 'x-api-key': apiKey }, `198.51.100.${i}`);
    expect((await convert({ 'x-api-key': apiKey }, '198.51.100.99')).statusCode).toBe(429);
    expect((await convert({ 'x-api-key': otherKey })).statusCode).toBe(200);
  });

  it("keeps one bucket per merchant and mode, whatever its key: restricted keys share the secret key's", async () => {
    const merchants = { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false };
    const { merchant, apiKey, testApiKey } = await createMerchant(
      merchants,
      { name: 'Many Keys', commissionPercent: '0' },
      { testKey: true },
    );
    // A hundred keys must not make a hundred allowances (decision 0056): three keys, one burst of three.
    const restricted = (name: string) =>
      createRestrictedKey(merchants, merchant.id, 'live', { name, scopes: ['payments:read'] });
    const plugin = (await restricted('Shop plugin')).key;
    const books = (await restricted('Bookkeeping')).key;
    expect((await convert({ 'x-api-key': apiKey })).statusCode).toBe(200);
    expect((await convert({ 'x-api-key': plugin })).statusCode).toBe(200);
    const third = await convert({ 'x-api-key': books });
    expect(third.statusCode).toBe(200);
    expect(third.headers.ratelimit).toBe('"key";r=0;t=1');
    expect((await convert({ 'x-api-key': plugin })).statusCode).toBe(429);
    expect((await convert({ 'x-api-key': apiKey })).statusCode).toBe(429);
    // Test mode counts apart, as test and live are apart everywhere.
    expect((await convert({ 'x-api-key': testApiKey! })).statusCode).toBe(200);
  });

  it('limits requests without a valid key by address, more strictly', async () => {
    const noKey = await convert({});
    expect(noKey.statusCode).toBe(401);
    expect(noKey.headers['ratelimit-policy']).toBe('"ip";q=2;w=2');
    expect(noKey.headers.ratelimit).toBe('"ip";r=1;t=1');
    expect((await convert({ 'x-api-key': 'sk_live_guess' })).statusCode).toBe(401);
    const refused = await convert({ 'x-api-key': 'sk_live_another_guess' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toStrictEqual(RATE_LIMITED);
    // A valid key from the same address has its own bucket; another address has a fresh one.
    expect((await convert({ 'x-api-key': apiKey })).statusCode).toBe(200);
    expect((await convert({}, '203.0.113.8')).statusCode).toBe(401);
    // Unknown paths count too (scanners), by address.
    const unknown = await h.app.inject({ method: 'GET', url: '/wp-login.php', remoteAddress: '203.0.113.7' });
    expect(unknown.statusCode).toBe(429);
  });

  it('refuses before reading the body or writing anything', async () => {
    for (let i = 0; i < 3; i += 1) await convert({ 'x-api-key': apiKey });
    const refused = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: '{not even json',
      remoteAddress: '203.0.113.7',
    });
    expect(refused.statusCode).toBe(429);
    // 429, not 400: the malformed body was never parsed; and nothing was written.
    expect(refused.json().code).toBe('RATE_LIMITED');
    expect(await countRows(h.database.handle.db, 'payments')).toBe(0);
  });

  it('never limits health, readiness and metrics', async () => {
    for (let i = 0; i < 3; i += 1) await convert({});
    expect((await convert({})).statusCode).toBe(429);
    for (const url of ['/healthz', '/metrics', '/healthz']) {
      const response = await h.app.inject({ method: 'GET', url, remoteAddress: '203.0.113.7' });
      expect(response.statusCode).toBe(200);
      expect(response.headers.ratelimit).toBeUndefined();
    }
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/paylink_rate_limited_total\{policy="ip"\} [1-9]/);
  });
});

describe.each(dialects)('rate limits behind a proxy on %s', (dialect) => {
  it('takes the client address from X-Forwarded-For only when PAYLINK_TRUST_PROXY says so', async () => {
    const trusting = await startApiHarness(dialect, {
      env: { ...LIMITS, PAYLINK_TRUST_PROXY: '127.0.0.1' },
    });
    try {
      const fromProxy = (client: string) =>
        trusting.app.inject({
          method: 'GET',
          url: '/payments/api/convert/?amount=1&currency=USD',
          headers: { 'x-forwarded-for': client },
          remoteAddress: '127.0.0.1',
        });
      for (let i = 0; i < 2; i += 1) expect((await fromProxy('192.0.2.1')).statusCode).toBe(401);
      expect((await fromProxy('192.0.2.1')).statusCode).toBe(429);
      expect((await fromProxy('192.0.2.2')).statusCode).toBe(401);
      // From an untrusted peer the header is ignored: the peer's own address is the client.
      const direct = (client: string) =>
        trusting.app.inject({
          method: 'GET',
          url: '/payments/api/convert/?amount=1&currency=USD',
          headers: { 'x-forwarded-for': client },
          remoteAddress: '198.51.100.5',
        });
      for (let i = 0; i < 2; i += 1) await direct(`192.0.2.${10 + i}`);
      expect((await direct('192.0.2.99')).statusCode).toBe(429);
    } finally {
      await trusting.close();
    }
  });
});

describe('rate limit configuration', () => {
  it('defaults to 100/s with bursts of 200 per key, 10/s with bursts of 20 per address, in memory', () => {
    const config = loadConfig({});
    expect(config.rateLimit).toStrictEqual({
      perKey: { ratePerSecond: 100, burst: 200 },
      perIp: { ratePerSecond: 10, burst: 20 },
      redisUrl: undefined,
    });
    expect(config.trustProxy).toBe(false);
    expect(config.authCacheTtlMs).toBe(5_000);
  });

  it('reads rates per second, minute or hour, explicit bursts, off, Redis and proxies', () => {
    const config = loadConfig({
      PAYLINK_RATE_LIMIT: '6000/m',
      PAYLINK_RATE_LIMIT_BURST: '50',
      PAYLINK_RATE_LIMIT_IP: 'off',
      PAYLINK_REDIS_URL: 'redis://cache.internal:6379/2',
      PAYLINK_TRUST_PROXY: '10.0.0.0/8, 192.168.1.1',
      PAYLINK_AUTH_CACHE_TTL: '0',
    });
    expect(config.rateLimit).toStrictEqual({
      perKey: { ratePerSecond: 100, burst: 50 },
      perIp: null,
      redisUrl: 'redis://cache.internal:6379/2',
    });
    expect(config.trustProxy).toStrictEqual(['10.0.0.0/8', '192.168.1.1']);
    expect(config.authCacheTtlMs).toBe(0);
    expect(loadConfig({ PAYLINK_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ PAYLINK_RATE_LIMIT: '1/m' }).rateLimit.perKey).toStrictEqual({
      ratePerSecond: 1 / 60,
      burst: 1,
    });
  });

  it.each([
    ['PAYLINK_RATE_LIMIT', '100'],
    ['PAYLINK_RATE_LIMIT', 'fast'],
    ['PAYLINK_RATE_LIMIT_BURST', '0'],
    ['PAYLINK_RATE_LIMIT_IP', '-5/s'],
    ['PAYLINK_REDIS_URL', 'http://cache:6379'],
    ['PAYLINK_TRUST_PROXY', 'the load balancer'],
    ['PAYLINK_AUTH_CACHE_TTL', '1h'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});

describe('client partitions', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:aaaa::1', '20010db800010002::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '20010db800010002::/64'],
    ['not an address', 'not an address'],
  ])('%s counts as %s', (ip, partition) => {
    expect(clientPartition(ip)).toBe(partition);
  });
});

describe.runIf(REDIS_URL).each(dialects)('rate limits shared through Redis on %s', (dialect) => {
  // A unique prefix per run: the tests write and delete only their own keys on a shared Redis.
  const prefix = `paylink-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const redisUrl = REDIS_URL as string; // set whenever these tests run (runIf above)
  let h: ApiHarness;
  let second: FastifyInstance;
  let stores: ReturnType<typeof redisBucketStore>[] = [];
  let apiKey: string;

  const store = (url = redisUrl) => {
    const created = redisBucketStore({ url, keyPrefix: prefix, logger: pino({ level: 'silent' }) });
    stores.push(created);
    return created;
  };

  beforeAll(async () => {
    const env = { ...LIMITS, PAYLINK_RATE_LIMIT_BURST: '4' };
    h = await startApiHarness(dialect, { env, overrides: { rateLimitStore: store() } });
    apiKey = (await h.merchant()).apiKey;
    // A second API process: same database, same clock, its own Redis connection.
    const config = loadConfig({
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_RATES: 'static:USD=1',
      ...env,
    });
    const logger = pino({ level: 'silent' });
    second = await buildApiServer({
      ...h.stores,
      deposits: { live: depositPlanner(TEST_CHAIN) },
      rates: createRates(config, h.clock, logger),
      clock: h.clock,
      logger,
      config,
      rateLimitStore: store(),
    });
    // Connected first: until then a store lets everything through (it fails open), and a loaded machine can run
    // the first requests before the connections are up.
    await Promise.all(stores.map((s) => (s.redis.status === 'ready' ? undefined : once(s.redis, 'ready'))));
  });
  afterAll(async () => {
    await second?.close();
    await h?.close();
    const cleaner = new Redis(redisUrl);
    const keys = await cleaner.keys(`${prefix}*`);
    if (keys.length > 0) await cleaner.del(...keys);
    await cleaner.quit();
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });

  const convert = (app: FastifyInstance) =>
    app.inject({
      method: 'GET',
      url: '/payments/api/convert/?amount=1&currency=USD',
      headers: { 'x-api-key': apiKey },
    });

  it('counts one bucket across two API processes', async () => {
    expect((await convert(h.app)).statusCode).toBe(200);
    expect((await convert(second)).statusCode).toBe(200);
    expect((await convert(h.app)).statusCode).toBe(200);
    const fourth = await convert(second);
    expect(fourth.statusCode).toBe(200);
    expect(fourth.headers.ratelimit).toBe('"key";r=0;t=1');
    const refused = await convert(h.app);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toStrictEqual(RATE_LIMITED);
    expect((await convert(second)).statusCode).toBe(429);
    // 100 ms at 10/s: one token, taken by whichever process asks first.
    h.clock.advance(100);
    expect((await convert(second)).statusCode).toBe(200);
    expect((await convert(h.app)).statusCode).toBe(429);
  });

  it('writes only prefixed keys that expire once the bucket would be full again', async () => {
    const inspector = new Redis(redisUrl);
    try {
      const keys = await inspector.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const ttl = await inspector.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(1_400); // 4 tokens at 10/s refill in 400 ms, plus a second of margin
      }
    } finally {
      await inspector.quit();
    }
  });

  it('gives a token back and forgets a bucket, for every process', async () => {
    const policy = { ratePerSecond: 1 / 300, burst: 2 };
    const [one, two] = [store(), store()];
    // Connected first: until then a store lets everything through (it fails open), which is not under test here.
    await Promise.all(
      [one, two].map((s) => (s.redis.status === 'ready' ? undefined : once(s.redis, 'ready'))),
    );
    const now = h.clock.now();
    await one.take('signin:x', policy, now);
    await two.take('signin:x', policy, now);
    expect((await one.take('signin:x', policy, now)).allowed).toBe(false);
    await two.giveBack('signin:x', policy, now);
    expect(await one.take('signin:x', policy, now)).toMatchObject({ allowed: true, remaining: 0 });
    await one.forget('signin:x');
    expect(await two.take('signin:x', policy, now)).toMatchObject({ allowed: true, remaining: 1 });
    // A bucket never used is full: nothing is written for it.
    await one.giveBack('signin:never', policy, now);
    const inspector = new Redis(redisUrl);
    try {
      expect(await inspector.exists(`${prefix}signin:never`)).toBe(0);
    } finally {
      await inspector.quit();
    }
  });

  it('lets requests through when Redis cannot be reached', async () => {
    const unreachable = store('redis://127.0.0.1:1');
    const decision = await unreachable.take('key:x', { ratePerSecond: 1, burst: 1 }, h.clock.now());
    expect(decision.allowed).toBe(true);
  });
});
