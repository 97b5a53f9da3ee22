import type {
  WebhookAttemptRecord,
  WebhookAttemptResult,
  WebhookDeliveryUpdate,
  WebhookJob,
} from '../../app/webhooks/ports.ts';
import { PAYMENT_EVENT_TYPES } from '../../domain/paymentStatus.ts';
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/webhookDelivery.ts';
import type { EventsTable } from './schema.ts';
import { oneOf } from './storedValues.ts';

// A webhook's delivery state moves the same way on both rows that carry it (DeliveryStateColumns): an event's own
// delivery (`events`) and each endpoint's delivery of it (`webhook_deliveries`, decision 0058). What the two
// stores share is written here once; each keeps its own table, its attempts table and its target.

/** What an attempt left open by a lost lease records: it will never report. */
export const ABANDONED = 'no result recorded: the worker stopped or lost its lease during the attempt';

/** A delivery's status and how many attempts it has had, as both rows store them. */
export function stateFrom(row: {
  readonly delivery_status: string;
  readonly attempt_count: number | string;
}): {
  readonly deliveryStatus: DeliveryStatus;
  readonly attemptCount: number;
} {
  return {
    deliveryStatus: oneOf(DELIVERY_STATUSES, row.delivery_status, 'delivery status'),
    attemptCount: Number(row.attempt_count),
  };
}

/** What an attempt got, as both attempts tables store it: when it started, the answer, and its outcome. */
export function attemptAnswerFrom(row: {
  readonly started_at: string;
  readonly status_code: number | string | null;
  readonly error: string | null;
  readonly outcome: string | null;
}): Pick<WebhookAttemptRecord, 'startedAt' | 'statusCode' | 'error' | 'outcome'> {
  return {
    startedAt: new Date(row.started_at),
    statusCode: row.status_code === null ? null : Number(row.status_code),
    error: row.error,
    outcome: row.outcome === null ? null : oneOf(ATTEMPT_OUTCOMES, row.outcome, 'attempt outcome'),
  };
}

/** An attempt's columns once it has its result. */
export function attemptResultColumns(result: WebhookAttemptResult) {
  return {
    finished_at: result.finishedAt.toISOString(),
    duration_ms: Math.round(result.durationMs),
    status_code: result.statusCode,
    outcome: result.outcome,
    error: result.error,
    response_body: result.responseBody,
    next_attempt_at: result.nextAttemptAt?.toISOString() ?? null,
  };
}

/** The delivery's next state after an attempt, its lease released. */
export function nextStateColumns(next: WebhookDeliveryUpdate) {
  return {
    delivery_status: next.status,
    next_attempt_at: next.nextAttemptAt?.toISOString() ?? null,
    schedule_step: next.scheduleStep,
    claimed_until: null,
    ...(next.deliveredAt ? { delivered_at: next.deliveredAt.toISOString() } : {}),
  };
}

/** An operator's resend: a fresh schedule, due now. */
export function resentColumns(nowText: string) {
  return { delivery_status: 'pending', next_attempt_at: nowText, schedule_step: 0, claimed_until: null };
}

/** The event's columns a job is made of (`jobOf`), as both claims select them: the events table as `e`. */
export const JOB_EVENT_COLUMNS = [
  'e.id',
  'e.payment_id',
  'e.merchant_id',
  'e.type',
  'e.payload',
  'e.created_at',
] as const;

/** The event's columns a job is made of, and the delivery's place in its schedule. */
type JobEventRow = Pick<
  EventsTable,
  'id' | 'payment_id' | 'merchant_id' | 'type' | 'payload' | 'created_at'
> & {
  readonly attempt_count: number;
  readonly schedule_step: number;
};

/** Where a job is sent and how it is signed: the payment's or account's URL, or an endpoint's. */
interface JobTarget {
  readonly delivery: WebhookJob['delivery'];
  readonly url: string | null;
  readonly secret: string;
  readonly previousSecret: string | null;
  readonly previousSecretUntil: string | null;
}

/** A claimed delivery's job: the event's stored bytes, this attempt's number, and its target's secrets. */
export function jobOf(row: JobEventRow, target: JobTarget): WebhookJob {
  return {
    eventId: row.id,
    paymentId: row.payment_id,
    merchantId: row.merchant_id,
    type: oneOf(PAYMENT_EVENT_TYPES, row.type, 'event type'),
    payload: row.payload,
    createdAt: new Date(row.created_at),
    attemptNumber: Number(row.attempt_count),
    scheduleStep: Number(row.schedule_step),
    delivery: target.delivery,
    url: target.url,
    webhookSecret: target.secret,
    previousWebhookSecret:
      target.previousSecret && target.previousSecretUntil
        ? { secret: target.previousSecret, until: new Date(target.previousSecretUntil) }
        : null,
  };
}
