import { z } from 'zod';
import { DELIVERY_STATUSES } from '../../domain/webhookDelivery.ts';

/** Response schemas of the webhook log, shared by the merchant and admin routes (and so by /openapi.json). */

const timestamp = z.string().meta({ format: 'date-time' });

const WebhookAttemptView = z
  .object({
    attempt: z.number().int().meta({ description: 'Attempt number for this event: 1, 2, …' }),
    url: z.string().nullable().meta({ description: 'Where it was sent; null when no URL was configured' }),
    started_at: timestamp,
    finished_at: timestamp.nullable().meta({ description: 'Null while in flight' }),
    duration_ms: z.number().int().nullable(),
    status_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'HTTP status; null when there was no response' }),
    outcome: z
      .enum(['delivered', 'retry', 'stopped', 'failed', 'abandoned'])
      .nullable()
      .meta({ description: 'abandoned: the worker stopped during the attempt; it was retried' }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why there was no usable response (timeout, refused …)' }),
    response_body: z.string().nullable().meta({ description: 'The first 4 KiB of the response body' }),
    next_attempt_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookAttempt' });

export const WebhookEventView = z
  .object({
    id: z
      .string()
      .meta({ description: 'Event id, sent as webhook-id: de-duplicate on it', example: 'evt_…' }),
    event: z.string().meta({ example: 'payment.paid' }),
    payment_id: z.string().nullable().meta({
      description: "The payment whose timeline the event is on; null on a subscription's own",
    }),
    subscription_id: z.string().nullable().meta({
      description: "Set (and `payment_id` null) when the event is on a subscription's own timeline",
    }),
    merchant_id: z.string(),
    created_at: timestamp,
    delivery_status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number().int(),
    next_attempt_at: timestamp.nullable(),
    delivered_at: timestamp.nullable(),
    payload: z.record(z.string(), z.unknown()).meta({ description: 'The webhook body, as sent' }),
    attempts: z.array(WebhookAttemptView),
  })
  .meta({ id: 'WebhookEvent' });

export const WebhookEventList = z
  .object({ events: z.array(WebhookEventView) })
  .meta({ id: 'WebhookEventList' });

/** `?limit=` as text; checked by the use case (1 to 100). */
export const LimitQuery = z
  .string()
  .regex(/^\d{1,3}$/, { error: 'must be an integer from 1 to 100' })
  .transform(Number)
  .optional();
