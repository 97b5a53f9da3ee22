/**
 * When a failed request is tried again, and after how long. 429 and 503 are retried: the API answers 429 before
 * it reads the request (rate limit) and 503 when it is briefly unable to serve (its database, an exchange rate,
 * a paused token, or too many connections open from this address), with `Retry-After`. Other errors would fail
 * the same way again.
 */

export interface RetryOptions {
  /** Attempts in all, the first included (default 3); 1 turns retrying off. */
  readonly maxAttempts?: number;
  /** Back-off before the first retry when the server gives no `Retry-After`, doubled each time (default 500 ms). */
  readonly baseDelayMs?: number;
  /** The longest back-off (default 8 s). */
  readonly maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once (default 60 s). */
  readonly maxRetryAfterMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * How safe a request is to send again when its outcome is unknown. `repeatable`: reads, creates carrying an
 * idempotency key, and cancels (a second cancel changes nothing). `once`: a create without a key, which might
 * have been carried out although its answer was lost or was a 503 — sent again only after a 429, which the
 * server gives before doing anything, or a `503 TOO_MANY_CONNECTIONS`, which it gives without handling the
 * request.
 */
export type Repeatability = 'repeatable' | 'once';

/**
 * Whether an error answer is worth sending again. Besides 429 and 503, a repeated create meeting its own first
 * attempt still running (`409 IDEMPOTENCY_IN_PROGRESS`, after a lost answer) gets the outcome a moment later.
 */
export function isRetryableAnswer(status: number, code: string, repeatability: Repeatability): boolean {
  if (status === 429 || (status === 503 && code === 'TOO_MANY_CONNECTIONS')) return true;
  if (repeatability !== 'repeatable') return false;
  return status === 503 || (status === 409 && code === 'IDEMPOTENCY_IN_PROGRESS');
}

/** A connection failure or timeout: the request may or may not have reached the server. */
export function isRetryableFailure(repeatability: Repeatability): boolean {
  return repeatability === 'repeatable';
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/**
 * Exponential back-off with full jitter (a random wait up to the doubled step): clients that failed together
 * do not all come back at the same moment. `retry` is 1 for the first retry.
 */
export function backoffDelayMs(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}
