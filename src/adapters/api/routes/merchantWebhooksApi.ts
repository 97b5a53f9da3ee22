import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describeWebhookEvent, listMerchantWebhookEvents } from '../../../app/webhooks/listWebhookEvents.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { authenticated, keyModeOf, merchantSecurity, requireMerchant } from '../merchantAuth.ts';
import { ErrorBody } from '../schemas.ts';
import { LimitQuery, WebhookEventList } from '../webhookSchemas.ts';

/**
 * `GET /payments/api/webhooks/?payment_id=`: a merchant's recent webhook events with every delivery attempt
 * (status code, duration, the start of its server's answer), so it can debug its endpoint without asking us.
 */
export function merchantWebhooksApi(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    requireMerchant(app, deps);

    app.get(
      '/payments/api/webhooks/',
      {
        schema: {
          summary: 'List recent webhook events and their delivery attempts',
          tags: ['webhooks'],
          security: merchantSecurity,
          querystring: z.object({
            payment_id: z.string().optional().meta({ description: 'Only the events of this payment' }),
            limit: LimitQuery.meta({ description: 'At most this many events (default 50, max 100)' }),
          }),
          response: { 200: WebhookEventList, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const events = await listMerchantWebhookEvents(
          deps,
          authenticated(request).id,
          { paymentId: request.query.payment_id, limit: request.query.limit },
          keyModeOf(request),
        );
        return { events: events.map(describeWebhookEvent) };
      },
    );
  };
}
