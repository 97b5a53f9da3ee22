import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BrandStore } from '../../app/brand/ports.ts';
import { newReceiptToken, receiptUrl } from '../../app/email/receipts.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import type { ReceiptTokenStore } from '../../app/pos/ports.ts';
import type { RateLimitStore } from '../../app/shared/ports.ts';
import {
  cancelFromPortal,
  portalSubscription,
  publicPlan,
  subscribeFromPage,
} from '../../app/subscriptions/customerPortal.ts';
import { proposedCap } from '../../app/subscriptions/mandates.ts';
import type { RenewalDeps } from '../../app/subscriptions/renewal.ts';
import type { ShownSubscription } from '../../app/subscriptions/subscriptions.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import { parseCustomerEmail } from '../../domain/paymentInput.ts';
import type { BucketPolicy } from '../../domain/tokenBucket.ts';
import { findBadText } from '../web/inputText.ts';
import type { Language } from '../web/language.ts';
import { loadShownBrand } from './brandRoutes.ts';
import { fromOwnPage, linkPagePolicy } from './linkRoutes.ts';
import type { CheckoutMandates } from './mandateRoutes.ts';
import type { PageAssets } from './pageLayout.ts';
import { refusedByRateLimits } from './pageRateLimit.ts';
import {
  type PortalNotice,
  renderPlanArchivedPage,
  renderPlanNotFoundPage,
  renderPortalNotFoundPage,
  renderPortalPage,
  renderSubscribePage,
  type SubscribeProblem,
} from './renderSubscriptionPages.ts';

/** What the checkout needs to serve the subscribe page and the customer portal; absent: neither is served. */
export interface CheckoutSubscriptions {
  /** The API's create and cancel, with the request e-mail of each period (renewal.ts). */
  readonly renewal: RenewalDeps;
  readonly buckets: RateLimitStore;
  /** Paid periods' receipt pages; absent: the portal links each payment's own page instead. */
  readonly receiptTokens?: ReceiptTokenStore | undefined;
  /** The checkout's public URL, for the receipt links. */
  readonly checkoutUrl: string;
}

/**
 * Subscriptions made per client address: a customer subscribes once, perhaps twice; more is someone sending a
 * plan's e-mails to addresses that did not ask (each subscription without a trial e-mails its first link).
 */
const SUBSCRIBE_LIMIT: BucketPolicy = { ratePerSecond: 1 / 120, burst: 5 };

/** One bucket per client address for both ways of subscribing (the form and the wallet's): the refusal, if spent. */
function subscribeLimited(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const { renewal, buckets } = deps.subscriptions;
  return refusedByRateLimits(
    buckets,
    [[`subscribe:client:${request.ip}`, SUBSCRIBE_LIMIT]],
    renewal.clock.now(),
    reply,
  );
}

/** Cancellations per client address: a customer cancels one subscription, rarely a few. */
const CANCEL_LIMIT: BucketPolicy = { ratePerSecond: 1 / 60, burst: 10 };

const HTML = 'text/html; charset=utf-8';

type RouteDeps = {
  readonly subscriptions: CheckoutSubscriptions;
  /** Pull renewal (mandateRoutes.ts): the wallet's way and the portal's mandate section; absent: e-mail only. */
  readonly mandates?: CheckoutMandates | undefined;
  /** The name of the network the wallet's way asks the wallet to be on. */
  readonly networkName?: string | undefined;
  readonly merchants: Pick<MerchantStore, 'find'>;
  readonly brands?: Pick<BrandStore, 'find'> | undefined;
  readonly languageOf: (request: FastifyRequest) => Language;
  readonly assets: PageAssets;
};

type PlanRequest = FastifyRequest<{ Params: { planId: string } }>;
type PortalRequest = FastifyRequest<{ Params: { token: string }; Querystring: { done?: string } }>;

/**
 * `GET /subscribe/:planId` a plan's public page · `POST /subscribe/:planId` subscribe by e-mail (a form post:
 * `email`) → 303 to the new subscription's portal · `GET /subscriptions/:token` the customer portal ·
 * `POST /subscriptions/:token/cancel` the customer's cancellation (at period end) → 303 back to the portal.
 * Posts must come from the page itself and are rate-limited per client address; an unknown plan or token gets
 * the same 404 page as a malformed one.
 */
export function registerSubscriptionRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 1_024 });
    scope.addHook('onSend', async (_request, reply, payload) => {
      // The link pages' policy: forms post to this origin, nothing else loosened; and the forms' origin is sent.
      reply.header('content-security-policy', linkPagePolicy(null));
      reply.header('referrer-policy', 'same-origin');
      return payload;
    });
    scope.get('/subscribe/:planId', (request: PlanRequest, reply) => planPage(deps, request, reply));
    scope.post('/subscribe/:planId', (request: PlanRequest, reply) => subscribe(deps, request, reply));
    scope.get('/subscriptions/:token', (request: PortalRequest, reply) => portalPage(deps, request, reply));
    scope.post('/subscriptions/:token/cancel', (request: PortalRequest, reply) =>
      cancel(deps, request, reply),
    );
    const { mandates } = deps;
    if (!mandates) return;
    scope.post('/subscribe/:planId/wallet', { bodyLimit: 1_024 }, (request: PlanRequest, reply) =>
      subscribeWithWallet(deps, request, reply),
    );
    scope.post('/subscriptions/:token/mandate/cancel', (request: PortalRequest, reply) =>
      switchToEmail(deps, mandates, request, reply),
    );
  });
}

function htmlReply(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply): Language {
  const language = deps.languageOf(request);
  reply.type(HTML).header('vary', 'accept-language').header('content-language', language);
  return language;
}

async function foundPlan(deps: RouteDeps, request: PlanRequest, reply: FastifyReply, language: Language) {
  try {
    const found = await publicPlan(deps.subscriptions.renewal, request.params.planId);
    const brand = await loadShownBrand(deps.brands, found.merchant, deps.assets);
    if (found.plan.archivedAt !== null) {
      reply.status(410).send(renderPlanArchivedPage(language, brand.assets, brand.name));
      return undefined;
    }
    return { ...found, brand };
  } catch (error) {
    if (!(error instanceof PaylinkError) || error.code !== 'NOT_FOUND') throw error;
    reply.status(404).send(renderPlanNotFoundPage(language, deps.assets));
    return undefined;
  }
}

type FoundPlan = NonNullable<Awaited<ReturnType<typeof foundPlan>>>;

async function subscribePage(
  deps: RouteDeps,
  found: FoundPlan,
  language: Language,
  reply: FastifyReply,
  status: number,
  refused?: { problem: SubscribeProblem; email?: string | undefined },
) {
  const pull = pullOffer(deps, found.plan.mode);
  // The wallet's way where the mode is charged by pull and the plan has a cap to sign (a fiat plan's needs a rate).
  const cap = pull ? await proposedCap(deps.subscriptions.renewal, found.plan) : undefined;
  return reply.status(status).send(
    renderSubscribePage({
      plan: found.plan,
      merchantName: found.brand.name,
      logo: found.brand.logo,
      language,
      assets: found.brand.assets,
      now: deps.subscriptions.renewal.clock.now(),
      pull: pull && cap !== undefined ? { ...pull, cap } : null,
      refused,
    }),
  );
}

async function planPage(deps: RouteDeps, request: PlanRequest, reply: FastifyReply) {
  const language = htmlReply(deps, request, reply);
  const found = await foundPlan(deps, request, reply, language);
  return found ? subscribePage(deps, found, language, reply, 200) : reply;
}

async function subscribe(deps: RouteDeps, request: PlanRequest, reply: FastifyReply) {
  const language = htmlReply(deps, request, reply);
  const found = await foundPlan(deps, request, reply, language);
  if (!found) return reply;
  const refuse = (status: number, problem: SubscribeProblem, email?: string) =>
    subscribePage(deps, found, language, reply, status, { problem, email });
  if (!fromOwnPage(request)) return refuse(403, 'foreign');
  const email = emailOf(request.body);
  if (email === undefined) return refuse(400, 'form');
  try {
    if (parseCustomerEmail(email) === null) return refuse(400, 'email', email);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return refuse(400, 'email', email);
  }
  const { renewal } = deps.subscriptions;
  if (await subscribeLimited(deps, request, reply)) return refuse(429, 'rate', email);
  try {
    const shown = await subscribeFromPage(renewal, found.plan.id, { customerEmail: email, language });
    request.log.info(
      { subscription: shown.subscription.id, plan: found.plan.id },
      'subscribed from the page',
    );
    return reply
      .status(303)
      .header('location', `/subscriptions/${shown.subscription.portalToken}?lang=${language}&done=subscribed`)
      .send();
  } catch (error) {
    if (!(error instanceof PaylinkError)) throw error;
    if (error instanceof ValidationError) return refuse(400, 'email', email);
    // The merchant's or the operator's to fix (no wallet, no rate): not the customer's.
    request.log.warn({ err: error, plan: found.plan.id }, 'a subscribe page could not subscribe');
    return refuse(error.status, 'unavailable', email);
  }
}

/** The posted address: one text field, under the API's text rule; undefined when the form is not that. */
function emailOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || findBadText(body, '').length > 0) return undefined;
  const { email } = body as Record<string, unknown>;
  return typeof email === 'string' ? email.trim() : undefined;
}

async function foundSubscription(
  deps: RouteDeps,
  request: PortalRequest,
  reply: FastifyReply,
  language: Language,
): Promise<ShownSubscription | undefined> {
  try {
    return await portalSubscription(deps.subscriptions.renewal, request.params.token);
  } catch (error) {
    if (!(error instanceof PaylinkError) || error.code !== 'NOT_FOUND') throw error;
    reply.status(404).send(renderPortalNotFoundPage(language, deps.assets));
    return undefined;
  }
}

async function portalPage(deps: RouteDeps, request: PortalRequest, reply: FastifyReply) {
  const language = htmlReply(deps, request, reply);
  const shown = await foundSubscription(deps, request, reply, language);
  if (!shown) return reply;
  const done = request.query.done;
  const notice = done === 'canceled' || done === 'subscribed' || done === 'switched' ? done : undefined;
  return showPortal(deps, request, reply, { shown, language, status: 200, notice });
}

async function showPortal(
  deps: RouteDeps,
  request: PortalRequest,
  reply: FastifyReply,
  page: {
    shown: ShownSubscription;
    language: Language;
    status: number;
    notice: PortalNotice | undefined;
  },
) {
  const { shown, language } = page;
  const merchant = await deps.merchants.find(shown.subscription.merchantId);
  const brand = await loadShownBrand(
    deps.brands,
    { id: shown.subscription.merchantId, name: merchant?.name ?? '' },
    deps.assets,
  );
  const receipts = await receiptLinks(deps.subscriptions, shown);
  const mandate = (await deps.mandates?.mandateOf(shown.subscription.id)) ?? null;
  const allowanceLeft = mandate ? await deps.mandates?.allowanceLeft?.(mandate) : undefined;
  return reply.status(page.status).send(
    renderPortalPage({
      shown,
      token: request.params.token,
      merchantName: brand.name,
      logo: brand.logo,
      language,
      assets: brand.assets,
      now: deps.subscriptions.renewal.clock.now(),
      links: { receiptUrl: (id) => receipts.get(id) },
      notice: page.notice,
      mandate,
      allowanceLeft,
    }),
  );
}

/** Each paid period's receipt page, its token issued once (the same one a receipt e-mail would carry). */
async function receiptLinks(subscriptions: CheckoutSubscriptions, shown: ShownSubscription) {
  const links = new Map<string, string>();
  const { receiptTokens } = subscriptions;
  if (!receiptTokens) return links;
  for (const period of shown.periods) {
    if (period.paymentStatus !== 'paid') continue;
    const token = await receiptTokens.issue(period.paymentId, newReceiptToken());
    links.set(period.paymentId, receiptUrl(subscriptions.checkoutUrl, token));
  }
  return links;
}

async function cancel(deps: RouteDeps, request: PortalRequest, reply: FastifyReply) {
  const language = htmlReply(deps, request, reply);
  const shown = await foundSubscription(deps, request, reply, language);
  if (!shown) return reply;
  const back = `/subscriptions/${request.params.token}?lang=${language}`;
  const refuse = (status: number, notice: PortalNotice) =>
    showPortal(deps, request, reply, { shown, language, status, notice });
  // Another site's form must not cancel a customer's subscription.
  if (!fromOwnPage(request)) return refuse(403, 'foreign');
  const { renewal, buckets } = deps.subscriptions;
  const limited = await refusedByRateLimits(
    buckets,
    [[`subscription-cancel:client:${request.ip}`, CANCEL_LIMIT]],
    renewal.clock.now(),
    reply,
  );
  if (limited) return refuse(429, 'rate');
  await cancelFromPortal(renewal, request.params.token);
  request.log.info({ subscription: shown.subscription.id }, 'subscription canceled by its customer');
  return reply.status(303).header('location', `${back}&done=canceled`).send();
}

function pullOffer(deps: RouteDeps, mode: 'live' | 'test') {
  const chain = deps.mandates?.chainOf(mode);
  return chain ? { chainId: chain.chainId, chainName: deps.networkName ?? '' } : null;
}

/**
 * `POST /subscribe/:planId/wallet` (JSON `{email, wallet}`), the wallet way's first step from the page's script:
 * the subscription made as by the e-mail form (same checks, same rate), naming the wallet that will sign its
 * terms → 201 `{portal_url, mandate_url}` (the portal token's routes), or the API's error shape.
 */
async function subscribeWithWallet(deps: RouteDeps, request: PlanRequest, reply: FastifyReply) {
  const fail = (status: number, code: string, error: string) => reply.status(status).send({ error, code });
  const language = deps.languageOf(request);
  let found: Awaited<ReturnType<typeof publicPlan>>;
  try {
    found = await publicPlan(deps.subscriptions.renewal, request.params.planId);
  } catch (error) {
    if (error instanceof PaylinkError) return fail(error.status, error.code, error.message);
    throw error;
  }
  if (found.plan.archivedAt !== null) return fail(410, 'GONE', 'The plan is archived');
  if (!pullOffer(deps, found.plan.mode)) return fail(409, 'CONFLICT', 'Pull renewal is not offered');
  if (!fromOwnPage(request)) return fail(403, 'FORBIDDEN', 'Subscribe from the plan’s own page');
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
    string,
    unknown
  >;
  const email = emailOf({ email: body.email });
  const wallet = typeof body.wallet === 'string' ? body.wallet : undefined;
  if (email === undefined || wallet === undefined)
    return fail(400, 'VALIDATION_ERROR', 'email and wallet are required');
  const { renewal } = deps.subscriptions;
  if (await subscribeLimited(deps, request, reply))
    return fail(429, 'RATE_LIMITED', 'Too many subscriptions from here: try again later');
  try {
    const shown = await subscribeFromPage(renewal, found.plan.id, {
      customerEmail: email,
      language,
      customerWallet: wallet,
    });
    request.log.info({ subscription: shown.subscription.id, plan: found.plan.id }, 'subscribed by wallet');
    const token = shown.subscription.portalToken;
    return reply.status(201).send({
      portal_url: `/subscriptions/${token}?lang=${language}&done=subscribed`,
      mandate_url: `/subscriptions/${token}/mandate`,
    });
  } catch (error) {
    if (error instanceof PaylinkError) return fail(error.status, error.code, error.message);
    throw error;
  }
}

/** `POST /subscriptions/:token/mandate/cancel`: "Switch to e-mail payments", from the page itself → 303 back. */
async function switchToEmail(
  deps: RouteDeps,
  mandates: CheckoutMandates,
  request: PortalRequest,
  reply: FastifyReply,
) {
  const language = htmlReply(deps, request, reply);
  const shown = await foundSubscription(deps, request, reply, language);
  if (!shown) return reply;
  const refuse = (status: number, notice: PortalNotice) =>
    showPortal(deps, request, reply, { shown, language, status, notice });
  if (!fromOwnPage(request)) return refuse(403, 'foreign');
  const limited = await refusedByRateLimits(
    mandates.buckets,
    [[`subscription-cancel:client:${request.ip}`, CANCEL_LIMIT]],
    deps.subscriptions.renewal.clock.now(),
    reply,
  );
  if (limited) return refuse(429, 'rate');
  await mandates.switchToPush(request.params.token);
  request.log.info({ subscription: shown.subscription.id }, 'mandate canceled by its customer');
  return reply
    .status(303)
    .header('location', `/subscriptions/${request.params.token}?lang=${language}&done=switched`)
    .send();
}
