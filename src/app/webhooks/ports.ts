import type { KeyMode } from '../../domain/credentials.ts';
import type { PaymentEventType } from '../../domain/paymentStatus.ts';
import type { AttemptOutcome, DeliveryStatus } from '../../domain/webhookDelivery.ts';
import type { OutboxEvent } from '../chain/ports.ts';

/** An event claimed for one delivery attempt: what to send, where, and the secrets to sign it with. */
export interface WebhookJob {
  readonly eventId: string;
  /** Null for an event on a subscription's own timeline (decision 0063): it goes to the merchant's default URL. */
  readonly paymentId: string | null;
  readonly merchantId: string;
  readonly type: PaymentEventType;
  /** The body exactly as stored when the event was written: every attempt sends these bytes. */
  readonly payload: string;
  readonly createdAt: Date;
  /** This attempt's number (1, 2, …, across resends); also the claim's fencing token. */
  readonly attemptNumber: number;
  /** Attempts already made in this round: the position in the retry schedule. */
  readonly scheduleStep: number;
  /**
   * Null: the delivery the event itself carries, to the payment's own webhook URL or the merchant's default (the
   * default alone for an event of no payment).
   * Else the delivery it owes one of the merchant's webhook endpoints (decision 0058), recorded apart.
   */
  readonly delivery: { readonly id: string; readonly endpointId: string } | null;
  /** The payment's own webhook URL, else the merchant's default, or the endpoint's; null when none is set. */
  readonly url: string | null;
  readonly webhookSecret: string;
  readonly previousWebhookSecret: { readonly secret: string; readonly until: Date } | null;
}

/** How an attempt ended, as recorded with it. */
export interface WebhookAttemptResult {
  readonly finishedAt: Date;
  readonly durationMs: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  /** At most the first 4 KiB of the response body. */
  readonly responseBody: string | null;
  readonly outcome: Exclude<AttemptOutcome, 'abandoned'>;
  readonly nextAttemptAt: Date | null;
}

/** The event's delivery state after an attempt. */
export interface WebhookDeliveryUpdate {
  readonly status: Exclude<DeliveryStatus, 'delivering'>;
  readonly nextAttemptAt: Date | null;
  readonly scheduleStep: number;
  readonly deliveredAt: Date | null;
}

/** An outbox event with its delivery state. */
export interface WebhookEventRecord extends OutboxEvent {
  readonly deliveryStatus: DeliveryStatus;
  readonly attemptCount: number;
  readonly nextAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
}

export interface WebhookAttemptRecord {
  readonly eventId: string;
  readonly attemptNumber: number;
  readonly url: string | null;
  readonly startedAt: Date;
  /** Null while in flight. */
  readonly finishedAt: Date | null;
  readonly durationMs: number | null;
  readonly statusCode: number | null;
  readonly outcome: AttemptOutcome | null;
  readonly error: string | null;
  readonly responseBody: string | null;
  readonly nextAttemptAt: Date | null;
}

/** An event's delivery to one of the merchant's webhook endpoints: a row of its own (decision 0058). */
export interface EndpointDeliveryRecord {
  readonly eventId: string;
  readonly merchantId: string;
  readonly endpointId: string;
  /** The endpoint's URL now (its last attempt's, if it has one). */
  readonly url: string;
  readonly deliveryStatus: DeliveryStatus;
  readonly attemptCount: number;
  /** Its latest attempt, if any. */
  readonly lastAttempt: Pick<WebhookAttemptRecord, 'startedAt' | 'statusCode' | 'error' | 'outcome'> | null;
}

export interface WebhookEventFilter {
  readonly merchantId?: string | undefined;
  /** Only events of this mode, of payments or subscriptions (a merchant's key sees its own mode only); absent: all. */
  readonly mode?: KeyMode | undefined;
  readonly paymentId?: string | undefined;
  readonly status?: DeliveryStatus | undefined;
  readonly limit: number;
}

/** The outbox as the webhook dispatcher and the operators see it. */
export interface WebhookStore {
  /**
   * Claims up to `limit` due events — never attempted, retry time reached, or leased by a worker whose lease
   * ran out — leases them until `now + leaseMs`, and records each attempt as started. Concurrent callers never
   * claim the same event (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one writer at a time).
   */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<WebhookJob[]>;
  /**
   * Records the attempt's result and the event's next state. The state is written only if the claim still
   * holds (nobody claimed the event again after the lease ran out); returns whether it did.
   */
  completeAttempt(
    job: WebhookJob,
    result: WebhookAttemptResult,
    next: WebhookDeliveryUpdate,
  ): Promise<boolean>;
  /** Newest first. */
  listEvents(filter: WebhookEventFilter): Promise<WebhookEventRecord[]>;
  findEvent(eventId: string): Promise<WebhookEventRecord | undefined>;
  /** Attempts of these events, oldest first, at most `limit`. */
  listAttempts(eventIds: readonly string[], limit: number): Promise<WebhookAttemptRecord[]>;
  /** The events' deliveries to the merchant's webhook endpoints (decision 0058), each with its last attempt. */
  listEndpointDeliveries(eventIds: readonly string[]): Promise<EndpointDeliveryRecord[]>;
  /** Every merchant's newest endpoint deliveries in this state (at most `limit`), for the operators' page. */
  listEndpointDeliveriesByStatus(
    status: 'pending' | 'failed',
    limit: number,
  ): Promise<EndpointDeliveryRecord[]>;
  /** Queues the event again with a fresh schedule, unless a worker is delivering it right now. */
  requeue(eventId: string, now: Date): Promise<'requeued' | 'in_flight' | 'not_found'>;
  /**
   * Makes `newSecret` the merchant's signing secret; the current one keeps signing too until
   * `previousUntil`. Returns false when there is no such merchant.
   */
  rotateSecret(merchantId: string, newSecret: string, previousUntil: Date, now: Date): Promise<boolean>;
}

/** One webhook request, sent as is: the outbound adapter adds nothing but User-Agent and Content-Type. */
export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type WebhookResponse =
  | {
      readonly kind: 'response';
      readonly statusCode: number;
      readonly retryAfter: string | undefined;
      /** At most the first 4 KiB. */
      readonly body: string;
      readonly durationMs: number;
    }
  | {
      /** No HTTP response: refused address, DNS failure, timeout, connection reset … */
      readonly kind: 'error';
      readonly error: string;
      readonly durationMs: number;
    };

/** Sends webhooks to merchants' servers. Never throws: every failure is a `kind: 'error'` result. */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** DNS: the addresses a host name resolves to (all of them). Throws when it does not resolve. */
export interface HostResolver {
  resolve(hostname: string): Promise<string[]>;
}
