import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { listWorkingKeys, rotateApiKey } from '../../app/merchants/merchantAdmin.ts';
import { listMerchantWebhookEvents } from '../../app/webhooks/listWebhookEvents.ts';
import { rotateWebhookSecret } from '../../app/webhooks/rotateWebhookSecret.ts';
import { sendTestWebhook } from '../../app/webhooks/sendTestWebhook.ts';
import { keyModeOf } from '../../domain/credentials.ts';
import { fill } from '../web/i18n.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { keyPages } from './keyPages.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { renderDevelopers, renderShownOnce } from './renderMerchantPages.ts';
import { webhookEndpointPages } from './webhookEndpointPages.ts';

/** Old keys keep working this long after "Roll key": time to deploy the new one. */
const KEY_GRACE_MS = 24 * 3_600_000;

/**
 * A merchant user's developer page (keys, webhook settings, test webhook, last deliveries) and what it does:
 * roll a key, rotate the webhook secret, send a test webhook; the restricted keys' and webhook endpoints' pages
 * beside it. Part of the merchant's pages (merchantPages.ts).
 */
export function developerPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  app.get('/dashboard/developers', async (request, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    return developersPage(deps, kit, signedIn, reply);
  });
  app.post('/dashboard/developers/roll-key', rollKey(deps, kit));
  app.post('/dashboard/developers/rotate-webhook-secret', rotateSecret(deps, kit));
  app.post('/dashboard/developers/test-webhook', testWebhook(deps, kit));
  keyPages(app, deps, kit);
  webhookEndpointPages(app, deps, kit);
}

async function developersPage(
  deps: DashboardDeps,
  kit: PageKit,
  signedIn: SignedIn,
  reply: FastifyReply,
  test?: Parameters<typeof renderDevelopers>[0]['test'],
) {
  const merchantId = merchantOf(signedIn.user);
  const [merchant, keys, deliveries] = await Promise.all([
    deps.merchants.find(merchantId),
    listWorkingKeys(deps, merchantId),
    listMerchantWebhookEvents(deps, merchantId, { limit: 20 }),
  ]);
  if (!merchant) return kit.refuse(reply, signedIn, 404);
  return reply.send(
    renderDevelopers({
      signedIn,
      ctx: kit.context(reply.request),
      merchant,
      keys,
      deliveries,
      canTest: deps.webhookSender !== undefined,
      test,
    }),
  );
}

/** A new key, shown once; the old ones of its mode keep working for a day, so nothing breaks mid-deploy. */
function rollKey(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const mode = keyModeOf(request.body?.mode);
    const o = kit.context(request).t.shownOnce;
    return kit.guard(reply, signedIn, async () => {
      const issued = await rotateApiKey(deps.merchantAdmin, merchantOf(signedIn.user), KEY_GRACE_MS, mode);
      request.log.info({ merchant: issued.merchant.id, mode }, 'API key rolled from the dashboard');
      return reply.send(
        renderShownOnce({
          signedIn,
          ctx: kit.context(reply.request),
          title: fill(o.newKey, { mode }),
          secrets: [{ label: o.apiKey, value: issued.apiKey }],
          note: fill(o.keysKeepWorking, { mode }),
          until: new Date(deps.clock.now().getTime() + KEY_GRACE_MS),
        }),
      );
    });
  };
}

/** A new signing secret, shown once; for a day every webhook is signed with the old and the new one. */
function rotateSecret(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const o = kit.context(request).t.shownOnce;
    return kit.guard(reply, signedIn, async () => {
      const rotated = await rotateWebhookSecret(deps, merchantOf(signedIn.user));
      request.log.info({ merchant: rotated.merchant.id }, 'webhook secret rotated from the dashboard');
      return reply.send(
        renderShownOnce({
          signedIn,
          ctx: kit.context(reply.request),
          title: o.newSecret,
          secrets: [{ label: o.signingSecret, value: rotated.webhookSecret }],
          note: o.switchSecret,
          until: rotated.previousSecretValidUntil,
        }),
      );
    });
  };
}

/** A test webhook to the merchant's endpoint, its answer shown on the developer page. */
function testWebhook(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const sender = deps.webhookSender;
    if (!sender) return kit.refuse(reply, signedIn, 404);
    return kit.guard(reply, signedIn, async () => {
      const result = await sendTestWebhook({ ...deps, sender }, merchantOf(signedIn.user));
      return developersPage(deps, kit, signedIn, reply, result);
    });
  };
}
