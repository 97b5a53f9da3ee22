import { z } from 'zod';
import { parseDuration } from '../domain/duration.ts';
import { type BucketPolicy, parseRate } from '../domain/tokenBucket.ts';
import { DURATION_UNITS, duration, withoutUnit } from './fields.ts';

/** What the API and checkout servers allow one client: rate limits, connections, caches of what was looked up. */

/** Rate limits of the merchant API (docs/decisions/0007-rate-limits.md); null: not limited. */
export interface RateLimitConfig {
  readonly perKey: BucketPolicy | null;
  /** Requests without a valid API key, per client address. */
  readonly perIp: BucketPolicy | null;
  /** Buckets shared by every API process; unset: each process counts alone, in memory. */
  readonly redisUrl: string | undefined;
}

/** Fastify's trustProxy: which proxies' X-Forwarded-For gives the client address (the per-IP limit). */
export type TrustProxy = boolean | number | readonly string[];

/** What one client may hold open on the API and checkout servers (adapters/web/connectionLimits.ts). */
export interface ConnectionLimits {
  /** The whole request, headers and body, must arrive within this; answered 408 and closed after it. */
  readonly requestTimeoutMs: number;
  /**
   * Connections one client address is served on at once (further ones are answered 503 and closed); 0: no cap
   * (behind a proxy every connection comes from the proxy, which must enforce its own).
   */
  readonly maxConnectionsPerClient: number;
}

/** `100/s`, `6000/m` … in requests per second, or `off` (null). */
const rateSetting = (name: string, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      if (text.trim().toLowerCase() === 'off') return null;
      const perSecond = parseRate(text);
      if (perSecond === undefined) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a rate such as 100/s or 6000/m, or off` });
        return z.NEVER;
      }
      return perSecond;
    });
const burstSetting = z.coerce.number().int().min(1).max(1_000_000).optional();

export const limitsEnv = {
  PAYLINK_RATE_LIMIT: rateSetting('PAYLINK_RATE_LIMIT', '100/s'),
  PAYLINK_RATE_LIMIT_BURST: burstSetting,
  PAYLINK_RATE_LIMIT_IP: rateSetting('PAYLINK_RATE_LIMIT_IP', '10/s'),
  PAYLINK_RATE_LIMIT_IP_BURST: burstSetting,
  PAYLINK_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, 'PAYLINK_REDIS_URL must be a redis:// or rediss:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  PAYLINK_TRUST_PROXY: z
    .string()
    .optional()
    .transform((text, ctx): boolean | number | string[] => {
      const value = text?.trim() ?? '';
      if (value === '' || value === 'false') return false;
      if (value === 'true') return true;
      if (/^\d{1,2}$/.test(value)) return Number(value);
      const list = value.split(',').map((part) => part.trim());
      if (list.every((part) => /^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(part))) return list;
      ctx.addIssue({
        code: 'custom',
        message:
          'PAYLINK_TRUST_PROXY must be true, false, a hop count, or comma-separated proxy addresses/CIDRs',
      });
      return z.NEVER;
    }),
  PAYLINK_REQUEST_TIMEOUT: duration('PAYLINK_REQUEST_TIMEOUT')
    .default(30_000)
    .refine((ms) => ms <= 300_000, 'PAYLINK_REQUEST_TIMEOUT must be at most 5m'),
  PAYLINK_MAX_CONNECTIONS_PER_CLIENT: z
    .string()
    .regex(/^(\d{1,6}|off)$/, 'PAYLINK_MAX_CONNECTIONS_PER_CLIENT must be a number of connections, or off')
    .optional(),
  PAYLINK_AUTH_CACHE_TTL: z
    .string()
    .default('5s')
    .transform((text, ctx) => {
      if (text.trim() === '0' || text.trim() === 'off') return 0;
      const ms = withoutUnit(text) ? undefined : parseDuration(text);
      if (ms === undefined || ms <= 0 || ms > 300_000) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYLINK_AUTH_CACHE_TTL must be a duration up to 5m in ${DURATION_UNITS}, or 0`,
        });
        return z.NEVER;
      }
      return ms;
    }),
  PAYLINK_STATUS_CACHE_ENTRIES: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
};

type LimitsEnv = z.infer<z.ZodObject<typeof limitsEnv>>;

export function limitsConfig(e: LimitsEnv): {
  rateLimit: RateLimitConfig;
  trustProxy: TrustProxy;
  connectionLimits: ConnectionLimits;
  authCacheTtlMs: number;
  statusCacheEntries: number;
} {
  return {
    rateLimit: {
      perKey: bucketPolicy(e.PAYLINK_RATE_LIMIT, e.PAYLINK_RATE_LIMIT_BURST),
      perIp: bucketPolicy(e.PAYLINK_RATE_LIMIT_IP, e.PAYLINK_RATE_LIMIT_IP_BURST),
      redisUrl: e.PAYLINK_REDIS_URL,
    },
    trustProxy: e.PAYLINK_TRUST_PROXY,
    connectionLimits: {
      requestTimeoutMs: e.PAYLINK_REQUEST_TIMEOUT,
      maxConnectionsPerClient: maxConnectionsPerClient(
        e.PAYLINK_MAX_CONNECTIONS_PER_CLIENT,
        e.PAYLINK_TRUST_PROXY,
      ),
    },
    authCacheTtlMs: e.PAYLINK_AUTH_CACHE_TTL,
    statusCacheEntries: e.PAYLINK_STATUS_CACHE_ENTRIES,
  };
}

/** Without an explicit burst, twice the per-second rate: 100/s bursts to 200. */
function bucketPolicy(ratePerSecond: number | null, burst: number | undefined): BucketPolicy | null {
  if (ratePerSecond === null) return null;
  return { ratePerSecond, burst: burst ?? Math.max(1, Math.ceil(2 * ratePerSecond)) };
}

/**
 * Open connections per client address: 64 by default; behind a proxy (PAYLINK_TRUST_PROXY set) every connection
 * comes from the proxy, so there is no cap unless one is given.
 */
function maxConnectionsPerClient(setting: string | undefined, trustProxy: TrustProxy): number {
  if (setting === 'off') return 0;
  if (setting !== undefined) return Number(setting);
  return trustProxy === false ? 64 : 0;
}
