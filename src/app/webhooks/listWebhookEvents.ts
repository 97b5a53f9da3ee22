import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/webhookDelivery.ts';
import { isPaymentId, PaymentNotFoundError } from '../payments/getPaymentStatus.ts';
import type { PaymentStore } from '../payments/ports.ts';
import type {
  EndpointDeliveryRecord,
  WebhookAttemptRecord,
  WebhookEventFilter,
  WebhookEventRecord,
  WebhookStore,
} from './ports.ts';

/**
 * The webhook log: events with their delivery state and every attempt. Operators (CLI, admin API) see any
 * merchant's; a merchant sees only its own, and another merchant's payment is the same 404 as a missing one.
 */
export interface WebhookEventWithAttempts {
  readonly event: WebhookEventRecord;
  readonly attempts: readonly WebhookAttemptRecord[];
  /** Its deliveries to the merchant's webhook endpoints (decision 0058), each a row of its own. */
  readonly endpointDeliveries: readonly EndpointDeliveryRecord[];
}

const DEFAULT_EVENT_LIMIT = 50;
export const MAX_EVENT_LIMIT = 100;
/** Attempts listed per event at most (a schedule has 10 per round; resends add rounds). */
const MAX_ATTEMPTS_PER_EVENT = 100;

export class WebhookEventNotFoundError extends PaylinkError {
  constructor() {
    super('NOT_FOUND', 'Webhook event not found');
  }
}

/** The store's filter as the caller gives it: the status as typed and the page size optional, checked here. */
export interface WebhookEventQuery extends Omit<WebhookEventFilter, 'status' | 'limit'> {
  readonly status?: string | undefined;
  readonly limit?: number | undefined;
}

function parseStatus(status: string | undefined): DeliveryStatus | undefined {
  if (status === undefined || status === '') return undefined;
  if (!(DELIVERY_STATUSES as readonly string[]).includes(status)) {
    throw new ValidationError('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  return status as DeliveryStatus;
}

function parseLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_EVENT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_EVENT_LIMIT) {
    throw new ValidationError('limit', `must be an integer from 1 to ${MAX_EVENT_LIMIT}`);
  }
  return limit;
}

async function withAttempts(
  webhooks: WebhookStore,
  events: readonly WebhookEventRecord[],
): Promise<WebhookEventWithAttempts[]> {
  const ids = events.map((e) => e.id);
  const [attempts, deliveries] = await Promise.all([
    webhooks.listAttempts(ids, events.length * MAX_ATTEMPTS_PER_EVENT),
    webhooks.listEndpointDeliveries(ids),
  ]);
  return events.map((event) => ({
    event,
    attempts: attempts.filter((a) => a.eventId === event.id),
    endpointDeliveries: deliveries.filter((d) => d.eventId === event.id),
  }));
}

/** Newest first. */
export async function listWebhookEvents(
  deps: { readonly webhooks: WebhookStore },
  query: WebhookEventQuery,
): Promise<WebhookEventWithAttempts[]> {
  const events = await deps.webhooks.listEvents({
    merchantId: query.merchantId,
    mode: query.mode,
    paymentId: query.paymentId?.toLowerCase(),
    status: parseStatus(query.status),
    limit: parseLimit(query.limit),
  });
  return withAttempts(deps.webhooks, events);
}

/** A merchant's own recent events of its key's mode, optionally of one of its payments. */
export async function listMerchantWebhookEvents(
  deps: { readonly webhooks: WebhookStore; readonly payments: PaymentStore },
  merchantId: string,
  query: { readonly paymentId?: string | undefined; readonly limit?: number | undefined },
  mode: KeyMode = 'live',
): Promise<WebhookEventWithAttempts[]> {
  if (query.paymentId !== undefined && query.paymentId !== '') {
    const payment = isPaymentId(query.paymentId)
      ? await deps.payments.findForMerchant(merchantId, query.paymentId.toLowerCase(), mode)
      : undefined;
    if (!payment) throw new PaymentNotFoundError();
    return listWebhookEvents(deps, { merchantId, paymentId: payment.id, limit: query.limit });
  }
  return listWebhookEvents(deps, { merchantId, mode, limit: query.limit });
}

export async function getWebhookEvent(
  deps: { readonly webhooks: WebhookStore },
  eventId: string,
): Promise<WebhookEventWithAttempts> {
  const event = await deps.webhooks.findEvent(eventId);
  if (!event) throw new WebhookEventNotFoundError();
  const [found] = await withAttempts(deps.webhooks, [event]);
  return found!;
}

/** What an attempt got: `HTTP 500`, or the error when no response came (null while it is in flight). */
export function attemptAnswer(attempt: WebhookAttemptRecord): string | null {
  return attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : attempt.error;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** The JSON view shared by the CLI, the admin API and the merchant API. */
export function describeWebhookEvent({ event, attempts }: WebhookEventWithAttempts) {
  return {
    id: event.id,
    event: event.type,
    payment_id: event.paymentId,
    subscription_id: event.subscriptionId ?? null,
    merchant_id: event.merchantId,
    created_at: event.createdAt.toISOString(),
    delivery_status: event.deliveryStatus,
    attempt_count: event.attemptCount,
    next_attempt_at: event.deliveryStatus === 'pending' ? iso(event.nextAttemptAt ?? event.createdAt) : null,
    delivered_at: iso(event.deliveredAt),
    payload: JSON.parse(event.payload) as Record<string, unknown>,
    attempts: attempts.map((a) => ({
      attempt: a.attemptNumber,
      url: a.url,
      started_at: a.startedAt.toISOString(),
      finished_at: iso(a.finishedAt),
      duration_ms: a.durationMs,
      status_code: a.statusCode,
      outcome: a.outcome,
      error: a.error,
      response_body: a.responseBody,
      next_attempt_at: iso(a.nextAttemptAt),
    })),
  };
}

export type WebhookEventView = ReturnType<typeof describeWebhookEvent>;
