import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { WebhookEndpointStore } from '../../app/webhooks/endpointPorts.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateEndpointSecret,
  updateWebhookEndpoint,
} from '../../app/webhooks/webhookEndpoints.ts';
import { keyModeOf } from '../../domain/credentials.ts';
import { PAYMENT_EVENT_TYPES } from '../../domain/paymentStatus.ts';
import type { WebhookEndpoint } from '../../domain/webhookEndpoint.ts';
import { fill, type Message } from '../web/i18n.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import type { PageContext } from './renderDashboard.ts';
import { renderShownOnce } from './renderMerchantPages.ts';
import { renderWebhookEndpoints } from './renderWebhookEndpoints.ts';

const PAGE = '/dashboard/developers/webhooks';

/**
 * A merchant user's webhook endpoints page (decision 0058): list those of a mode, add one (its secret shown once),
 * turn one off or on, rotate its secret (the old one signs for 24 hours more), delete it. The same use cases as
 * the API's, so the same input is refused. Served only where the endpoints' store is wired.
 */
export function webhookEndpointPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  const store = deps.webhookEndpoints;
  if (!store) return;
  const rules = { ...deps.merchantAdmin, webhookEndpoints: store, clock: deps.clock };
  app.get(PAGE, async (request, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const mode = keyModeOf((request.query as { mode?: unknown }).mode);
    const endpoints = await store.list(merchantOf(signedIn.user), mode);
    const ctx = kit.context(request);
    return reply.send(renderWebhookEndpoints({ signedIn, ctx, mode, endpoints, now: deps.clock.now() }));
  });
  app.post(PAGE, async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const fields = request.body ?? {};
    const mode = keyModeOf(fields.mode);
    const wanted = PAYMENT_EVENT_TYPES.filter((type) => fields[`event-${type}`] === 'on');
    const ctx = kit.context(request);
    return kit.guard(reply, signedIn, async () => {
      const endpoint = await createWebhookEndpoint(rules, merchantOf(signedIn.user), mode, {
        url: fields.url ?? '',
        description: fields.description,
        // None ticked: every event, as the form says.
        eventTypes: wanted.length === 0 ? undefined : wanted,
      });
      request.log.info({ endpoint: endpoint.id }, 'webhook endpoint created from the dashboard');
      return reply.send(
        renderSecret(
          signedIn,
          ctx,
          endpoint,
          ctx.t.endpoints.created,
          ctx.t.endpoints.secretNote,
          `${PAGE}?mode=${mode}`,
        ),
      );
    });
  });
  app.post(`${PAGE}/:id/:action`, endpointAction(deps, kit, store, rules));
}

/**
 * The page that shows an endpoint's signing secret, this once: when the endpoint is made, and when its secret is
 * rotated (then with the moment the previous secret stops signing).
 */
function renderSecret(
  signedIn: SignedIn,
  ctx: PageContext,
  endpoint: WebhookEndpoint,
  title: Message,
  note: string,
  back: string,
): string {
  return renderShownOnce({
    signedIn,
    ctx,
    title: fill(title, { url: endpoint.url }),
    secrets: [{ label: ctx.t.endpoints.secret, value: endpoint.secret }],
    note,
    until: endpoint.previousSecret?.until,
    back,
  });
}

function endpointAction(
  deps: DashboardDeps,
  kit: PageKit,
  store: WebhookEndpointStore,
  rules: Parameters<typeof updateWebhookEndpoint>[0],
) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id, action } = request.params as { id: string; action: string };
    const mode = keyModeOf(request.body?.mode);
    const merchantId = merchantOf(signedIn.user);
    const ctx = kit.context(request);
    const back = `${PAGE}?mode=${mode}`;
    return kit.guard(reply, signedIn, async () => {
      if (action === 'enable' || action === 'disable') {
        await updateWebhookEndpoint(rules, merchantId, mode, id, { enabled: action === 'enable' });
      } else if (action === 'delete') {
        await deleteWebhookEndpoint({ webhookEndpoints: store, clock: deps.clock }, merchantId, mode, id);
      } else if (action === 'rotate') {
        const rotated = await rotateEndpointSecret(
          { webhookEndpoints: store, clock: deps.clock },
          merchantId,
          mode,
          id,
        );
        request.log.info({ endpoint: id }, 'webhook endpoint secret rotated from the dashboard');
        return reply.send(
          renderSecret(signedIn, ctx, rotated, ctx.t.endpoints.rotated, ctx.t.endpoints.oldSecretUntil, back),
        );
      } else {
        return kit.refuse(reply, signedIn, 404);
      }
      request.log.info({ endpoint: id, action }, 'webhook endpoint changed from the dashboard');
      return reply.redirect(back, 303);
    });
  };
}
