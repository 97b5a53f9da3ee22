import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describeWebhookEvent, listMerchantWebhookEvents } from '../../../app/webhooks/listWebhookEvents.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { merchantPlugin, merchantRoutes } from '../merchantRoutes.ts';
import { LimitQuery, WebhookEventList } from '../webhookSchemas.ts';

/**
 * `GET /payments/api/webhooks/?payment_id=`: a merchant's recent webhook events with every delivery attempt
 * (status code, duration, the start of its server's answer), so it can debug its endpoint without asking us.
 */
export function merchantWebhooksApi(deps: ApiDeps): FastifyPluginAsyncZod {
  return merchantPlugin(deps, (app) => {
    merchantRoutes(app, 'webhooks').get(
      '/payments/api/webhooks/',
      'events:read',
      'List recent webhook events and their delivery attempts',
      {
        querystring: z.object({
          payment_id: z.string().optional().meta({ description: 'Only the events of this payment' }),
          limit: LimitQuery.meta({ description: 'At most this many events (default 50, max 100)' }),
        }),
        response: { 200: WebhookEventList },
      },
      async ({ query }, { merchant, mode }) => {
        const events = await listMerchantWebhookEvents(
          deps,
          merchant.id,
          { paymentId: query.payment_id, limit: query.limit },
          mode,
        );
        return { events: events.map(describeWebhookEvent) };
      },
    );
  });
}
