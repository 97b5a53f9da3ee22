import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import {
  createMerchant,
  disableMerchant,
  enableMerchant,
  getMerchant,
  listWorkingKeys,
  type MerchantFields,
  rotateApiKey,
  updateMerchant,
} from '../../app/merchants/merchantAdmin.ts';
import { listPayouts } from '../../app/settlement/listPayouts.ts';
import { retrySettlement } from '../../app/settlement/retrySettlement.ts';
import { failingEndpoints } from '../../app/webhooks/failingEndpoints.ts';
import { rotateWebhookSecret } from '../../app/webhooks/rotateWebhookSecret.ts';
import { keyModeOf } from '../../domain/credentials.ts';
import { PaylinkError, problemsText } from '../../domain/errors.ts';
import { fill } from '../web/i18n.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import type { FormRequest, PageKit } from './pageKit.ts';
import { renderShownOnce } from './renderMerchantPages.ts';
import {
  type MerchantForm,
  renderFailingEndpoints,
  renderHealth,
  renderMerchant,
  renderMerchants,
  renderNewMerchant,
  renderPayouts,
} from './renderOperatorPages.ts';

/** How long old keys keep working after an operator rolls them, as offered by the form. */
const GRACE_CHOICES_MS: Readonly<Record<string, number>> = {
  '0': 0,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 604_800_000,
};

/**
 * The operator's console: merchants (create, edit, disable, enable, roll keys, rotate the webhook secret),
 * payouts that wait and why (with "Retry now"), failing webhook endpoints, and the service's health. Merchant
 * changes go through the same use cases as `paylink merchant …` and the admin API, so they refuse alike.
 */
export function operatorPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  app.get('/dashboard/merchants', merchantsPage(deps, kit));
  app.get('/dashboard/merchants/new', newMerchantPage(kit));
  app.post('/dashboard/merchants', createMerchantForm(deps, kit));
  app.get('/dashboard/merchants/:id', merchantPage(deps, kit));
  app.post('/dashboard/merchants/:id', updateMerchantForm(deps, kit));
  app.post('/dashboard/merchants/:id/disable', changeMerchant(deps, kit, 'disable', disableMerchant));
  app.post('/dashboard/merchants/:id/enable', changeMerchant(deps, kit, 'enable', enableMerchant));
  app.post('/dashboard/merchants/:id/roll-key', rollMerchantKey(deps, kit));
  app.post('/dashboard/merchants/:id/rotate-webhook-secret', rotateMerchantSecret(deps, kit));
  app.get('/dashboard/payouts', payoutsPage(deps, kit));
  app.post('/dashboard/payouts/:id/retry', retryPayout(deps, kit));
  app.get('/dashboard/webhooks', failingEndpointsPage(deps, kit));
  app.get('/dashboard/health', healthPage(deps, kit));
}

function operator(kit: PageKit, request: FastifyRequest, reply: FastifyReply) {
  return kit.requireRole('operator', request, reply);
}

/** An operator's form, checked for its CSRF token; undefined when refused (the reply is sent). */
async function operatorForm(kit: PageKit, request: FormRequest, reply: FastifyReply) {
  const signedIn = await operator(kit, request, reply);
  return signedIn && !kit.refusedForgery(request, reply, signedIn) ? signedIn : undefined;
}

function merchantsPage(deps: DashboardDeps, kit: PageKit) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = await operator(kit, request, reply);
    if (!signedIn) return reply;
    return renderMerchants({
      signedIn,
      ctx: kit.context(reply.request),
      merchants: await deps.merchants.list(1000),
    });
  };
}

function newMerchantPage(kit: PageKit) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = await operator(kit, request, reply);
    if (!signedIn) return reply;
    return renderNewMerchant({ signedIn, ctx: kit.context(reply.request), form: {} });
  };
}

/** A new merchant, its live key and signing secret shown once; a refusal shows the form again with the problem. */
function createMerchantForm(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await operatorForm(kit, request, reply);
    if (!signedIn) return reply;
    const form = merchantForm(request.body);
    const { operator: o, shownOnce: shown } = kit.context(request).t;
    try {
      const issued = await createMerchant(deps.merchantAdmin, { ...fieldsOf(form), name: form.name ?? '' });
      request.log.info({ merchant: issued.merchant.id }, 'merchant created from the dashboard');
      return renderShownOnce({
        signedIn,
        ctx: kit.context(reply.request),
        title: fill(o.created, { name: issued.merchant.name }),
        secrets: [
          { label: o.liveKey, value: issued.apiKey },
          { label: shown.signingSecret, value: issued.merchant.webhookSecret },
        ],
        note: o.giveBoth,
        back: `/dashboard/merchants/${issued.merchant.id}`,
      });
    } catch (error) {
      if (!(error instanceof PaylinkError)) throw error;
      return reply.status(error.status).send(
        renderNewMerchant({
          signedIn,
          ctx: kit.context(reply.request),
          form,
          problem: problemsText(error),
        }),
      );
    }
  };
}

/** Sends a merchant's page, or (with `edit`) the page again with the refused edit and its problem. */
async function showMerchant(
  deps: DashboardDeps,
  kit: PageKit,
  signedIn: SignedIn,
  reply: FastifyReply,
  id: string,
  edit?: { form: MerchantForm; problem: string; status: number },
) {
  const merchant = await getMerchant(deps, id);
  const keys = await listWorkingKeys(deps, merchant.id);
  return reply.status(edit?.status ?? 200).send(
    renderMerchant({
      signedIn,
      ctx: kit.context(reply.request),
      merchant,
      keys,
      form: edit?.form,
      problem: edit?.problem,
    }),
  );
}

function merchantPage(deps: DashboardDeps, kit: PageKit) {
  return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const signedIn = await operator(kit, request, reply);
    if (!signedIn) return reply;
    return kit.guard(reply, signedIn, () => showMerchant(deps, kit, signedIn, reply, request.params.id));
  };
}

function updateMerchantForm(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await operatorForm(kit, request, reply);
    if (!signedIn) return reply;
    const { id } = request.params as { id: string };
    const form = merchantForm(request.body);
    return kit.guard(reply, signedIn, async () => {
      try {
        await updateMerchant(deps.merchantAdmin, id, fieldsOf(form));
      } catch (error) {
        if (!(error instanceof PaylinkError) || error.code === 'NOT_FOUND') throw error;
        return showMerchant(deps, kit, signedIn, reply, id, {
          form,
          problem: problemsText(error),
          status: error.status,
        });
      }
      return reply.redirect(`/dashboard/merchants/${id}`, 303);
    });
  };
}

/** Disables or enables a merchant (`action` names it in the log). */
function changeMerchant(
  deps: DashboardDeps,
  kit: PageKit,
  action: 'disable' | 'enable',
  change: typeof disableMerchant,
) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await operatorForm(kit, request, reply);
    if (!signedIn) return reply;
    const { id } = request.params as { id: string };
    return kit.guard(reply, signedIn, async () => {
      // Disabling cannot wait for a second thought: the form's required box says the operator means it.
      if (action === 'disable' && request.body?.confirmed !== 'yes')
        return kit.refuse(reply, signedIn, 400, kit.context(request).t.operator.notConfirmed);
      await change(deps.merchantAdmin, id);
      request.log.info({ merchant: id }, `merchant ${action}d from the dashboard`);
      return reply.redirect(`/dashboard/merchants/${id}`, 303);
    });
  };
}

/** A merchant's new key, shown once; its old keys of the mode keep working as long as the form chose. */
function rollMerchantKey(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await operatorForm(kit, request, reply);
    if (!signedIn) return reply;
    const { id } = request.params as { id: string };
    const mode = keyModeOf(request.body?.mode);
    const graceMs = GRACE_CHOICES_MS[request.body?.grace ?? ''] ?? GRACE_CHOICES_MS['24h']!;
    const { operator: o, shownOnce: shown } = kit.context(request).t;
    return kit.guard(reply, signedIn, async () => {
      const issued = await rotateApiKey(deps.merchantAdmin, id, graceMs, mode);
      request.log.info({ merchant: id, mode }, 'API key rolled from the dashboard');
      return renderShownOnce({
        signedIn,
        ctx: kit.context(reply.request),
        title: fill(o.newKeyFor, { mode, name: issued.merchant.name }),
        secrets: [{ label: shown.apiKey, value: issued.apiKey }],
        note: fill(graceMs === 0 ? shown.keysStopped : shown.keysKeepWorking, { mode }),
        until: graceMs === 0 ? undefined : new Date(deps.clock.now().getTime() + graceMs),
        back: `/dashboard/merchants/${id}`,
      });
    });
  };
}

function rotateMerchantSecret(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await operatorForm(kit, request, reply);
    if (!signedIn) return reply;
    const { id } = request.params as { id: string };
    const { operator: o, shownOnce: shown } = kit.context(request).t;
    return kit.guard(reply, signedIn, async () => {
      const rotated = await rotateWebhookSecret(deps, id);
      request.log.info({ merchant: id }, 'webhook secret rotated from the dashboard');
      return renderShownOnce({
        signedIn,
        ctx: kit.context(reply.request),
        title: fill(o.newSecretFor, { name: rotated.merchant.name }),
        secrets: [{ label: shown.signingSecret, value: rotated.webhookSecret }],
        note: shown.switchSecret,
        until: rotated.previousSecretValidUntil,
        back: `/dashboard/merchants/${id}`,
      });
    });
  };
}

/** Payouts still owed, the failing ones by default, each with "Retry now". */
function payoutsPage(deps: DashboardDeps, kit: PageKit) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = await operator(kit, request, reply);
    if (!signedIn) return reply;
    if (!deps.payouts) return kit.refuse(reply, signedIn, 404);
    const all = (request.query as { all?: string }).all === '1';
    const payouts = await listPayouts(
      { settlements: deps.payouts.settlements, clock: deps.clock },
      deps.payouts.policy,
      { failingOnly: !all, limit: 200 },
    );
    return renderPayouts({ signedIn, ctx: kit.context(reply.request), payouts, all });
  };
}

function retryPayout(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await operatorForm(kit, request, reply);
    if (!signedIn) return reply;
    const payouts = deps.payouts;
    if (!payouts) return kit.refuse(reply, signedIn, 404);
    return kit.guard(reply, signedIn, async () => {
      await retrySettlement(payouts, { paymentId: (request.params as { id: string }).id });
      return reply.redirect('/dashboard/payouts', 303);
    });
  };
}

function failingEndpointsPage(deps: DashboardDeps, kit: PageKit) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = await operator(kit, request, reply);
    if (!signedIn) return reply;
    return renderFailingEndpoints({
      signedIn,
      ctx: kit.context(reply.request),
      endpoints: await failingEndpoints(deps),
    });
  };
}

function healthPage(deps: DashboardDeps, kit: PageKit) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = await operator(kit, request, reply);
    if (!signedIn) return reply;
    if (!deps.measure) return kit.refuse(reply, signedIn, 404);
    return renderHealth({
      signedIn,
      ctx: kit.context(reply.request),
      measured: await deps.measure(),
      nativeSymbols: deps.nativeSymbols ?? new Map(),
      at: deps.clock.now(),
    });
  };
}

function merchantForm(body: Record<string, string | undefined> | undefined): MerchantForm {
  return {
    name: body?.name,
    wallet: body?.wallet,
    webhookUrl: body?.webhook_url,
    commissionPercent: body?.commission_percent,
    tolerancePercent: body?.underpayment_tolerance_percent,
  };
}

/** Blank fields clear the wallet and webhook URL; blank percentages leave them as they are. */
function fieldsOf(form: MerchantForm): MerchantFields {
  const percent = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
  return {
    name: form.name,
    wallet: form.wallet,
    webhookUrl: form.webhookUrl,
    commissionPercent: percent(form.commissionPercent),
    underpaymentTolerancePercent: percent(form.tolerancePercent),
  };
}
