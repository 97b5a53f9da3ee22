import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authenticateMerchant } from '../../../app/authenticateMerchant.ts';
import { describeWebhookEvent, listMerchantWebhookEvents } from '../../../app/webhooks/listWebhookEvents.ts';
import type { ApiDeps } from '../buildApp.ts';
import { ErrorBody } from '../schemas.ts';
import { LimitQuery, WebhookEventList } from '../webhookSchemas.ts';
import { presentedApiKey } from './merchantApi.ts';

const security = [{ apiKey: [] }, { bearer: [] }];

/**
 * `GET /payments/api/webhooks/?payment_id=`: a merchant's recent webhook events with every delivery attempt
 * (status code, duration, the start of its server's answer), so it can debug its endpoint without asking us.
 */
export function merchantWebhooksApi(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    // The same authentication as the other merchant routes, before anything else is read.
    app.addHook('onRequest', async (request) => {
      const { merchant } = await authenticateMerchant(deps, presentedApiKey(request));
      request.merchant = merchant;
      request.log = request.log.child({ merchant: merchant.id });
    });

    app.get(
      '/payments/api/webhooks/',
      {
        schema: {
          summary: 'List recent webhook events and their delivery attempts',
          tags: ['webhooks'],
          security,
          querystring: z.object({
            payment_id: z.string().optional().meta({ description: 'Only the events of this payment' }),
            limit: LimitQuery.meta({ description: 'At most this many events (default 50, max 100)' }),
          }),
          response: { 200: WebhookEventList, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        if (!request.merchant) throw new Error('route reached without authentication');
        const events = await listMerchantWebhookEvents(deps, request.merchant.id, {
          paymentId: request.query.payment_id,
          limit: request.query.limit,
        });
        return { events: events.map(describeWebhookEvent) };
      },
    );
  };
}
