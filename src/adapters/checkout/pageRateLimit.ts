import type { FastifyReply } from 'fastify';
import type { RateLimitStore } from '../../app/shared/ports.ts';
import { PaylinkError } from '../../domain/errors.ts';
import type { BucketPolicy } from '../../domain/tokenBucket.ts';

/**
 * Takes one token from each bucket (say, one per payment or refund and one per client address): what the
 * checkout's public POSTs are limited by. Undefined when every bucket allows the request; otherwise the 429
 * to answer, with `Retry-After` already set on the reply (the longest wait of the buckets that refused).
 */
export async function refusedByRateLimits(
  buckets: RateLimitStore,
  limits: readonly (readonly [key: string, policy: BucketPolicy])[],
  now: Date,
  reply: FastifyReply,
): Promise<PaylinkError | undefined> {
  const decisions = await Promise.all(limits.map(([key, policy]) => buckets.take(key, policy, now)));
  if (decisions.every((d) => d.allowed)) return undefined;
  const retryAfterS = Math.ceil(Math.max(...decisions.map((d) => d.retryAfterMs)) / 1000);
  reply.header('retry-after', String(retryAfterS));
  return new PaylinkError('RATE_LIMITED', `Too many requests; retry after ${retryAfterS} s`);
}
