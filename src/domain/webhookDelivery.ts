import { clampRetryAfter, jittered, parseRetryAfter, type RetryAfterBounds } from './webhookRetry.ts';

/**
 * The life of one event's delivery:
 *
 *   pending ──claim──▶ delivering ──2xx──▶ delivered
 *      ▲                   │──410──▶ stopped            (the receiver said "gone": no more tries to that URL)
 *      └──retry later──────│──other / no answer──▶ pending, or failed after the last scheduled retry
 *
 * A worker that dies while `delivering` leaves a lease that runs out; the event is then claimed again.
 * An operator's resend puts any event not in flight back to `pending` with a fresh schedule.
 */
export const DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'failed', 'stopped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What one attempt came to, as stored with it. `abandoned`: its worker stopped before recording a result. */
export const ATTEMPT_OUTCOMES = ['delivered', 'retry', 'stopped', 'failed', 'abandoned'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** What an attempt got back: a response, or no response at all (refused address, timeout, reset …). */
export type AttemptResult =
  | { readonly kind: 'response'; readonly statusCode: number; readonly retryAfter: string | undefined }
  | { readonly kind: 'error'; readonly error: string };

/**
 * 2xx: delivered. 410 Gone: the receiver asks us to stop. Everything else is a failure worth retrying —
 * including 3xx, which is never followed: a redirect could point anywhere, including inside our network, and
 * the merchant should configure the final URL.
 */
export function classifyResponse(statusCode: number): 'delivered' | 'stop' | 'retry' {
  if (statusCode >= 200 && statusCode < 300) return 'delivered';
  if (statusCode === 410) return 'stop';
  return 'retry';
}

export interface RetryPolicy {
  /** Delays before the second, third, … attempt. The first attempt is immediate. */
  readonly scheduleMs: readonly number[];
  readonly retryAfterBounds: RetryAfterBounds;
}

export interface NextDelivery {
  readonly status: Exclude<DeliveryStatus, 'delivering'>;
  readonly outcome: Exclude<AttemptOutcome, 'abandoned'>;
  /** When to try again (status pending), else null. */
  readonly nextAttemptAt: Date | null;
  /** Attempts made in the current round, this one included: the position in the schedule. */
  readonly scheduleStep: number;
}

/**
 * Where an event's delivery goes after an attempt. `scheduleStep` is the number of attempts made in this
 * round before this one (0 for the first), so the retry after it waits `scheduleMs[scheduleStep]`.
 */
export function nextDelivery(input: {
  readonly result: AttemptResult;
  readonly scheduleStep: number;
  readonly policy: RetryPolicy;
  readonly now: Date;
  readonly random: () => number;
}): NextDelivery {
  const { result, policy, now } = input;
  if (!Number.isSafeInteger(input.scheduleStep) || input.scheduleStep < 0) {
    throw new RangeError(`bad schedule step ${input.scheduleStep}`);
  }
  const step = input.scheduleStep + 1;
  if (result.kind === 'response') {
    const verdict = classifyResponse(result.statusCode);
    if (verdict === 'delivered')
      return { status: 'delivered', outcome: 'delivered', nextAttemptAt: null, scheduleStep: step };
    if (verdict === 'stop')
      return { status: 'stopped', outcome: 'stopped', nextAttemptAt: null, scheduleStep: step };
  }
  const scheduled = policy.scheduleMs[input.scheduleStep];
  if (scheduled === undefined)
    return { status: 'failed', outcome: 'failed', nextAttemptAt: null, scheduleStep: step };
  const asked = result.kind === 'response' ? parseRetryAfter(result.retryAfter, now) : undefined;
  const delayMs =
    asked === undefined ? jittered(scheduled, input.random) : clampRetryAfter(asked, policy.retryAfterBounds);
  return {
    status: 'pending',
    outcome: 'retry',
    nextAttemptAt: new Date(now.getTime() + delayMs),
    scheduleStep: step,
  };
}
