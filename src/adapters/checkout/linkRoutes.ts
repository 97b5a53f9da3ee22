import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BrandStore } from '../../app/brand/ports.ts';
import { type LinkChoice, type PayLinkDeps, payLink } from '../../app/links/payLink.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import { isPaymentId } from '../../app/payments/getPaymentStatus.ts';
import type { RateLimitStore } from '../../app/shared/ports.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { parseCustomerEmail } from '../../domain/paymentInput.ts';
import {
  chooseLinkAmount,
  linkUnavailable,
  type PaymentLink,
  SOLD_OUT,
  USED_UP,
} from '../../domain/paymentLink.ts';
import type { BucketPolicy } from '../../domain/tokenBucket.ts';
import { findBadText } from '../web/inputText.ts';
import type { Language } from '../web/language.ts';
import { CONTENT_SECURITY_POLICY } from '../web/securityHeaders.ts';
import { typedAmount } from '../web/typedAmount.ts';
import { loadShownBrand, type ShownBrand } from './brandRoutes.ts';
import type { PageAssets } from './pageLayout.ts';
import { refusedByRateLimits } from './pageRateLimit.ts';
import {
  type LinkProblem,
  type LinkRefusal,
  type LinkUnavailable,
  renderLinkNotFoundPage,
  renderLinkPage,
  renderLinkUnavailablePage,
} from './renderLinkPage.ts';

/** What the checkout needs to serve reusable links' pages; absent: `/l/*` is not served. */
export interface CheckoutLinks {
  /** The payment pipeline a link's payment goes through (payLink), with the link store. */
  readonly pay: PayLinkDeps;
  readonly buckets: RateLimitStore;
}

/**
 * Payments made per client address: a payer commits once, perhaps again after going back; more is someone
 * making deposit addresses and rows for nothing.
 */
const PAY_LIMIT: BucketPolicy = { ratePerSecond: 1 / 60, burst: 10 };

const HTML = 'text/html; charset=utf-8';

/** The origin of the image a page shows, which that page's policy names (read as the reply is sent). */
const imageOrigins = new WeakMap<FastifyReply, string>();

type LinkRequest = FastifyRequest<{ Params: { id: string } }>;

type LinkRouteDeps = {
  readonly links: CheckoutLinks;
  readonly merchants: Pick<MerchantStore, 'find'>;
  readonly brands?: Pick<BrandStore, 'find'> | undefined;
  readonly languageOf: (request: FastifyRequest) => Language;
  readonly assets: PageAssets;
};

/**
 * `GET /l/:id` a reusable link's page · `POST /l/:id` the payer's choice (a form post: `quantity` or `amount`)
 * → 303 to the new payment's `/pay/<id>`. Viewing creates nothing; only the post does, once the choice is
 * valid, the post comes from the page itself and the client is within its rate. A closed or ended link answers
 * 410 with its page, a sold-out one (every use paid) 410, a used-up one (some uses only held by open payments)
 * 409, an unknown one 404.
 */
export function registerLinkRoutes(app: FastifyInstance, deps: LinkRouteDeps): void {
  const kit = linkPageKit(deps);
  // Encapsulated: the form parser and the page's own policy apply to these routes alone.
  app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 1_024 });
    scope.addHook('onSend', async (_request, reply, payload) => {
      // After the checkout's own headers: the link page posts its forms to itself and may show the merchant's
      // image, so its policy says exactly that (and nothing else of the others' is loosened).
      reply.header('content-security-policy', linkPagePolicy(imageOrigins.get(reply) ?? null));
      // The forms' own origin is sent back with their posts (the check in fromOwnPage), from a refused choice's
      // page too; other sites get nothing.
      reply.header('referrer-policy', 'same-origin');
      return payload;
    });
    scope.get(
      '/l/:id',
      withFoundLink(kit, (found, _request, reply) => page(deps, kit, found, reply)),
    );
    scope.post(
      '/l/:id',
      withFoundLink(kit, (found, request, reply) => post(deps, kit, found, request, reply)),
    );
  });
}

/** A link route's handler, run once its link and merchant are found (an unknown one has had its 404 page). */
function withFoundLink(
  kit: LinkPageKit,
  handler: (found: FoundLink, request: LinkRequest, reply: FastifyReply) => Promise<FastifyReply>,
) {
  return async (request: LinkRequest, reply: FastifyReply) => {
    const found = await kit.begin(request, reply);
    return found ? handler(found, request, reply) : reply;
  };
}

type LinkPageKit = ReturnType<typeof linkPageKit>;

type FoundLink = {
  readonly language: Language;
  readonly link: PaymentLink;
  readonly merchant: Merchant;
  readonly brand: ShownBrand;
};

/** What the link's two routes share: finding the link and its merchant, and answering with one of its pages. */
function linkPageKit(deps: LinkRouteDeps) {
  const begin = async (request: LinkRequest, reply: FastifyReply) => {
    const language = deps.languageOf(request);
    reply.type(HTML).header('vary', 'accept-language').header('content-language', language);
    const id = request.params.id.toLowerCase();
    const link = isPaymentId(id) ? await deps.links.pay.links.find(id) : undefined;
    const merchant = link && (await deps.merchants.find(link.merchantId));
    // A disabled merchant's links are gone for the payer, as if they never were.
    if (!link || !merchant || merchant.status !== 'active') {
      reply.status(404).send(renderLinkNotFoundPage(language, deps.assets));
      return undefined;
    }
    const brand = await loadShownBrand(deps.brands, merchant, deps.assets);
    const found: FoundLink = { language, link, merchant, brand };
    return found;
  };

  const unavailablePage = (
    reply: FastifyReply,
    found: FoundLink,
    reason: LinkUnavailable,
    status = reason === 'used-up' ? 409 : 410,
  ) =>
    reply.status(status).send(
      renderLinkUnavailablePage({
        reason,
        link: found.link,
        merchantName: found.brand.name,
        language: found.language,
        assets: found.brand.assets,
      }),
    );

  const choicePage = (reply: FastifyReply, found: FoundLink, status: number, refused?: LinkRefusal) => {
    const image = shownImage(found.link.imageUrl);
    if (image) imageOrigins.set(reply, image.origin);
    return reply.status(status).send(
      renderLinkPage({
        link: found.link,
        merchantName: found.brand.name,
        logo: found.brand.logo,
        imageUrl: image?.url ?? null,
        language: found.language,
        assets: found.brand.assets,
        refused,
      }),
    );
  };
  return { begin, unavailablePage, choicePage };
}

async function page(
  deps: LinkRouteDeps,
  { unavailablePage, choicePage }: LinkPageKit,
  found: FoundLink,
  reply: FastifyReply,
) {
  const reason = await currentReason(deps, found.link);
  if (reason) return unavailablePage(reply, found, reason);
  return choicePage(reply, found, 200);
}

/** Why the link takes no payment now, from its uses as they are at this moment; undefined: it does. */
async function currentReason(deps: LinkRouteDeps, link: PaymentLink): Promise<LinkUnavailable | undefined> {
  const now = deps.links.pay.clock.now();
  return unavailableReason(link, linkUnavailable(link, await deps.links.pay.links.usage(link.id, now), now));
}

async function post(
  deps: LinkRouteDeps,
  { unavailablePage, choicePage }: LinkPageKit,
  found: FoundLink,
  request: LinkRequest,
  reply: FastifyReply,
) {
  if (!fromOwnPage(request)) return choicePage(reply, found, 403, { problem: 'foreign' });
  const choice = choiceOf(request.body);
  if (!choice) return choicePage(reply, found, 400, { problem: 'form' });
  const typed = { amount: choice.amount, email: choice.customerEmail };
  // The payer's mistakes are told before anything is counted or created.
  try {
    chooseLinkAmount(found.link.price, choice);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return choicePage(reply, found, 400, {
      problem: problemOf(found.link, choice.amount, found.language),
      ...typed,
    });
  }
  try {
    parseCustomerEmail(choice.customerEmail);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return choicePage(reply, found, 400, { problem: 'email', ...typed });
  }
  const limited = await refusedByRateLimits(
    deps.links.buckets,
    [[`link:client:${request.ip}`, PAY_LIMIT]],
    deps.links.pay.clock.now(),
    reply,
  );
  if (limited) return choicePage(reply, found, 429, { problem: 'rate' });
  try {
    const payment = await payLink(deps.links.pay, found.merchant, found.link.id, found.link.mode, {
      ...choice,
      language: found.language,
    });
    request.log.info({ payment: payment.id, link: found.link.id }, 'payment created from a link page');
    // In the language the payer chose the amount in (the form's action names it).
    return reply.status(303).header('location', `/pay/${payment.id}?lang=${found.language}`).send();
  } catch (error) {
    if (!(error instanceof PaylinkError)) throw error;
    if (error.code === 'LINK_UNAVAILABLE') {
      // The count as the payment went in says only "taken": read again whether paid (sold out) or held.
      const reason =
        error.message === USED_UP
          ? await currentReason(deps, found.link)
          : unavailableReason(found.link, error.message);
      return unavailablePage(reply, found, reason ?? 'used-up');
    }
    // The amount passed the link's bounds but not the service's (its USDC below PAYLINK_MIN_AMOUNT, say).
    if (error instanceof ValidationError)
      return choicePage(reply, found, 400, { problem: problemOf(found.link), ...typed });
    // The merchant's or the operator's to fix (no wallet, no rate, no test chain): not the payer's.
    request.log.warn({ err: error, link: found.link.id }, 'a link page could not create a payment');
    return unavailablePage(reply, found, 'unavailable', error.status);
  }
}

/** The page's policy: the checkout's, with its forms posting to itself and the merchant's image's origin. */
export function linkPagePolicy(imageOrigin: string | null): string {
  return CONTENT_SECURITY_POLICY.replace("form-action 'none'", "form-action 'self'").replace(
    "img-src 'self' data:",
    imageOrigin ? `img-src 'self' data: ${imageOrigin}` : "img-src 'self' data:",
  );
}

/**
 * The image as the page may show it: https only, its origin plain enough to be named in the policy as it is.
 * Anything else (plain http from the sandbox, an odd host) is not shown rather than loosening the policy.
 */
function shownImage(url: string | null): { url: string; origin: string } | undefined {
  if (url === null) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' || !/^[a-z0-9.-]+(:\d{1,5})?$/.test(parsed.host)) return undefined;
  return { url: parsed.toString(), origin: parsed.origin };
}

function unavailableReason(link: PaymentLink, reason: string | undefined): LinkUnavailable | undefined {
  if (reason === undefined) return undefined;
  if (link.deactivatedAt !== null) return 'deactivated';
  if (reason === SOLD_OUT) return 'sold-out';
  if (reason === USED_UP) return 'used-up';
  return 'ended';
}

function problemOf(link: PaymentLink, amount?: string, language?: Language): LinkProblem {
  if (link.price.type !== 'open') return 'quantity';
  return amount !== undefined && language !== undefined && tooManyDecimals(amount, link.price, language)
    ? 'decimals'
    : 'amount';
}

/**
 * "10.505" for a price in euros: a number, only more precise than the currency is, which the payer is told
 * rather than the bounds it may well be within. A comma counts as the decimal mark in the languages that write
 * it so (not in English, where "1,000" is a thousand).
 */
function tooManyDecimals(amount: string, price: { currency: { minorUnits: number } }, language: Language) {
  const mark = language === 'en' ? '\\.' : '[.,]';
  const fraction = new RegExp(`^\\d+${mark}(\\d+)$`).exec(amount)?.[1]?.replace(/0+$/, '');
  return fraction !== undefined && fraction.length > price.currency.minorUnits;
}

/**
 * A post is the page's own when the browser says it came from this origin: `Sec-Fetch-Site` where sent (every
 * current browser), else the `Origin` it sends with a form post. Without either, refused: another site's form
 * must not choose an amount and land a payer on a payment they did not pick.
 */
export function fromOwnPage(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return false;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/**
 * The posted choice: `quantity`, or an amount (`typed_amount` when the payer typed one, else the suggestion's
 * button, `amount`), and an optional `email`; one text each, under the API's text rule. An amount may be typed
 * with a decimal comma ("12,50") or spaces, as payers in most of the page's languages write it.
 */
function choiceOf(body: unknown): LinkChoice | undefined {
  if (body === null || typeof body !== 'object' || findBadText(body, '').length > 0) return undefined;
  const fields = body as Record<string, unknown>;
  const [amount, typed, quantity, email] = ['amount', 'typed_amount', 'quantity', 'email'].map(
    (name) => fields[name],
  );
  if (![amount, typed, quantity, email].every((field) => field === undefined || typeof field === 'string'))
    return undefined;
  const chosen = typeof typed === 'string' && typed.trim() !== '' ? typed : (amount as string | undefined);
  return {
    amount: chosen === undefined ? undefined : typedAmount(chosen),
    quantity: (quantity as string | undefined)?.trim(),
    customerEmail: (email as string | undefined)?.trim() || undefined,
  };
}
