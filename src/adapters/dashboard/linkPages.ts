import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { type CreateLinkInput, createLink } from '../../app/links/createLink.ts';
import { deactivateLink, listLinks, showLink } from '../../app/links/manageLinks.ts';
import { listPayments } from '../../app/payments/listPayments.ts';
import { type KeyMode, keyModeOf } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { linkUrl } from '../web/checkoutUrls.ts';
import { qrSvg } from '../web/qrCode.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { LINE_ITEM_FIELDS, lineItemsOf } from './lineItemFields.ts';
import { linkEditPages, linkSwitchForm } from './linkEditPages.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { renderLink, renderLinks, renderNewLink } from './renderLinkPages.ts';

const PAGE_SIZE = 50;

type LinkRequest = FastifyRequest<{
  Params: { id: string };
  Querystring: { mode?: string; cursor?: string; saved?: string; reactivated?: string };
}>;
type Links = NonNullable<DashboardDeps['paymentLinks']>;

/** The "New link" form's fields, as posted: what a refused form shows again. */
export const LINK_FIELDS = [
  'title',
  'description',
  'image_url',
  'price_type',
  'currency',
  'amount',
  'max_quantity',
  'min_amount',
  'max_amount',
  'suggested_amounts',
  'max_uses',
  'ends_on',
  'success_url',
  'cancel_url',
  ...LINE_ITEM_FIELDS,
];

/**
 * Reusable links ("payment pages") for a merchant user, through the same use cases as the API's links: the
 * list with what each brought, "New link", a link's page (its public URL, QR code, payments) and deactivation.
 * Part of the merchant's pages (merchantPages.ts).
 */
export function linkPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  const links = deps.paymentLinks;
  if (!links) return;
  app.get('/dashboard/links', linksPage(links, kit));
  app.get('/dashboard/links/new', async (request: LinkRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    return showForm(deps, kit, signedIn, reply, keyModeOf(request.query.mode), { price_type: 'fixed' });
  });
  app.post('/dashboard/links/new', newLink(deps, links, kit));
  app.get('/dashboard/links/:id', linkPage(deps, links, kit));
  // Stops a link (until re-activated), once the person ticked that they mean it (the form works without script).
  app.post(
    '/dashboard/links/:id/deactivate',
    linkSwitchForm(deps, links, kit, deactivateLink, {
      logged: 'payment link deactivated from the dashboard',
      confirmed: true,
    }),
  );
  linkEditPages(app, deps, links, kit);
}

function linksPage(links: Links, kit: PageKit) {
  return async (
    request: FastifyRequest<{ Querystring: { mode?: string; cursor?: string } }>,
    reply: FastifyReply,
  ) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const mode = keyModeOf(request.query.mode);
    const merchantId = merchantOf(signedIn.user);
    return kit.guard(reply, signedIn, async () => {
      const page = await listLinks({ links: links.store }, merchantId, mode, {
        limit: PAGE_SIZE,
        cursor: request.query.cursor || undefined,
      });
      // One read per link of the page (at most PAGE_SIZE), as the API's show: what was paid through it.
      const totals = await Promise.all(
        page.links.map((link) => links.store.paidTotals(link.id).then((t) => [link.id, t] as const)),
      );
      return reply.send(
        renderLinks({
          signedIn,
          ctx: kit.context(request),
          mode,
          links: page.links,
          totals: new Map(totals),
          nextCursor: page.nextCursor,
        }),
      );
    });
  };
}

function showForm(
  deps: DashboardDeps,
  kit: PageKit,
  signedIn: SignedIn,
  reply: FastifyReply,
  mode: KeyMode,
  fields: Readonly<Record<string, string | undefined>>,
  problem?: string,
) {
  return reply.send(
    renderNewLink({
      signedIn,
      ctx: kit.context(reply.request),
      mode,
      fields,
      problem,
      testAvailable: deps.deposits.test !== undefined,
    }),
  );
}

/** The form as createLink takes it: blank fields are absent, suggested amounts a comma-separated list. */
function linkInput(fields: Readonly<Record<string, string>>): CreateLinkInput {
  const given = (name: string) => fields[name] || undefined;
  const endsOn = given('ends_on');
  const fixed = fields.price_type !== 'open';
  return {
    title: given('title'),
    description: given('description'),
    imageUrl: given('image_url'),
    priceType: fields.price_type,
    currency: (given('currency') ?? 'USDC').toUpperCase(),
    amount: fixed ? given('amount') : undefined,
    maxQuantity: fixed ? given('max_quantity') : undefined,
    minAmount: fixed ? undefined : given('min_amount'),
    maxAmount: fixed ? undefined : given('max_amount'),
    suggestedAmounts: fixed
      ? undefined
      : given('suggested_amounts')
          ?.split(/[\s,;]+/)
          .filter((amount) => amount !== ''),
    maxUses: given('max_uses'),
    // A day picked in the form: the link takes payments until that day ends, in UTC (said beside the field).
    endsAt: endsOn && /^\d{4}-\d{2}-\d{2}$/.test(endsOn) ? `${endsOn}T23:59:59Z` : endsOn,
    successUrl: given('success_url'),
    cancelUrl: given('cancel_url'),
    // A fixed price's lines; an open amount's rows are refused by name if filled (decision 0051).
    lineItems: lineItemsOf(fields).lineItems,
  };
}

function newLink(deps: DashboardDeps, links: Links, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const body = request.body ?? {};
    const mode = keyModeOf(body.mode);
    const fields = Object.fromEntries(LINK_FIELDS.map((name) => [name, body[name]?.trim() ?? '']));
    try {
      const link = await createLink(
        { links: links.store, clock: deps.clock, webhookAllowPrivate: links.webhookAllowPrivate },
        merchantOf(signedIn.user),
        mode,
        linkInput(fields),
      );
      request.log.info({ link: link.id, mode }, 'payment link created from the dashboard');
      return reply.redirect(linkPath(link.id, mode), 303);
    } catch (error) {
      if (!(error instanceof PaylinkError)) throw error;
      return showForm(deps, kit, signedIn, reply.status(error.status), mode, fields, error.message);
    }
  };
}

function linkPage(deps: DashboardDeps, links: Links, kit: PageKit) {
  return async (request: LinkRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const mode = keyModeOf(request.query.mode);
    const merchantId = merchantOf(signedIn.user);
    return kit.guard(reply, signedIn, async () => {
      const shown = await showLink({ links: links.store }, merchantId, mode, request.params.id);
      const payments = await listPayments(deps, merchantId, {
        limit: PAGE_SIZE,
        cursor: request.query.cursor || undefined,
        linkId: shown.link.id,
        mode,
      });
      const url = linkUrl(links.checkoutUrl, shown.link.id);
      return reply.send(
        renderLink({
          signedIn,
          ctx: kit.context(request),
          ...shown,
          url,
          qrDataUri: `data:image/svg+xml;base64,${Buffer.from(await qrSvg(url)).toString('base64')}`,
          payments,
          notice: noticeOf(kit, request),
        }),
      );
    });
  };
}

/** What the edit or re-activation that led here did, in the reader's words. */
function noticeOf(kit: PageKit, request: LinkRequest): string | undefined {
  const e = kit.context(request).t.linkEdit;
  if (request.query.reactivated) return e.reactivated;
  return request.query.saved ? e.saved : undefined;
}

function linkPath(id: string, mode: KeyMode): string {
  return `/dashboard/links/${id}${mode === 'test' ? '?mode=test' : ''}`;
}
