import { z } from 'zod';
import { PAYMENT_EVENT_TYPES } from '../../domain/paymentStatus.ts';
import { ALL_EVENT_TYPES, MAX_ENDPOINT_DESCRIPTION_LENGTH } from '../../domain/webhookEndpoint.ts';
import { optionalString, PageLimitQuery } from './schemas.ts';

/** The webhook endpoints' and the events API's request and response schemas (decision 0058). */

const timestamp = z.string().meta({ description: 'ISO 8601 UTC timestamp', format: 'date-time' });
const EVENT_TYPE_CHOICES = [ALL_EVENT_TYPES, ...PAYMENT_EVENT_TYPES];

const endpointFields = {
  url: optionalString(
    "Where the webhooks are POSTed: https, on a public host (checked as a payment's webhook_url is)",
    2048,
  ),
  description: optionalString(
    `What the endpoint is for (at most ${MAX_ENDPOINT_DESCRIPTION_LENGTH} characters)`,
    MAX_ENDPOINT_DESCRIPTION_LENGTH,
  ),
  event_types: z
    .array(z.string({ error: 'must be an array of event types' }), {
      error: 'must be an array of event types',
    })
    .max(EVENT_TYPE_CHOICES.length * 2, { error: 'has too many event types' })
    .optional()
    .meta({
      description: `The event types it receives; ["${ALL_EVENT_TYPES}"] (the default): every type, present and future`,
      items: { type: 'string', enum: EVENT_TYPE_CHOICES },
    }),
  enabled: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .meta({ description: 'false: nothing is sent to it; what it is owed waits until it is enabled again' }),
};

export const CreateEndpointBody = z.object(endpointFields, { error: 'must be a JSON object' });
export const UpdateEndpointBody = z.object(endpointFields, { error: 'must be a JSON object' });

export const RotateSecretBody = z
  .object({
    overlap: z
      .string({ error: 'must be a duration such as 0, 30m or 24h' })
      .max(20, { error: 'must be a duration such as 0, 30m or 24h' })
      .optional()
      .meta({
        description: 'How long the old secret keeps signing too (default 24h, at most 30d)',
        example: '24h',
      }),
  })
  .nullish();

export const EndpointParams = z.object({ endpoint_id: z.string().max(64) });

export const WebhookEndpointResponse = z
  .object({
    id: z.string().meta({ description: 'The endpoint id (we_…)' }),
    url: z.string(),
    description: z.string(),
    event_types: z.array(z.string()).meta({ description: `["${ALL_EVENT_TYPES}"]: every type` }),
    enabled: z.boolean(),
    livemode: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
    previous_secret_expires_at: timestamp
      .nullable()
      .meta({ description: "During a rotation's overlap, when the old secret stops signing; else null" }),
  })
  .meta({ id: 'WebhookEndpoint' });

export const EndpointWithSecret = WebhookEndpointResponse.extend({
  secret: z.string().meta({ description: 'The signing secret (whsec_…): shown this once, store it now' }),
}).meta({ id: 'WebhookEndpointWithSecret' });

export const EndpointList = z
  .object({ webhook_endpoints: z.array(WebhookEndpointResponse).meta({ description: 'Oldest first' }) })
  .meta({ id: 'WebhookEndpointList' });

export const DeletedEndpoint = z.object({ id: z.string(), deleted: z.literal(true) });

export const ListEventsQuery = z.object({
  type: z
    .enum(PAYMENT_EVENT_TYPES, { error: `must be one of ${PAYMENT_EVENT_TYPES.join(', ')}` })
    .optional()
    .meta({ description: 'Only events of this type' }),
  created_after: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z' })
    .optional()
    .meta({ description: 'Only events created strictly after this moment' }),
  created_before: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z' })
    .optional()
    .meta({ description: 'Only events created strictly before this moment' }),
  limit: PageLimitQuery,
  cursor: z
    .string({ error: 'must be a string' })
    .max(256, { error: 'is not a cursor returned for this query' })
    .optional()
    .meta({ description: '`next_cursor` of the previous page, with the same filters' }),
});

export const EventResponse = z
  .object({
    id: z.string().meta({ description: "The event id: the webhook-id and the body's id of its webhooks" }),
    event: z.enum(PAYMENT_EVENT_TYPES),
    created_at: timestamp,
    payment_id: z.string().nullable().meta({
      description:
        "The payment whose timeline the event is on; null for a subscription's change no period's payment carries",
    }),
    subscription_id: z.string().nullable().meta({
      description: "Set (and `payment_id` null) when the event is on a subscription's own timeline",
    }),
    livemode: z.boolean(),
    data: z
      .looseObject({})
      .meta({ description: 'The webhook body exactly as delivered (every delivery sends these bytes)' }),
  })
  .meta({ id: 'Event' });

export const EventList = z
  .object({
    events: z.array(EventResponse).meta({ description: 'Newest first' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
  })
  .meta({ id: 'EventList' });

export const EventParams = z.object({ event_id: z.string().max(64) });
