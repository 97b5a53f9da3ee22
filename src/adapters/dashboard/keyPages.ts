import type { FastifyInstance, FastifyReply } from 'fastify';
import { createRestrictedKey, revokeRestrictedKey } from '../../app/merchants/restrictedKeys.ts';
import { API_KEY_SCOPES } from '../../domain/apiKeyScopes.ts';
import { keyModeOf } from '../../domain/credentials.ts';
import { fill } from '../web/i18n.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { renderShownOnce } from './renderMerchantPages.ts';

/**
 * The developer page's restricted keys (decision 0056): one made (shown once) and one revoked, by a merchant
 * user signed in: the dashboard is the secret key's holder here. Written through the API's cached store
 * (`merchantAdmin`), so this process forgets a revoked key at once. Part of the developer page (developerPages.ts).
 */
export function keyPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  app.post('/dashboard/developers/keys', createKey(deps, kit));
  app.post('/dashboard/developers/keys/:id/revoke', revokeKey(deps, kit));
}

function createKey(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const fields = request.body ?? {};
    const mode = keyModeOf(fields.mode);
    const ctx = kit.context(request);
    return kit.guard(reply, signedIn, async () => {
      const { key, record } = await createRestrictedKey(deps.merchantAdmin, merchantOf(signedIn.user), mode, {
        name: fields.name ?? '',
        scopes: API_KEY_SCOPES.filter((scope) => fields[`scope-${scope}`] === 'on'),
        // A day picked in the form: the key works until that day begins, in UTC (said beside the field).
        expiresAt: fields.expires_on ? `${fields.expires_on}T00:00:00Z` : undefined,
      });
      request.log.info(
        { key: record.id, scopes: record.scopes },
        'restricted API key created from the dashboard',
      );
      return reply.send(
        renderShownOnce({
          signedIn,
          ctx,
          title: fill(ctx.t.keys.newKey, { name: record.name ?? '' }),
          secrets: [{ label: ctx.t.shownOnce.apiKey, value: key }],
          note: fill(ctx.t.keys.note, { scopes: record.scopes.join(', ') }),
        }),
      );
    });
  };
}

function revokeKey(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const merchantId = merchantOf(signedIn.user);
    const { id } = request.params as { id: string };
    return kit.guard(reply, signedIn, async () => {
      // The dashboard holds both modes' secret keys: the key is revoked in its own mode, or not found.
      const key = (await deps.merchants.listKeys(merchantId)).find((candidate) => candidate.id === id);
      await revokeRestrictedKey(deps.merchantAdmin, merchantId, key?.mode ?? 'live', id);
      request.log.info({ key: id }, 'restricted API key revoked from the dashboard');
      return reply.redirect('/dashboard/developers', 303);
    });
  };
}
