import type { RateLimitStore } from '../../app/shared/ports.ts';
import { type BucketState, giveTokenBack, refillMs, takeToken } from '../../domain/tokenBucket.ts';

/** Buckets kept at most; beyond it the least recently used go (a forgotten bucket comes back full). */
const DEFAULT_MAX_BUCKETS = 100_000;

/**
 * Token buckets in this process's memory: for a single API process (the SQLite deployment) or when no Redis is
 * configured. Bounded: a flood of distinct keys or addresses evicts the least recently used buckets, and buckets
 * untouched for longer than their refill time are full anyway, so they are dropped first.
 */
export function memoryBucketStore(options: { maxBuckets?: number } = {}): RateLimitStore {
  const maxBuckets = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
  // Map iteration follows insertion order: deleting and re-inserting on each use keeps it least-recent-first.
  const buckets = new Map<string, BucketState>();
  return {
    // Answered at once (not async): the rate limit asks on every request, and a promise each time was a
    // measurable share of one.
    take(key, policy, now) {
      const nowMs = now.getTime();
      const previous = buckets.get(key);
      const { decision, state } = takeToken(policy, previous, nowMs);
      buckets.delete(key);
      buckets.set(key, state);
      if (buckets.size > maxBuckets) evict(buckets, maxBuckets, nowMs - refillMs(policy));
      return decision;
    },
    giveBack(key, policy, now) {
      const previous = buckets.get(key);
      // A bucket forgotten meanwhile is full: nothing to put back.
      if (previous) buckets.set(key, giveTokenBack(policy, previous, now.getTime()));
    },
    forget(key) {
      buckets.delete(key);
    },
    async close() {
      buckets.clear();
    },
  };
}

function evict(buckets: Map<string, BucketState>, maxBuckets: number, fullIfBeforeMs: number): void {
  // Oldest first; stop once under the bound. Bounded by the map's size, which is itself bounded.
  for (const [key, state] of buckets) {
    if (buckets.size <= maxBuckets && state.updatedAtMs >= fullIfBeforeMs) return;
    buckets.delete(key);
  }
}
