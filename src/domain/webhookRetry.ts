import { parseDuration } from './duration.ts';

/**
 * When a failed webhook is tried again. The first attempt is always immediate; after it fails, the next
 * attempts wait these delays in turn (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h — ten attempts over
 * about three days, so a merchant's outage of a day or two loses nothing). Then the event is `failed`.
 * `PAYLINK_WEBHOOK_RETRY_SCHEDULE` replaces the list.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, // 5 s: a blip, a deploy
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];

/** Most retries a schedule may list: every loop and table has a bound. */
export const MAX_RETRIES = 50;

/**
 * ± this fraction of each delay is random, so the events of one outage do not all come back in the same
 * second and knock the merchant's server over again.
 */
export const RETRY_JITTER = 0.1;

/**
 * A receiver's `Retry-After` is honoured within these bounds: not sooner than 5 s (a receiver cannot make us
 * hammer it) and not later than a day (nor postpone an event forever). It replaces the scheduled delay of that
 * retry only; the number of attempts stays bounded by the schedule.
 */
export interface RetryAfterBounds {
  readonly minMs: number;
  readonly maxMs: number;
}

export const DEFAULT_RETRY_AFTER_BOUNDS: RetryAfterBounds = { minMs: 5_000, maxMs: 24 * 3_600_000 };

/** "5s,5m,30m,…" → delays in ms, or undefined when a part is not a positive duration or there are too many. */
export function parseRetrySchedule(text: string): number[] | undefined {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length > MAX_RETRIES || (parts.length === 1 && parts[0] === '')) return undefined;
  const delays: number[] = [];
  for (const part of parts) {
    const ms = parseDuration(part);
    if (ms === undefined || ms <= 0) return undefined;
    delays.push(ms);
  }
  return delays;
}

/** `delayMs` moved by up to ±RETRY_JITTER of itself; `random` is uniform in [0, 1). */
export function jittered(delayMs: number, random: () => number): number {
  const factor = 1 + RETRY_JITTER * (2 * random() - 1);
  return Math.max(0, Math.round(delayMs * factor));
}

/**
 * A `Retry-After` header (delay in seconds, or an HTTP date) as milliseconds from `now`; undefined when absent
 * or unreadable. A date in the past is a delay of 0 (the bounds then apply).
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // HTTP dates always name the weekday and GMT; requiring the shape avoids Date.parse's lenient guesses.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

export function clampRetryAfter(delayMs: number, bounds: RetryAfterBounds): number {
  return Math.min(bounds.maxMs, Math.max(bounds.minMs, delayMs));
}
