/**
 * Token bucket (docs/decisions/0007-rate-limits.md): a bucket holds at most `burst` tokens and refills
 * continuously at `ratePerSecond`; each request takes one token, and a request finding less than one is refused.
 * So a client may send `burst` requests at once after a quiet spell, and `ratePerSecond` on average for ever.
 *
 * Pure: the state and the time come in, the new state comes out. The in-memory store applies this function; the
 * Redis store runs the same arithmetic in a Lua script (adapters/rateLimit/redisBucketStore.ts) — keep them equal.
 */
export interface BucketPolicy {
  readonly ratePerSecond: number;
  readonly burst: number;
}

export interface BucketState {
  /** Fractional: refill is continuous. */
  readonly tokens: number;
  readonly updatedAtMs: number;
}

export interface BucketDecision {
  readonly allowed: boolean;
  /** Whole tokens left after this request: what a client may still send at once. */
  readonly remaining: number;
  /** Until the next token, when refused (0 when allowed). */
  readonly retryAfterMs: number;
  /** Until the bucket is full again. */
  readonly fullInMs: number;
}

/** Floating-point slack: 0.1 + 0.2 worth of refill must still buy a token. */
const EPSILON = 1e-9;

export function takeToken(
  policy: BucketPolicy,
  previous: BucketState | undefined,
  nowMs: number,
): { decision: BucketDecision; state: BucketState } {
  let { tokens, updatedAtMs } = refilled(policy, previous, nowMs);
  const allowed = tokens >= 1 - EPSILON;
  if (allowed) tokens = Math.max(0, tokens - 1);
  return { decision: describeBucket(policy, allowed, tokens), state: { tokens, updatedAtMs } };
}

/**
 * The bucket with one token put back, never above `burst`: a request that took one and turned out not to count
 * (a sign-in that succeeded). The Redis store's give-back script does the same arithmetic.
 */
export function giveTokenBack(
  policy: BucketPolicy,
  previous: BucketState | undefined,
  nowMs: number,
): BucketState {
  const { tokens, updatedAtMs } = refilled(policy, previous, nowMs);
  return { tokens: Math.min(policy.burst, tokens + 1), updatedAtMs };
}

function refilled(policy: BucketPolicy, previous: BucketState | undefined, nowMs: number): BucketState {
  if (!previous) return { tokens: policy.burst, updatedAtMs: nowMs };
  // A clock that steps backwards (another process's, via Redis) refills nothing rather than going negative.
  const elapsedMs = Math.max(0, nowMs - previous.updatedAtMs);
  return {
    tokens: Math.min(policy.burst, previous.tokens + (elapsedMs * policy.ratePerSecond) / 1000),
    updatedAtMs: Math.max(previous.updatedAtMs, nowMs),
  };
}

/** The decision for a bucket left holding `tokens` (shared with the Redis store, which returns only that). */
export function describeBucket(policy: BucketPolicy, allowed: boolean, tokens: number): BucketDecision {
  const msPerToken = 1000 / policy.ratePerSecond;
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens + EPSILON)),
    retryAfterMs: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) * msPerToken)),
    fullInMs: Math.max(0, Math.ceil((policy.burst - tokens) * msPerToken - EPSILON)),
  };
}

/** How long an untouched bucket takes to fill up: after that, forgetting it changes nothing. */
export function refillMs(policy: BucketPolicy): number {
  return Math.ceil((policy.burst / policy.ratePerSecond) * 1000);
}

const PER_SECOND: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600 };

/** `100/s`, `6000/m`, `0.5/s`, `1000/h` → requests per second; undefined when malformed or not positive. */
export function parseRate(text: string): number | undefined {
  const match = /^\s*(\d{1,9}(?:\.\d{1,6})?)\s*\/\s*([smh])\s*$/.exec(text);
  if (!match) return undefined;
  const perSecond = Number(match[1]) / PER_SECOND[match[2]!]!;
  return perSecond > 0 ? perSecond : undefined;
}
