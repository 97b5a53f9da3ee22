import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.ts';
import { adminTokenCheck } from './adminAuth.ts';
import type { ApiDeps } from './apiDeps.ts';
import { registerRateLimiting } from './rateLimit.ts';
import { healthApi } from './routes/healthApi.ts';

/**
 * What the platform needs around the merchant API: rate limits (a root hook, so it sees every route on the port;
 * registered before the routes), and /healthz, /readyz, /metrics (the latency histogram is fed by the request
 * log: see apiServerOptions). Without a rate-limit store nothing is limited.
 */
export async function registerPlatform(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const { metrics, rateLimitStore: store } = deps;
  const { perKey, perIp } = deps.config.rateLimit;
  if (store) {
    registerRateLimiting(app, {
      store,
      perKey,
      perIp,
      merchants: deps.merchants,
      clock: deps.clock,
      keyUsage: deps.keyUsage,
      onRefused: (policy) => metrics.countRateLimited(policy),
      isAdmin: deps.config.adminToken ? adminTokenCheck(deps.config.adminToken) : undefined,
    });
  }
  await app.register(healthApi(deps.health));
}

/** PAYLINK_TRUST_PROXY as Fastify takes it: a hop count becomes "trust the nearest n hops". */
export function fastifyTrustProxy(
  setting: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return typeof setting === 'boolean' ? setting : [...setting];
}
