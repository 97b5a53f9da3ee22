import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describeMerchant } from '../../../app/merchants/merchantAdmin.ts';
import {
  describeWebhookEvent,
  getWebhookEvent,
  listWebhookEvents,
} from '../../../app/webhooks/listWebhookEvents.ts';
import { resendWebhookEvent } from '../../../app/webhooks/resendWebhookEvent.ts';
import { DEFAULT_SECRET_OVERLAP_MS, rotateWebhookSecret } from '../../../app/webhooks/rotateWebhookSecret.ts';
import { parseDuration } from '../../../domain/duration.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { requireAdminToken } from '../adminAuth.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { ErrorBody } from '../schemas.ts';
import { LimitQuery, WebhookEventList, WebhookEventView } from '../webhookSchemas.ts';

const security = [{ adminToken: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const EventParams = z.object({ event_id: z.string() });

/** The webhook log and its operations for administrators: the same as `paylink webhooks …`. */
export function adminWebhooksApi(deps: ApiDeps, adminToken: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', requireAdminToken(adminToken));

    app.get(
      '/admin/api/webhooks/',
      {
        schema: {
          summary: 'List webhook events, newest first',
          tags: ['admin'],
          security,
          querystring: z.object({
            payment_id: z.string().optional(),
            merchant_id: z.string().optional(),
            status: z
              .string()
              .optional()
              .meta({ description: 'pending, delivering, delivered, failed or stopped' }),
            limit: LimitQuery,
          }),
          response: { 200: WebhookEventList, 400: ErrorBody, 401: ErrorBody },
        },
      },
      async (request) => {
        const events = await listWebhookEvents(deps, {
          paymentId: request.query.payment_id,
          merchantId: request.query.merchant_id,
          status: request.query.status,
          limit: request.query.limit,
        });
        return { events: events.map(describeWebhookEvent) };
      },
    );

    app.get(
      '/admin/api/webhooks/:event_id/',
      {
        schema: {
          summary: 'Show a webhook event and its attempts',
          tags: ['admin'],
          security,
          params: EventParams,
          response: { 200: WebhookEventView, ...errors },
        },
      },
      async (request) => describeWebhookEvent(await getWebhookEvent(deps, request.params.event_id)),
    );

    app.post(
      '/admin/api/webhooks/:event_id/resend/',
      {
        schema: {
          summary: 'Send an event again now, with a fresh retry schedule',
          tags: ['admin'],
          security,
          params: EventParams,
          response: { 200: WebhookEventView, ...errors, 409: ErrorBody },
        },
      },
      async (request) => {
        await resendWebhookEvent(deps, request.params.event_id);
        request.log.info({ event: request.params.event_id }, 'webhook event queued for resending');
        return describeWebhookEvent(await getWebhookEvent(deps, request.params.event_id));
      },
    );

    app.post(
      '/admin/api/merchants/:public_id/rotate-webhook-secret/',
      {
        schema: {
          summary: 'Issue a new webhook signing secret; the old one keeps signing during the overlap',
          tags: ['admin'],
          security,
          params: z.object({ public_id: z.string() }),
          body: z.object({ overlap: z.string().optional().meta({ example: '24h' }) }).nullish(),
          response: {
            200: z.object({
              merchant: z.looseObject({ public_id: z.string() }),
              webhook_secret: z.string().meta({ description: 'Shown once; store it now' }),
              previous_secret_valid_until: z.string().meta({ format: 'date-time' }),
            }),
            ...errors,
          },
        },
      },
      async (request) => {
        const overlapText = request.body?.overlap;
        const overlapMs = overlapText === undefined ? DEFAULT_SECRET_OVERLAP_MS : parseDuration(overlapText);
        if (overlapMs === undefined)
          throw new ValidationError('overlap', 'must be a duration such as 0, 30m or 24h');
        const rotated = await rotateWebhookSecret(deps, request.params.public_id, overlapMs);
        request.log.info({ merchant: rotated.merchant.id }, 'webhook secret rotated');
        return {
          merchant: describeMerchant(rotated.merchant),
          webhook_secret: rotated.webhookSecret,
          previous_secret_valid_until: rotated.previousSecretValidUntil.toISOString(),
        };
      },
    );
  };
}
