import type { BucketDecision, BucketPolicy } from '../../domain/tokenBucket.ts';

/** Token buckets for rate limiting: in this process's memory, or shared by every API process through Redis. */
export interface RateLimitStore {
  /** Takes one token from the bucket named `key` (created full under `policy` if new). */
  take(key: string, policy: BucketPolicy, now: Date): Promise<BucketDecision>;
  close(): Promise<void>;
}
