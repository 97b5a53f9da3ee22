import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { changeSubscriptionPlan } from '../../../app/subscriptions/changePlan.ts';
import { archivePlan, createPlan, listPlans, showPlan } from '../../../app/subscriptions/plans.ts';
import type { IdempotentCreate, SubscriptionStore } from '../../../app/subscriptions/ports.ts';
import {
  DEFAULT_RENEWAL_LEAD_MS,
  DEFAULT_RENEWAL_RECHECK_MS,
  type RenewalDeps,
} from '../../../app/subscriptions/renewal.ts';
import {
  cancelSubscription,
  createSubscription,
  listSubscriptions,
  type ShownSubscription,
  showSubscription,
} from '../../../app/subscriptions/subscriptions.ts';
import { formatMoney } from '../../../domain/money.ts';
import { subscriptionFields } from '../../../domain/subscriptionEvent.ts';
import type { SubscriptionPlan } from '../../../domain/subscriptionPlan.ts';
import { customerEmails } from '../../email/customerEmails.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { merchantPlugin, merchantRoutes, PAGED_LISTING, pageOf } from '../merchantRoutes.ts';
import { ErrorBody } from '../schemas.ts';
import {
  CancelSubscriptionBody,
  ChangePlanBody,
  CreatePlanBody,
  CreateSubscriptionBody,
  ListQuery,
  PlanList,
  PlanParams,
  PlanResponse,
  SubscriptionList,
  SubscriptionParams,
  SubscriptionResponse,
} from '../subscriptionSchemas.ts';

type SubscriptionApiDeps = ApiDeps & { readonly subscriptions: SubscriptionStore };
type Routes = ReturnType<typeof merchantRoutes>;

function planResponse(plan: SubscriptionPlan) {
  return {
    plan_id: plan.id,
    name: plan.name,
    description: plan.description,
    amount: formatMoney(plan.price),
    currency: plan.price.currency.code,
    interval: plan.interval.unit,
    interval_count: plan.interval.count,
    trial_days: plan.trialDays,
    grace_days: plan.graceDays,
    periods: plan.periods,
    active: plan.archivedAt === null,
    archived_at: plan.archivedAt?.toISOString() ?? null,
    livemode: plan.mode === 'live',
    created_at: plan.createdAt.toISOString(),
  };
}

function subscriptionResponse(shown: ShownSubscription) {
  return {
    ...subscriptionFields(shown.subscription, shown.plan, shown.state),
    pending_plan_id: shown.subscription.planChange?.planId ?? null,
    pending_plan_from_period: shown.subscription.planChange?.fromPeriod ?? null,
    payments: shown.periods.map((p) => ({
      period: p.period,
      payment_id: p.paymentId,
      status: p.paymentStatus,
      paid_at: p.paidAt?.toISOString() ?? null,
    })),
  };
}

/** What billing a period takes, as a create from the API does, with the period's request e-mail. */
function renewalDepsOf(deps: SubscriptionApiDeps): RenewalDeps {
  return {
    ...deps,
    paymentTtlMs: deps.config.paymentTtlMs,
    minAmountBaseUnits: deps.config.minAmountBaseUnits,
    maxAmountBaseUnits: deps.config.maxAmountBaseUnits,
    webhookAllowPrivate: deps.config.webhookAllowPrivate,
    paymentRequests: customerEmails(deps.config, (chainId) => deps.explorers?.get(chainId))?.paymentRequests,
    renewalLeadMs: DEFAULT_RENEWAL_LEAD_MS,
    renewalRecheckMs: DEFAULT_RENEWAL_RECHECK_MS,
    logger: deps.logger,
  };
}

const IdempotencyHeader = z.object({
  'idempotency-key': z.string().optional().meta({
    description: 'Makes the request safe to retry: the same key and body return the same object',
  }),
});

function idempotencyOf(request: {
  readonly headers: { readonly 'idempotency-key'?: string | string[] | undefined };
  readonly bodySha256?: string | undefined;
}): IdempotentCreate | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  return { key: Array.isArray(key) ? key.join(',') : key, requestHash: request.bodySha256 ?? '' };
}

/**
 * Plans and subscriptions (issue 39, decision 0060): create (idempotent), list, show, archive a plan, cancel a
 * subscription. Same auth, errors and modes as payments; scopes `subscriptions:read` and `subscriptions:write`.
 */
export function subscriptionApi(deps: SubscriptionApiDeps): FastifyPluginAsyncZod {
  const renewal = renewalDepsOf(deps);
  return merchantPlugin(deps, (app) => {
    const routes = merchantRoutes(app, 'subscriptions');
    planRoutes(routes, deps);
    createSubscriptionRoute(routes, renewal);
    readSubscriptionRoutes(routes, renewal);
  });
}

function planRoutes(routes: Routes, deps: SubscriptionApiDeps): void {
  routes.post(
    '/payments/api/plans/',
    'subscriptions:write',
    'Create a subscription plan',
    {
      body: CreatePlanBody,
      headers: IdempotencyHeader,
      response: { 201: PlanResponse, 409: ErrorBody, 415: ErrorBody, 422: ErrorBody },
    },
    async (request, { merchant, mode }, reply) => {
      const { body } = request;
      const { plan, replayed } = await createPlan(
        deps,
        merchant.id,
        mode,
        {
          name: body.name,
          description: body.description,
          amount: body.amount,
          currency: body.currency,
          intervalUnit: body.interval,
          intervalCount: body.interval_count,
          trialDays: body.trial_days,
          graceDays: body.grace_days,
          periods: body.periods,
        },
        idempotencyOf(request),
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      else request.log.info({ plan: plan.id }, 'subscription plan created');
      return reply.status(201).send(planResponse(plan));
    },
  );
  routes.get(
    '/payments/api/plans/',
    'subscriptions:read',
    'List subscription plans',
    { description: PAGED_LISTING, querystring: ListQuery, response: { 200: PlanList } },
    async ({ query }, { merchant, mode }) => {
      const page = await listPlans(deps, merchant.id, mode, pageOf(query));
      return { plans: page.rows.map(planResponse), next_cursor: page.nextCursor };
    },
  );
  routes.get(
    '/payments/api/plans/:plan_id/',
    'subscriptions:read',
    'Show a subscription plan',
    { params: PlanParams, response: { 200: PlanResponse } },
    async ({ params }, { merchant, mode }) =>
      planResponse(await showPlan(deps, merchant.id, mode, params.plan_id)),
  );
  routes.post(
    '/payments/api/plans/:plan_id/archive/',
    'subscriptions:write',
    'Archive a plan: no new subscriptions to it, those running keep its terms',
    { params: PlanParams, response: { 200: PlanResponse } },
    async ({ params }, { merchant, mode }) =>
      planResponse(await archivePlan(deps, merchant.id, mode, params.plan_id)),
  );
}

function createSubscriptionRoute(routes: Routes, deps: RenewalDeps): void {
  routes.post(
    '/payments/api/subscriptions/',
    'subscriptions:write',
    'Subscribe a customer to a plan',
    {
      description:
        "Without a trial the first period's payment is made at once (an ordinary payment, carrying `subscription_id` and `subscription_period` in its metadata) and its link e-mailed to the customer; with one, a few days before the trial ends. 409 CONFLICT when the plan is archived.",
      body: CreateSubscriptionBody,
      headers: IdempotencyHeader,
      response: { 201: SubscriptionResponse, 409: ErrorBody, 415: ErrorBody, 422: ErrorBody, 503: ErrorBody },
    },
    async (request, { merchant, mode }, reply) => {
      const { body } = request;
      const { subscription, replayed } = await createSubscription(
        deps,
        merchant.id,
        mode,
        {
          planId: body.plan_id,
          customerEmail: body.customer_email,
          customerWallet: body.customer_wallet,
          customerLanguage: body.customer_language,
        },
        idempotencyOf(request),
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      else request.log.info({ subscription: subscription.subscription.id }, 'subscription created');
      return reply.status(201).send(subscriptionResponse(subscription));
    },
  );
}

function readSubscriptionRoutes(routes: Routes, deps: RenewalDeps): void {
  routes.get(
    '/payments/api/subscriptions/',
    'subscriptions:read',
    'List subscriptions',
    { description: PAGED_LISTING, querystring: ListQuery, response: { 200: SubscriptionList } },
    async ({ query }, { merchant, mode }) => {
      const page = await listSubscriptions(deps, merchant.id, mode, pageOf(query));
      return { subscriptions: page.subscriptions.map(subscriptionResponse), next_cursor: page.nextCursor };
    },
  );
  routes.get(
    '/payments/api/subscriptions/:subscription_id/',
    'subscriptions:read',
    'Show a subscription, its status and its payments',
    { params: SubscriptionParams, response: { 200: SubscriptionResponse } },
    async ({ params }, { merchant, mode }) =>
      subscriptionResponse(await showSubscription(deps, merchant.id, mode, params.subscription_id)),
  );
  routes.post(
    '/payments/api/subscriptions/:subscription_id/cancel/',
    'subscriptions:write',
    'Cancel a subscription, at the end of the period in force (default) or at once',
    {
      params: SubscriptionParams,
      body: CancelSubscriptionBody,
      response: { 200: SubscriptionResponse, 415: ErrorBody },
    },
    async ({ params, body }, { merchant, mode }) =>
      subscriptionResponse(
        await cancelSubscription(deps, merchant.id, mode, params.subscription_id, {
          atPeriodEnd: body?.at_period_end ?? true,
          by: 'merchant',
        }),
      ),
  );
  routes.post(
    '/payments/api/subscriptions/:subscription_id/change-plan/',
    'subscriptions:write',
    "Change a subscription's plan from its next period on",
    {
      description:
        "The periods already billed keep their price; the next period not yet billed, and every one after, is billed with the new plan, which becomes the subscription's plan when that period starts (`pending_plan_id`, `pending_plan_from_period` until then). The new plan must be the merchant's, of the same mode, not archived, with the same interval (409 CONFLICT otherwise, and for a canceled, ending or ended subscription). The subscription's own plan withdraws a pending change.",
      params: SubscriptionParams,
      body: ChangePlanBody,
      response: { 200: SubscriptionResponse, 409: ErrorBody, 415: ErrorBody, 422: ErrorBody },
    },
    async ({ params, body }, { merchant, mode }) =>
      subscriptionResponse(
        await changeSubscriptionPlan(deps, merchant.id, mode, params.subscription_id, body.plan_id),
      ),
  );
}
