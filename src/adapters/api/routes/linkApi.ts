import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createLink } from '../../../app/links/createLink.ts';
import { deactivateLink, listLinks, showLink } from '../../../app/links/manageLinks.ts';
import { payLink } from '../../../app/links/payLink.ts';
import type { LinkStore } from '../../../app/links/ports.ts';
import { describeLineItems } from '../../../domain/lineItems.ts';
import type { Merchant } from '../../../domain/merchant.ts';
import { formatMoney, formatUsdc } from '../../../domain/money.ts';
import type { PaymentLink } from '../../../domain/paymentLink.ts';
import { linkUrl } from '../../web/checkoutUrls.ts';
import type { ApiDeps } from '../apiDeps.ts';
import {
  CreateLinkBody,
  LinkList,
  LinkParams,
  LinkResponse,
  ListLinksQuery,
  PayLinkBody,
} from '../linkSchemas.ts';
import { merchantPlugin, merchantRoutes, PAGED_LISTING, pageOf } from '../merchantRoutes.ts';
import { createdPaymentResponse } from '../presenters.ts';
import { CreatePaymentResponse, ErrorBody } from '../schemas.ts';

function linkResponse(link: PaymentLink, merchant: Merchant, checkoutUrl: string) {
  const { price } = link;
  return {
    link_id: link.id,
    url: linkUrl(checkoutUrl, link.id),
    title: link.title,
    description: link.description,
    image_url: link.imageUrl,
    merchant_name: merchant.name,
    price_type: price.type,
    currency: price.type === 'fixed' ? price.unit.currency.code : price.currency.code,
    amount: price.type === 'fixed' ? formatMoney(price.unit) : null,
    max_quantity: price.type === 'fixed' ? price.maxQuantity : null,
    min_amount: price.type === 'open' ? formatMoney(price.min) : null,
    max_amount: price.type === 'open' ? formatMoney(price.max) : null,
    suggested_amounts: price.type === 'open' ? price.suggested.map(formatMoney) : [],
    active: link.deactivatedAt === null,
    deactivated_at: link.deactivatedAt?.toISOString() ?? null,
    max_uses: link.maxUses,
    ends_at: link.endsAt?.toISOString() ?? null,
    success_url: link.successUrl,
    cancel_url: link.cancelUrl,
    metadata: link.metadata ?? {},
    line_items: link.lineItems ? describeLineItems(link.lineItems) : null,
    livemode: link.mode === 'live',
    created_at: link.createdAt.toISOString(),
  };
}

type LinkDeps = ApiDeps & { readonly links: LinkStore };
type PayDeps = ReturnType<typeof payDepsOf>;

function payDepsOf(deps: LinkDeps) {
  return {
    ...deps,
    paymentTtlMs: deps.config.paymentTtlMs,
    maxAmountBaseUnits: deps.config.maxAmountBaseUnits,
    minAmountBaseUnits: deps.config.minAmountBaseUnits,
    webhookAllowPrivate: deps.config.webhookAllowPrivate,
  };
}

type LinkRoutes = ReturnType<typeof merchantRoutes>;

/**
 * Reusable links (issue 28): create, list, show (with what was paid through it), deactivate, and a payment from
 * a link for the amount a payer chose. Same auth, errors and modes as payments.
 */
export function linkApi(deps: LinkDeps): FastifyPluginAsyncZod {
  const payDeps = payDepsOf(deps);
  return merchantPlugin(deps, (app) => {
    const links = merchantRoutes(app, 'links');
    const respond = (link: PaymentLink, merchant: Merchant) =>
      linkResponse(link, merchant, deps.config.checkoutUrl);
    createLinkRoute(links, payDeps, respond);
    readLinkRoutes(links, deps, respond);
    payLinkRoute(links, deps, payDeps);
  });
}

type Respond = (link: PaymentLink, merchant: Merchant) => ReturnType<typeof linkResponse>;

function createLinkRoute(links: LinkRoutes, payDeps: PayDeps, respond: Respond): void {
  links.post(
    '/payments/api/links/',
    'links:write',
    'Create a reusable payment link',
    { body: CreateLinkBody, response: { 201: LinkResponse, 415: ErrorBody } },
    async ({ body, log }, { merchant, mode }, reply) => {
      const link = await createLink(payDeps, merchant.id, mode, {
        title: body.title,
        description: body.description,
        imageUrl: body.image_url,
        priceType: body.price_type,
        currency: body.currency,
        amount: body.amount,
        maxQuantity: body.max_quantity,
        minAmount: body.min_amount,
        maxAmount: body.max_amount,
        suggestedAmounts: body.suggested_amounts,
        maxUses: body.max_uses,
        endsAt: body.ends_at,
        successUrl: body.success_url,
        cancelUrl: body.cancel_url,
        metadata: body.metadata,
        lineItems: body.line_items,
      });
      log.info({ link: link.id }, 'payment link created');
      return reply.status(201).send(respond(link, merchant));
    },
  );
}

/** A merchant's links: a page of them, one with what was paid through it, or one deactivated. */
function readLinkRoutes(links: LinkRoutes, deps: LinkDeps, respond: Respond): void {
  links.get(
    '/payments/api/links/',
    'links:read',
    'List reusable payment links',
    { description: PAGED_LISTING, querystring: ListLinksQuery, response: { 200: LinkList } },
    async ({ query }, { merchant, mode }) => {
      const page = await listLinks(deps, merchant.id, mode, pageOf(query));
      return { links: page.links.map((link) => respond(link, merchant)), next_cursor: page.nextCursor };
    },
  );
  links.get(
    '/payments/api/links/:link_id/',
    'links:read',
    'Show a payment link, with how many paid through it and how much',
    { params: LinkParams, response: { 200: LinkResponse } },
    async ({ params }, { merchant, mode }) => {
      const shown = await showLink(deps, merchant.id, mode, params.link_id);
      return {
        ...respond(shown.link, merchant),
        payments_paid: shown.paidCount,
        amount_paid: formatUsdc(shown.paidBaseUnits),
      };
    },
  );
  links.post(
    '/payments/api/links/:link_id/deactivate/',
    'links:write',
    'Deactivate a payment link for good',
    { params: LinkParams, response: { 200: LinkResponse } },
    async ({ params }, { merchant, mode }) =>
      respond(await deactivateLink(deps, merchant.id, mode, params.link_id), merchant),
  );
}

function payLinkRoute(links: LinkRoutes, deps: LinkDeps, payDeps: PayDeps): void {
  links.post(
    '/payments/api/links/:link_id/payments/',
    'payments:write',
    'Create a payment from a link for the quantity or amount a payer chose',
    {
      description:
        'The payment is created as by /payments/api/create/ (quote, deposit address, expiry), carrying link_id and the link URLs, metadata, title, description and line items (each line times the quantity). ' +
        '409 LINK_UNAVAILABLE when the link is deactivated, ended or used up.',
      params: LinkParams,
      body: PayLinkBody,
      response: { 201: CreatePaymentResponse, 409: ErrorBody, 415: ErrorBody, 503: ErrorBody },
    },
    async ({ params, body, log }, { merchant, mode }, reply) => {
      const payment = await payLink(payDeps, merchant, params.link_id, mode, {
        quantity: body.quantity,
        amount: body.amount,
        customerEmail: body.customer_email,
      });
      log.info({ payment: payment.id, link: payment.linkId }, 'payment created from a link');
      return reply.status(201).send(createdPaymentResponse(payment, deps));
    },
  );
}
