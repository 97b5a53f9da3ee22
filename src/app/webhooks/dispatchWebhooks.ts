import { type AttemptResult, nextDelivery, type RetryPolicy } from '../../domain/webhookDelivery.ts';
import { DEFAULT_RETRY_AFTER_BOUNDS, type RetryAfterBounds } from '../../domain/webhookRetry.ts';
import { signingSecrets, signWebhook } from '../../domain/webhookSignature.ts';
import { type DispatcherDeps, runDispatcher } from '../operations/dispatchLoop.ts';
import type { WebhookJob, WebhookResponse, WebhookSender, WebhookStore } from './ports.ts';

export interface WebhookDispatchConfig {
  /** Delays before the 2nd, 3rd, … attempt (the first is immediate); then the event is `failed`. */
  readonly retryScheduleMs: readonly number[];
  readonly retryAfterBounds?: RetryAfterBounds;
  /**
   * How long a claim holds. Must outlast one attempt (the sender's timeout) with room to record it: a worker
   * that has not finished by then is presumed dead and the event is claimed again.
   */
  readonly leaseMs: number;
  /** Attempts in flight at once (at most 500); a claim takes up to this many events. */
  readonly batchSize?: number;
  /** Bound on the attempts of one pass, so a backlog cannot keep a pass running forever. */
  readonly maxAttemptsPerPass?: number;
}

export interface DispatchWebhooksDeps extends DispatcherDeps<WebhookDispatchConfig> {
  readonly webhooks: WebhookStore;
  readonly sender: WebhookSender;
}

export interface DispatchResult {
  readonly attempted: number;
  readonly delivered: number;
  readonly retrying: number;
  readonly failed: number;
  readonly stopped: number;
  /** Results that arrived after the lease ran out and another worker claimed the event: kept as history only. */
  readonly lostClaims: number;
  /** The pass stopped at its bound with more due: run another at once. */
  readonly more: boolean;
}

const DEFAULT_BATCH_SIZE = 32;
const DEFAULT_MAX_ATTEMPTS_PER_PASS = 1_000;

/**
 * One bounded pass of webhook delivery: claims due events, sends each to its URL (the payment's own, else the
 * merchant's) and each endpoint delivery to its endpoint (decision 0058), signed per Standard Webhooks, records every attempt and schedules the next one. Up to
 * `batchSize` attempts are in flight at once, refilled as they finish, so one slow receiver holds one slot for
 * at most its timeout rather than stalling everyone else's webhooks. The pass ends when nothing more is due, or
 * after `maxAttemptsPerPass` attempts (then `more` is true).
 *
 * At-least-once: an event is marked delivered only after a 2xx, so a crash at any point means it is sent again
 * (same `webhook-id`, same body bytes) once the claim's lease runs out; receivers de-duplicate by `webhook-id`.
 */
export async function dispatchWebhooks(deps: DispatchWebhooksDeps): Promise<DispatchResult> {
  const concurrency = deps.config.batchSize ?? DEFAULT_BATCH_SIZE;
  const maxAttempts = deps.config.maxAttemptsPerPass ?? DEFAULT_MAX_ATTEMPTS_PER_PASS;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError('bad batch size');
  const policy: RetryPolicy = {
    scheduleMs: deps.config.retryScheduleMs,
    retryAfterBounds: deps.config.retryAfterBounds ?? DEFAULT_RETRY_AFTER_BOUNDS,
  };
  const totals = { attempted: 0, delivered: 0, retrying: 0, failed: 0, stopped: 0, lostClaims: 0 };
  const tally = (outcome: { status: string; recorded: boolean }) => {
    if (!outcome.recorded) totals.lostClaims++;
    else if (outcome.status === 'delivered') totals.delivered++;
    else if (outcome.status === 'pending') totals.retrying++;
    else if (outcome.status === 'failed') totals.failed++;
    else totals.stopped++;
  };
  const inFlight = new Set<Promise<void>>();
  // Refill in chunks rather than one claim per finished attempt: a claim is a transaction.
  const refillAt = Math.max(1, Math.floor(concurrency / 2));
  let drained = false;
  while (true) {
    const free = Math.min(concurrency - inFlight.size, maxAttempts - totals.attempted);
    if (!drained && free > 0 && (free >= refillAt || inFlight.size === 0)) {
      const jobs = await deps.webhooks.claimDue(deps.clock.now(), free, deps.config.leaseMs);
      totals.attempted += jobs.length;
      // Fewer due than asked for: nothing more to claim in this pass (later arrivals wait for the next one).
      if (jobs.length < free) drained = true;
      for (const job of jobs) {
        const running: Promise<void> = attempt(deps, policy, job)
          .then(tally, (error: unknown) => {
            // Recording failed (database trouble): the claim stays and its lease brings the event back later.
            deps.logger.error({ err: error, event: job.eventId }, 'webhook attempt could not be recorded');
          })
          .finally(() => inFlight.delete(running));
        inFlight.add(running);
      }
    }
    if (inFlight.size === 0) break;
    await Promise.race(inFlight);
  }
  return { ...totals, more: !drained };
}

async function attempt(
  deps: DispatchWebhooksDeps,
  policy: RetryPolicy,
  job: WebhookJob,
): Promise<{ status: string; recorded: boolean }> {
  const response = await send(deps, job);
  const now = deps.clock.now();
  const result: AttemptResult =
    response.kind === 'response'
      ? { kind: 'response', statusCode: response.statusCode, retryAfter: response.retryAfter }
      : { kind: 'error', error: response.error };
  const next = nextDelivery({
    result,
    scheduleStep: job.scheduleStep,
    policy,
    now,
    random: deps.random ?? Math.random,
  });
  const recorded = await deps.webhooks.completeAttempt(
    job,
    {
      finishedAt: now,
      durationMs: response.durationMs,
      statusCode: response.kind === 'response' ? response.statusCode : null,
      error: response.kind === 'error' ? response.error : null,
      responseBody: response.kind === 'response' ? response.body : null,
      outcome: next.outcome,
      nextAttemptAt: next.nextAttemptAt,
    },
    {
      status: next.status,
      nextAttemptAt: next.nextAttemptAt,
      scheduleStep: next.scheduleStep,
      deliveredAt: next.status === 'delivered' ? now : null,
    },
  );
  const context = {
    event: job.eventId,
    payment: job.paymentId,
    merchant: job.merchantId,
    endpoint: job.delivery?.endpointId,
    attempt: job.attemptNumber,
    status_code: response.kind === 'response' ? response.statusCode : undefined,
    error: response.kind === 'error' ? response.error : undefined,
  };
  if (!recorded) {
    deps.logger.warn(
      context,
      'webhook attempt finished after its lease was taken over; result kept as history',
    );
  } else if (next.status === 'failed') {
    // Loud on purpose: a merchant has now missed this event for good unless someone resends it.
    deps.logger.error(
      { ...context, attempts_in_round: next.scheduleStep },
      'WEBHOOK DELIVERY FAILED: every scheduled attempt failed; resend with `paylink webhooks resend`',
    );
  } else if (next.status === 'stopped') {
    deps.logger.warn(context, 'webhook delivery stopped: the receiver answered 410 Gone');
  } else if (next.status === 'pending') {
    deps.logger.info(
      { ...context, next_attempt_at: next.nextAttemptAt },
      'webhook attempt failed; will retry',
    );
  }
  return { status: next.status, recorded };
}

async function send(deps: DispatchWebhooksDeps, job: WebhookJob): Promise<WebhookResponse> {
  if (job.url === null) return { kind: 'error', error: 'no webhook URL configured', durationMs: 0 };
  const now = deps.clock.now();
  let headers: Record<string, string>;
  try {
    headers = signWebhook({
      id: job.eventId,
      timestamp: now,
      body: job.payload,
      secrets: signingSecrets(job.webhookSecret, job.previousWebhookSecret, now),
    });
  } catch (error) {
    // Recorded as a failed attempt, so the schedule still moves on and ends (the message names no secret).
    return { kind: 'error', error: `not sent: ${(error as Error).message}`, durationMs: 0 };
  }
  return deps.sender.send({ url: job.url, headers, body: job.payload });
}

/**
 * Runs passes until `signal` aborts: at once again after a pass that found work, else after `intervalMs`.
 * A pass in progress finishes (its attempts are bounded by the sender's timeout) before the loop returns.
 */
export function runWebhookDispatcher(
  deps: DispatchWebhooksDeps,
  options: { readonly intervalMs: number; readonly signal: AbortSignal },
): Promise<void> {
  return runDispatcher('webhooks', deps.logger, options, () => dispatchWebhooks(deps));
}
