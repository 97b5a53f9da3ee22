import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RateLimitStore } from '../../app/shared/ports.ts';
import { type BucketPolicy, describeBucket, refillMs } from '../../domain/tokenBucket.ts';

/** What both scripts start with: the policy and the time passed as arguments, and the bucket as saved. */
const READ_BUCKET_LUA = `
local rate_per_ms = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local ttl_ms = tonumber(ARGV[4])
local saved = redis.call('HMGET', KEYS[1], 't', 'u')`;

/**
 * `takeToken` of domain/tokenBucket.ts, run atomically inside Redis so that every API process shares each bucket.
 * A bucket is a hash {t: tokens, u: updated at (ms)}; it expires once it would be full again, since a missing
 * bucket is a full one. Numbers travel as strings: Redis would truncate a Lua float reply to an integer.
 */
const TAKE_TOKEN_LUA = `${READ_BUCKET_LUA}
local tokens = burst
local updated = now
if saved[1] and saved[2] then
  local previous_tokens = tonumber(saved[1])
  local previous_updated = tonumber(saved[2])
  local elapsed = math.max(0, now - previous_updated)
  tokens = math.min(burst, previous_tokens + elapsed * rate_per_ms)
  updated = math.max(previous_updated, now)
end
local allowed = 0
if tokens >= 1 - 1e-9 then
  tokens = math.max(0, tokens - 1)
  allowed = 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'u', tostring(updated))
redis.call('PEXPIRE', KEYS[1], ttl_ms)
return {allowed, tostring(tokens)}
`;

/**
 * `giveTokenBack` of domain/tokenBucket.ts: one token back, never above the burst. A missing bucket is full, so
 * it is left missing.
 */
const GIVE_TOKEN_BACK_LUA = `${READ_BUCKET_LUA}
if not (saved[1] and saved[2]) then
  return 0
end
local previous_updated = tonumber(saved[2])
local elapsed = math.max(0, now - previous_updated)
local tokens = math.min(burst, tonumber(saved[1]) + elapsed * rate_per_ms + 1)
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'u', tostring(math.max(previous_updated, now)))
redis.call('PEXPIRE', KEYS[1], ttl_ms)
return 1
`;

type TakeTokenReply = [number, string];

interface BucketCommands {
  paylinkTakeToken(
    key: string,
    ratePerMs: string,
    burst: string,
    nowMs: string,
    ttlMs: string,
  ): Promise<TakeTokenReply>;
  paylinkGiveTokenBack(
    key: string,
    ratePerMs: string,
    burst: string,
    nowMs: string,
    ttlMs: string,
  ): Promise<number>;
}

export interface RedisBucketStoreOptions {
  readonly url: string;
  /** Prefix of every key written; lets several deployments (or test runs) share one Redis. */
  readonly keyPrefix?: string;
  readonly logger: Pick<Logger, 'warn'>;
  /** A Redis slower than this is treated as down for that request. */
  readonly commandTimeoutMs?: number;
}

const WARN_EVERY_MS = 30_000;

/**
 * Buckets shared by every API process through Redis. Time comes from the caller's clock (so tests can drive it);
 * API hosts' clocks agree to NTP precision, and one running behind refills nothing rather than taking tokens back.
 *
 * Fails open: if Redis is down or slow, the request is allowed (and a warning logged at most every 30 s).
 * Rate limiting protects the service; it must not take the API down with it.
 */
export function redisBucketStore(
  options: RedisBucketStoreOptions,
): RateLimitStore & { readonly redis: Redis } {
  const prefix = options.keyPrefix ?? 'paylink:ratelimit:';
  const redis = new Redis(options.url, {
    // No queueing while disconnected: a request must not wait for Redis to come back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 250,
    lazyConnect: false,
  });
  // Without a listener ioredis would print every reconnection error; we log our own, throttled, below.
  redis.on('error', () => {});
  redis.defineCommand('paylinkTakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN_LUA });
  redis.defineCommand('paylinkGiveTokenBack', { numberOfKeys: 1, lua: GIVE_TOKEN_BACK_LUA });
  const commands = redis as unknown as BucketCommands;
  let lastWarningMs = 0;
  const warnUnreachable = (error: unknown) => {
    const nowMs = Date.now();
    if (nowMs - lastWarningMs > WARN_EVERY_MS) {
      lastWarningMs = nowMs;
      options.logger.warn({ err: error }, 'rate limit store unreachable; requests are let through');
    }
  };

  return {
    redis,
    async take(key, policy: BucketPolicy, now) {
      try {
        const [allowed, tokens] = await commands.paylinkTakeToken(
          `${prefix}${key}`,
          String(policy.ratePerSecond / 1000),
          String(policy.burst),
          String(now.getTime()),
          String(refillMs(policy) + 1000),
        );
        return describeBucket(policy, allowed === 1, Number(tokens));
      } catch (error) {
        warnUnreachable(error);
        return { allowed: true, remaining: policy.burst, retryAfterMs: 0, fullInMs: 0 };
      }
    },
    // Failing open here too: a token not given back costs one request, and the bucket refills by itself.
    async giveBack(key, policy: BucketPolicy, now) {
      try {
        await commands.paylinkGiveTokenBack(
          `${prefix}${key}`,
          String(policy.ratePerSecond / 1000),
          String(policy.burst),
          String(now.getTime()),
          String(refillMs(policy) + 1000),
        );
      } catch (error) {
        warnUnreachable(error);
      }
    },
    async forget(key) {
      try {
        await redis.del(`${prefix}${key}`);
      } catch (error) {
        warnUnreachable(error);
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
