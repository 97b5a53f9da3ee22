import type { FastifyInstance } from 'fastify';
import { measureService, type ServiceMeasurements } from '../../app/operations/measureService.ts';
import type { RateLimitStore } from '../../app/shared/ports.ts';
import type { Config } from '../../config/index.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { memoryBucketStore } from '../rateLimit/memoryBucketStore.ts';
import { redisBucketStore } from '../rateLimit/redisBucketStore.ts';
import { registerRateLimiting } from '../web/rateLimit.ts';
import { adminTokenCheck } from './adminAuth.ts';
import type { ApiDeps } from './apiDeps.ts';
import { healthApi, PROBE_TIMEOUT_MS } from './routes/healthApi.ts';

/**
 * What the platform needs around the merchant API: rate limits (a root hook, so it sees every route; registered
 * before the routes), and /healthz, /readyz, /metrics (the latency histogram is fed by the request log: see
 * buildApp). A rate-limit store passed in deps is the caller's to close; one made here from the configuration is
 * closed with the app. Returns the rate-limit store, if any, for the other limits of the app (sign-in) to share, and
 * the reading of /metrics' figures.
 */
export async function registerPlatform(
  app: FastifyInstance,
  deps: ApiDeps & { readonly metrics: Metrics },
): Promise<{
  readonly buckets: RateLimitStore | undefined;
  /** What /metrics reports, read now (the operator's health page shows it). */
  readonly measure: () => Promise<ServiceMeasurements>;
}> {
  const { metrics } = deps;

  const { perKey, perIp, redisUrl } = deps.config.rateLimit;
  let store: RateLimitStore | undefined = deps.rateLimitStore;
  if (!store && (perKey || perIp)) {
    store = redisUrl ? redisBucketStore({ url: redisUrl, logger: deps.logger }) : memoryBucketStore();
    const owned = store;
    app.addHook('onClose', async () => owned.close());
  }
  if (store) {
    registerRateLimiting(app, {
      store,
      perKey,
      perIp,
      merchants: deps.merchants,
      clock: deps.clock,
      onRefused: (policy) => metrics.countRateLimited(policy),
      isAdmin: deps.config.adminToken ? adminTokenCheck(deps.config.adminToken) : undefined,
    });
  }

  const health = {
    // Until a monitoring store is wired, reading the watcher's cursor is the database probe and the
    // aggregate gauges stay empty.
    monitoring: deps.monitoring ?? {
      ping: async () => {
        await deps.ledger.cursor(deps.chainProbe?.chainId ?? 0);
      },
      countPaymentsByStatus: () => Promise.reject(new Error('no monitoring store')),
      webhookQueue: () => Promise.reject(new Error('no monitoring store')),
      payoutHealth: () => Promise.reject(new Error('no monitoring store')),
      relayerBalances: () => Promise.reject(new Error('no monitoring store')),
      gaslessRelays: () => Promise.reject(new Error('no monitoring store')),
    },
    ledger: deps.ledger,
    clock: deps.clock,
    chain: deps.chainProbe,
    testChain: deps.testChainProbe,
    metrics,
    readiness: deps.config.readiness,
    payoutPolicy: deps.config.payoutPolicy,
  };
  await app.register(healthApi(health));
  return { buckets: store, measure: () => measureService(health, PROBE_TIMEOUT_MS) };
}

/** PAYLINK_TRUST_PROXY as Fastify takes it: a hop count becomes "trust the nearest n hops". */
export function fastifyTrustProxy(
  setting: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return typeof setting === 'boolean' ? setting : [...setting];
}
