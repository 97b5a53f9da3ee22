import type { BucketDecision, BucketPolicy } from '../../domain/tokenBucket.ts';
import type { ValueOrPromise } from './valueOrPromise.ts';

/** Time, passed in so that tests and the expirer can drive it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Token buckets for rate limiting: in this process's memory, or shared by every API process through Redis. */
export interface RateLimitStore {
  /** Takes one token from the bucket named `key` (created full under `policy` if new); at once in memory. */
  take(key: string, policy: BucketPolicy, now: Date): ValueOrPromise<BucketDecision>;
  /** Puts back one token taken from the bucket (never above the burst): a request that turned out not to count. */
  giveBack(key: string, policy: BucketPolicy, now: Date): ValueOrPromise<void>;
  /** Forgets the bucket: the next request finds it full. */
  forget(key: string): ValueOrPromise<void>;
  close(): Promise<void>;
}
