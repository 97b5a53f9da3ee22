import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BrandStore } from '../../app/brand/ports.ts';
import type { Ledger } from '../../app/chain/ports.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import { isPaymentId, isX402Call, paymentStateOf } from '../../app/payments/getPaymentStatus.ts';
import type { PaymentStore } from '../../app/payments/ports.ts';
import type { Clock } from '../../app/shared/ports.ts';
import type { X402Store } from '../../app/x402/ports.ts';
import { errorResponseOf, ValidationError } from '../../domain/errors.ts';
import type { Payment } from '../../domain/payment.ts';
import { isLanguage, type Language, negotiateLanguage } from '../web/language.ts';
import type { CheckoutNetwork } from '../web/network.ts';
import { qrSvg } from '../web/qrCode.ts';
import { SECURITY_HEADERS } from '../web/securityHeaders.ts';
import { ownsItsPort } from '../web/webServer.ts';
import { loadShownBrand, registerBrandRoutes } from './brandRoutes.ts';
import { loadAssets } from './checkoutAssets.ts';
import { type CheckoutView, checkoutStatusJson, checkoutView } from './checkoutView.ts';
import { type CheckoutGasless, registerGaslessRoutes } from './gaslessRoutes.ts';
import { type CheckoutLinks, registerLinkRoutes } from './linkRoutes.ts';
import { type CheckoutMandates, registerMandateRoutes } from './mandateRoutes.ts';
import type { PageAssets } from './pageLayout.ts';
import {
  type ModeNetworks,
  modeOfHomeChain,
  type PaymentNetwork,
  paymentNetworks,
} from './paymentNetworks.ts';
import { type CheckoutReceipts, registerReceiptRoutes } from './receiptRoutes.ts';
import { type CheckoutRefunds, registerRefundRoutes } from './refundRoutes.ts';
import { renderCheckoutPage, renderErrorPage, renderNotFoundPage } from './renderPage.ts';
import { type CheckoutSubscriptions, registerSubscriptionRoutes } from './subscriptionRoutes.ts';

export interface CheckoutDeps {
  /** `recordPayerLanguage`: absent, the page records no payer's language (decision 0025). */
  readonly payments: Pick<PaymentStore, 'findById'> & Partial<Pick<PaymentStore, 'recordPayerLanguage'>>;
  readonly merchants: Pick<MerchantStore, 'find'>;
  readonly ledger: Pick<Ledger, 'listTransfers'>;
  readonly clock: Clock;
  /**
   * The networks this deployment takes payments on (live, and test when it is another chain), looked up by
   * each payment's chain id; a single network is the one-chain case.
   */
  readonly network: CheckoutNetwork | readonly CheckoutNetwork[];
  /**
   * Each mode's networks, home first then its CCTP source chains, and its V3 factory (paymentNetworks.ts):
   * what a payment's page offers. Absent: every payment is paid on its own chain alone, one of `network`.
   */
  readonly modeNetworks?: readonly ModeNetworks[] | undefined;
  /** How often an open page asks for its status (default 3 s). */
  readonly pollIntervalMs?: number | undefined;
  /** Gasless payment (EIP-3009) where the operator offers it; absent: the page offers transfers with gas only. */
  readonly gasless?: CheckoutGasless | undefined;
  /** Refund claim pages (`/refunds/:id`); absent: not served. */
  readonly refundClaims?: CheckoutRefunds | undefined;
  /** The x402 calls' addresses (decision 0059), for a call's page; absent: a call's page is not found. */
  readonly x402Payments?: Pick<X402Store, 'accountOfCall'> | undefined;
  /** Reusable links' pages (`/l/:id`); absent: not served. */
  readonly linkPages?: CheckoutLinks | undefined;
  /** The subscribe page and the customer portal (subscriptionRoutes.ts, decision 0062); absent: not served. */
  readonly subscriptionPages?: CheckoutSubscriptions | undefined;
  /** Receipt pages (`/receipts/:token`, receiptRoutes.ts); absent: not served. */
  readonly receiptPages?: CheckoutReceipts | undefined;
  /** Merchants' branding (decision 0052): their logos and colours served, and shown on their pages; absent: none. */
  readonly brands?: Pick<BrandStore, 'find' | 'findLogo'> | undefined;
  /** Pull renewal's mandate routes (`/subscriptions/:token/mandate`, decision 0061); absent: not served. */
  readonly mandatePages?: CheckoutMandates | undefined;
}

const DEFAULT_POLL_INTERVAL_MS = 3_000;
const HTML = 'text/html; charset=utf-8';
const NOT_FOUND_JSON = { error: 'Payment not found', code: 'NOT_FOUND' } as const;

type PaymentRequest = FastifyRequest<{
  Params: { id: string };
  Querystring: { lang?: string; kind?: string; network?: string; chain?: string };
}>;

/** What the checkout's routes share: the page's assets, the language and network of a request. */
interface CheckoutKit {
  readonly pageAssets: PageAssets;
  readonly pollIntervalMs: number;
  readonly languageOf: (request: FastifyRequest) => Language;
  readonly networkOf: (chainId: number) => CheckoutNetwork;
  /** Where a payment on this home chain can be paid: home first (paymentNetworks.ts). */
  readonly networksOf: (deposit: NonNullable<Payment['deposit']>) => PaymentNetwork[];
}

/**
 * The customer-facing checkout, on a port of its own (a different origin from the API, so the API's credentials
 * and the page never share an origin): `main/` mounts it on a server of its own, whose not-found and error pages
 * it sets.
 *
 * `GET /pay/:id` the page · `GET /pay/:id/status.json` its live status · `GET /pay/:id/qr.svg` its QR code ·
 * `/refunds/:id` the refund claim page and its routes (refundRoutes.ts) ·
 * `GET /assets/*` its script and stylesheet · `GET /favicon.svg` its icon. Unknown and malformed ids get the same 404.
 */
export function checkoutPlugin(deps: CheckoutDeps) {
  const networks: readonly CheckoutNetwork[] = Array.isArray(deps.network)
    ? deps.network
    : [deps.network as CheckoutNetwork];
  const assets = loadAssets();
  // Without a list of modes, each configured network is a home of its own with no source chain: one network.
  const modes: readonly ModeNetworks[] =
    deps.modeNetworks ??
    networks.map((n) => ({
      chains: [
        {
          ...n,
          publicRpcUrl: n.publicRpcUrl,
          nativeCurrencySymbol: n.nativeCurrencySymbol,
          role: 'home' as const,
          // The home chain's token is always the payment's own (paymentNetworks.ts).
          usdcAddress: '',
          gasless: deps.gasless !== undefined,
        },
      ],
      v3FactoryAddress: undefined,
    }));
  const kit: CheckoutKit = {
    pageAssets: assets.links,
    pollIntervalMs: deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    languageOf: (request) => {
      const query = request.query as { lang?: unknown } | undefined;
      if (isLanguage(query?.lang)) return query.lang;
      return negotiateLanguage(request.headers['accept-language']);
    },
    networkOf: (chainId) =>
      networks.find((n) => n.chainId === chainId) ?? { name: `Chain ${chainId}`, chainId, explorerUrl: '' },
    networksOf: (deposit) => paymentNetworks(deposit, modeOfHomeChain(modes, deposit.chainId)),
  };

  return ownsItsPort(async (app: FastifyInstance) => {
    // Only JSON is posted here (gasless authorizations, refund claims): Fastify parses text/plain by default,
    // which would reach the field checks as a string (400); without its parser it is 415, as any other type.
    app.removeContentTypeParser('text/plain');

    app.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(SECURITY_HEADERS);
      // Pages and status change from one second to the next and name a payment: never cache them.
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      return payload;
    });

    registerErrorPages(app, kit);
    if (deps.brands) registerBrandRoutes(app, deps.brands);
    registerPaymentRoutes(app, deps, kit);
    for (const [path, asset] of assets.routes) {
      app.get(path, { logLevel: 'warn' }, async (request, reply) => {
        const { v } = request.query as { v?: string };
        reply.type(asset.type).header('etag', `"${asset.version}"`);
        reply.header(
          'cache-control',
          v === asset.version ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
        );
        return asset.body;
      });
    }

    if (deps.gasless)
      registerGaslessRoutes(app, { ...deps, gasless: deps.gasless, networksOf: kit.networksOf });
    if (deps.refundClaims)
      registerRefundRoutes(app, {
        refunds: deps.refundClaims,
        merchants: deps.merchants,
        networkOf: kit.networkOf,
        languageOf: kit.languageOf,
        assets: kit.pageAssets,
        pollIntervalMs: kit.pollIntervalMs,
      });
    registerReceiptRoutes(app, {
      ...deps,
      receipts: deps.receiptPages,
      networkOf: kit.networkOf,
      languageOf: kit.languageOf,
      assets: kit.pageAssets,
    });
    if (deps.subscriptionPages)
      registerSubscriptionRoutes(app, {
        ...deps,
        subscriptions: deps.subscriptionPages,
        mandates: deps.mandatePages,
        networkName: networks[0]?.name ?? '',
        languageOf: kit.languageOf,
        assets: kit.pageAssets,
      });
    if (deps.mandatePages) registerMandateRoutes(app, { mandates: deps.mandatePages, clock: deps.clock });
    if (deps.linkPages)
      registerLinkRoutes(app, {
        ...deps,
        links: deps.linkPages,
        languageOf: kit.languageOf,
        assets: kit.pageAssets,
      });
  }, 'paylink-checkout');
}

/** The port's 404 page, and what an error becomes: the API's JSON shape for posts and .json, else a page. */
function registerErrorPages(app: FastifyInstance, { languageOf, pageAssets }: CheckoutKit): void {
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).type(HTML).header('vary', 'accept-language');
    return renderNotFoundPage(languageOf(request), pageAssets);
  });

  app.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500 && request.method === 'POST') {
      // What is posted here (a gasless authorization, a refund address) comes from a script that reads the
      // API's error shape.
      if (status === 415)
        return reply.status(415).send({ error: 'Send application/json', code: 'UNSUPPORTED_MEDIA_TYPE' });
      if (status === 413)
        return reply.status(413).send({ error: 'The request body is too large', code: 'PAYLOAD_TOO_LARGE' });
      return reply.status(400).send(errorResponseOf(new ValidationError('body', 'is not valid JSON')));
    }
    if (status !== undefined && status >= 400 && status < 500) {
      // A malformed request (bad query string, say) is the client's: answer as for a missing page.
      reply.status(404).type(HTML);
      return renderNotFoundPage(languageOf(request), pageAssets);
    }
    request.log.error({ err: error }, 'checkout error');
    if (request.url.split('?')[0]?.endsWith('.json')) {
      return reply.status(500).send({ error: 'Internal error', code: 'INTERNAL_ERROR' });
    }
    reply.status(500).type(HTML);
    return renderErrorPage(languageOf(request), pageAssets);
  });
}

/** `/pay/:id`: the page, its live status and its QR code. */
function registerPaymentRoutes(app: FastifyInstance, deps: CheckoutDeps, kit: CheckoutKit): void {
  const { languageOf, pageAssets } = kit;

  /** The payment's view as of one instant (status and countdown from the same clock reading). */
  const loadView = async (id: string): Promise<CheckoutView | undefined> => (await loadPage(id))?.view;
  const loadPage = async (id: string): Promise<{ view: CheckoutView; payment: Payment } | undefined> => {
    if (!isPaymentId(id)) return undefined;
    const payment = await deps.payments.findById(id.toLowerCase());
    if (!payment) return undefined;
    // An x402 call has no deposit of its own: its page is the x402 address's, which it paid (decision 0059).
    const deposit =
      payment.deposit ??
      (isX402Call(payment) ? (await deps.x402Payments?.accountOfCall(payment.id))?.deposit : undefined);
    // A payment from before deposit addresses existed cannot be paid here: nothing to show.
    if (!deposit) return undefined;
    const now = deps.clock.now();
    const [merchant, transfers] = await Promise.all([
      deps.merchants.find(payment.merchantId),
      deps.ledger.listTransfers(payment.id),
    ]);
    // As currentState derives it, keeping the transfers: the paid screen lists each one.
    const state = paymentStateOf(payment, transfers, now);
    // Never show a network the payment is not on: the home chain id always comes from the payment itself, and
    // a source chain only where its deposit address exists there too.
    const view = checkoutView({
      payment,
      deposit,
      state,
      transfers,
      merchantName: merchant?.name ?? '',
      networks: kit.networksOf(deposit),
      now,
    });
    return { view, payment };
  };

  app.get('/pay/:id', async (request: PaymentRequest, reply) => {
    const language = languageOf(request);
    reply.type(HTML).header('vary', 'accept-language').header('content-language', language);
    const page = await loadPage(request.params.id);
    if (!page) return reply.status(404).send(renderNotFoundPage(language, pageAssets));
    const { view, payment } = page;
    // The payer's language, for the e-mails to them where the merchant gave none: written only while the payment
    // is open and only when it changes, so a page viewed again in the same language writes nothing. A failed
    // write costs the payer nothing: the page is shown, the e-mails fall back (decision 0025).
    if (
      payment.customerLanguage === null &&
      payment.payerLanguage !== language &&
      (view.status === 'pending' || view.status === 'processing')
    )
      await deps.payments.recordPayerLanguage?.(payment.id, language).catch((error: unknown) => {
        request.log.warn({ err: error, payment: payment.id }, 'the payer’s language was not recorded');
      });
    const brand = await loadShownBrand(
      deps.brands,
      { id: payment.merchantId, name: view.merchantName },
      pageAssets,
    );
    return renderCheckoutPage({
      view: { ...view, merchantName: brand.name },
      logo: brand.logo,
      language,
      assets: brand.assets,
      pollIntervalMs: kit.pollIntervalMs,
      gasless: deps.gasless !== undefined,
      chosenChainId: chainIdOf(request.query.network),
    });
  });

  // Polled every few seconds by every open page: log only problems.
  app.get('/pay/:id/status.json', { logLevel: 'warn' }, async (request: PaymentRequest, reply) => {
    const view = await loadView(request.params.id);
    if (!view) return reply.status(404).send(NOT_FOUND_JSON);
    return checkoutStatusJson(view);
  });

  // The QR code always encodes the current request (the remaining amount after a partial payment); the
  // `amount` query parameter the page adds only busts caches, it is never read.
  app.get('/pay/:id/qr.svg', { logLevel: 'warn' }, async (request: PaymentRequest, reply) => {
    const view = await loadView(request.params.id);
    if (!view)
      return reply
        .status(404)
        .type(HTML)
        .send(renderNotFoundPage(languageOf(request), pageAssets));
    if (request.query.kind === 'address')
      return reply.type('image/svg+xml').send(await qrSvg(view.deposit.depositAddress));
    // `chain`: the request on that network (default: the home chain); one the payment is not offered on has none.
    const { chain } = request.query;
    const chainId = chain === undefined ? view.deposit.chainId : chainIdOf(chain);
    const offer = view.offers.find((o) => o.network.chainId === chainId);
    if (!offer)
      return reply
        .status(404)
        .type(HTML)
        .send(renderNotFoundPage(languageOf(request), pageAssets));
    return reply.type('image/svg+xml').send(await qrSvg(offer.paymentLink));
  });
}

/** A chain id from the query string ("8453"), or undefined for anything else. */
function chainIdOf(value: string | undefined): number | undefined {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value)) return undefined;
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : undefined;
}
