import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { changeSubscriptionPlan } from '../../app/subscriptions/changePlan.ts';
import { archivePlan, createPlan, listPlans } from '../../app/subscriptions/plans.ts';
import { subscriptionConsole } from '../../app/subscriptions/subscriptionConsole.ts';
import {
  cancelSubscription,
  listSubscriptions,
  showSubscription,
} from '../../app/subscriptions/subscriptions.ts';
import { type KeyMode, keyModeOf } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { typedAmount } from '../web/typedAmount.ts';
import type { DashboardDeps, DashboardSubscriptions } from './dashboardDeps.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { renderSubscriptionConsole } from './renderSubscriptionConsole.ts';
import {
  type PlanForm,
  renderPlans,
  renderSubscription,
  renderSubscriptions,
} from './renderSubscriptions.ts';

const PAGE_SIZE = 50;

type ListRequest = FastifyRequest<{ Querystring: { mode?: string; cursor?: string } }>;

/**
 * The merchant's subscriptions (decision 0062): the list with each one's status and next charge, one's page with
 * its payments and "Cancel" (at period end or at once), and the plans (list, "New plan", "Archive"), through the
 * same use cases as the API. The operator's console page (`/dashboard/renewals`): what is past due, due soon and
 * next, across merchants.
 */
export function subscriptionPages(
  app: FastifyInstance,
  deps: DashboardDeps & { readonly subscriptions: DashboardSubscriptions },
  kit: PageKit,
): void {
  const subs = deps.subscriptions;
  const testAvailable = deps.deposits.test !== undefined;

  app.get('/dashboard/subscriptions', async (request: ListRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const mode = keyModeOf(request.query.mode);
    return kit.guard(reply, signedIn, async () => {
      const page = await listSubscriptions(subs.renewal, merchantOf(signedIn.user), mode, {
        limit: PAGE_SIZE,
        cursor: request.query.cursor || undefined,
      });
      return reply.send(renderSubscriptions({ signedIn, ctx: kit.context(request), mode, ...page }));
    });
  });

  planPages(app, subs, kit, testAvailable);

  app.get('/dashboard/subscriptions/:id', async (request: ListRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const { id } = request.params as { id: string };
    const mode = keyModeOf(request.query.mode);
    return kit.guard(reply, signedIn, async () => {
      const merchantId = merchantOf(signedIn.user);
      const shown = await showSubscription(subs.renewal, merchantId, mode, id);
      // The plans it may move to: this mode's, active, of its interval (the first page: the newest hundred).
      const { interval } = shown.plan;
      const plans = (await listPlans(subs.renewal, merchantId, mode, { limit: 100 })).rows.filter(
        (p) =>
          p.archivedAt === null &&
          p.id !== shown.plan.id &&
          p.interval.unit === interval.unit &&
          p.interval.count === interval.count,
      );
      const mandate = await subs.mandates?.findMandate(shown.subscription.id);
      return reply.send(
        renderSubscription({ signedIn, ctx: kit.context(request), mode, shown, plans, mandate }),
      );
    });
  });

  app.post('/dashboard/subscriptions/:id/change-plan', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    const mode = keyModeOf(request.body?.mode);
    return kit.guard(reply, signedIn, async () => {
      await changeSubscriptionPlan(subs.renewal, merchantOf(signedIn.user), mode, id, request.body?.plan_id);
      request.log.info({ subscription: id }, 'subscription plan changed from the dashboard');
      return reply.redirect(`/dashboard/subscriptions/${id}${mode === 'test' ? '?mode=test' : ''}`, 303);
    });
  });

  app.post('/dashboard/subscriptions/:id/cancel', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    const mode = keyModeOf(request.body?.mode);
    const atPeriodEnd = request.body?.when !== 'now';
    return kit.guard(reply, signedIn, async () => {
      await cancelSubscription(subs.renewal, merchantOf(signedIn.user), mode, id, {
        atPeriodEnd,
        by: 'merchant',
      });
      request.log.info({ subscription: id, atPeriodEnd }, 'subscription canceled from the dashboard');
      return reply.redirect(`/dashboard/subscriptions/${id}${mode === 'test' ? '?mode=test' : ''}`, 303);
    });
  });

  app.get('/dashboard/renewals', async (request, reply) => {
    const signedIn = await kit.requireRole('operator', request, reply);
    if (!signedIn) return reply;
    const overview = await subscriptionConsole(subs.renewal);
    const merchants = new Map((await deps.merchants.list(1000)).map((m) => [m.id, m.name] as const));
    return reply.send(
      renderSubscriptionConsole({ signedIn, ctx: kit.context(request), overview, merchants }),
    );
  });
}

/** The merchant's plans: the list with each subscribe page, "New plan" and "Archive". */
function planPages(app: FastifyInstance, subs: DashboardSubscriptions, kit: PageKit, testAvailable: boolean) {
  const showPlans = async (
    signedIn: SignedIn,
    reply: FastifyReply,
    mode: KeyMode,
    form: PlanForm,
    cursor?: string,
  ) => {
    const page = await listPlans(subs.renewal, merchantOf(signedIn.user), mode, {
      limit: PAGE_SIZE,
      cursor,
    });
    return reply.send(
      renderPlans({
        signedIn,
        ctx: kit.context(reply.request),
        mode,
        plans: page.rows,
        nextCursor: page.nextCursor,
        checkoutUrl: subs.checkoutUrl,
        form: { ...form, testAvailable },
      }),
    );
  };

  app.get('/dashboard/subscriptions/plans', async (request: ListRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const mode = keyModeOf(request.query.mode);
    return kit.guard(reply, signedIn, () =>
      showPlans(signedIn, reply, mode, { fields: { mode } }, request.query.cursor || undefined),
    );
  });

  app.post('/dashboard/subscriptions/plans', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const body = request.body ?? {};
    const mode = keyModeOf(body.mode);
    const given = (name: string) => body[name]?.trim() || undefined;
    try {
      const { plan } = await createPlan(subs.renewal, merchantOf(signedIn.user), mode, {
        name: body.name,
        description: given('description'),
        amount: body.amount === undefined ? undefined : typedAmount(body.amount),
        currency: body.currency,
        intervalUnit: body.interval,
        intervalCount: given('interval_count'),
        trialDays: given('trial_days'),
        graceDays: given('grace_days'),
        periods: given('periods'),
      });
      request.log.info({ plan: plan.id }, 'subscription plan created from the dashboard');
      return reply.redirect(`/dashboard/subscriptions/plans${mode === 'test' ? '?mode=test' : ''}`, 303);
    } catch (error) {
      if (!(error instanceof PaylinkError)) throw error;
      return kit.guard(reply, signedIn, () =>
        showPlans(signedIn, reply.status(error.status), mode, {
          fields: body,
          problem: error.message,
          problemField: error.field,
        }),
      );
    }
  });

  app.post('/dashboard/subscriptions/plans/:id/archive', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    const mode = keyModeOf(request.body?.mode);
    return kit.guard(reply, signedIn, async () => {
      await archivePlan(subs.renewal, merchantOf(signedIn.user), mode, id);
      request.log.info({ plan: id }, 'subscription plan archived from the dashboard');
      return reply.redirect(`/dashboard/subscriptions/plans${mode === 'test' ? '?mode=test' : ''}`, 303);
    });
  });
}
