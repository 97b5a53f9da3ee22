import type { Logger } from 'pino';
import { memoryBucketStore } from '../adapters/rateLimit/memoryBucketStore.ts';
import { redisBucketStore } from '../adapters/rateLimit/redisBucketStore.ts';
import type { RateLimitStore } from '../app/shared/ports.ts';
import type { Config } from '../config/index.ts';

/**
 * Rate-limit buckets (the API's limits, the checkout's signed transfers): in Redis where PAYLINK_REDIS_URL is
 * set, so that every process counts each key, payment and client in one bucket; else in this process's memory
 * (one process). The caller closes it.
 */
export function rateLimitBuckets(
  config: Pick<Config, 'rateLimit'>,
  logger: Logger,
  keyPrefix?: string,
): RateLimitStore {
  const { redisUrl } = config.rateLimit;
  return redisUrl
    ? redisBucketStore({ url: redisUrl, logger, ...(keyPrefix === undefined ? {} : { keyPrefix }) })
    : memoryBucketStore();
}
