import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { chargeSale } from '../../app/pos/chargeSale.ts';
import { saleReceiptUrl } from '../../app/pos/saleReceipt.ts';
import { keyModeOf } from '../../domain/credentials.ts';
import { findCurrency, USDC } from '../../domain/currencies.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { isPosSale } from '../../domain/posSale.ts';
import { eip681TransferLink } from '../web/eip681.ts';
import { qrSvg } from '../web/qrCode.ts';
import { typedAmount } from '../web/typedAmount.ts';
import { cataloguePages } from './cataloguePages.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { ownPayment } from './newPaymentPages.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { POS_TEXT } from './posMessages/index.ts';
import type { PageContext } from './renderDashboard.ts';
import { type PosEntry, renderPosEntry, renderPosSale } from './renderPos.ts';

type SaleRequest = FastifyRequest<{ Params: { id: string } }>;

/** Statuses after which nothing more happens to a sale on its own: the screen stops asking. */
const ENDED = new Set(['paid', 'failed', 'expired']);
const QUANTITY_FIELD = 'qty_';

/** The routes a PoS user may use (`kit.requirePos`); every other page refuses it (decision 0054). */
const POS_ROUTES: ReadonlySet<string> = new Set([
  '/dashboard/pos',
  '/dashboard/pos/sales',
  '/dashboard/pos/sales/:id',
  '/dashboard/pos/sales/:id/receipt',
  '/dashboard/pos/sales/:id/status.json',
]);

/** Whether a route (as registered: `/dashboard/pos/sales/:id`) is one a PoS user may use. */
export function isPosRoute(route: string | undefined): boolean {
  return route !== undefined && POS_ROUTES.has(route);
}

function asset(file: string, type: string) {
  const body = readFileSync(new URL(`./assets/${file}`, import.meta.url));
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { body, type, path: `/dashboard/assets/${file}`, url: `/dashboard/assets/${file}?v=${version}` };
}

/**
 * The point of sale (decision 0054) under `/dashboard/pos`: for a PoS user (the counter's staff, who sees nothing
 * else of the dashboard) and the merchant's own users. "Charge" creates an ordinary payment through the API's
 * create; the sale's screen shows its EIP-681 QR code and polls its status. Absent without a catalogue store or
 * the dashboard's payment creation.
 */
export function posPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  const creation = deps.paymentCreation;
  const catalogue = deps.posCatalogue;
  if (!creation || !catalogue) return;
  const css = asset('pos.css', 'text/css; charset=utf-8');
  const js = asset('pos.js', 'text/javascript; charset=utf-8');
  for (const file of [css, js])
    app.get(file.path, { logLevel: 'warn' }, async (_request, reply) =>
      reply.type(file.type).header('cache-control', 'public, max-age=31536000, immutable').send(file.body),
    );
  /** The dashboard's page context, with the point of sale's stylesheet and script after the dashboard's. */
  const context = (request: FastifyRequest): PageContext => {
    const ctx = kit.context(request);
    return { ...ctx, assets: { ...ctx.assets, own: { stylesheet: css.url, script: js.url } } };
  };
  const showEntry = async (
    signedIn: SignedIn,
    reply: FastifyReply,
    form: Pick<PosEntry, 'fields' | 'problem' | 'problemField'> & { currency?: string | undefined },
  ) => {
    const merchantId = merchantOf(signedIn.user);
    const [items, merchant] = await Promise.all([
      catalogue.list(merchantId),
      deps.merchants.find(merchantId),
    ]);
    const currency = findCurrency(form.currency ?? '') ?? items[0]?.unitPrice.currency ?? USDC;
    const currencies = new Set([
      currency.code,
      ...items.map((item) => item.unitPrice.currency.code),
      USDC.code,
    ]);
    return reply.send(
      renderPosEntry(signedIn, context(reply.request), {
        ...form,
        currency,
        currencies: [...currencies],
        items: items.filter((item) => item.unitPrice.currency.code === currency.code),
        saleKey: randomUUID(),
        testAvailable: deps.deposits.test !== undefined,
        canEmail: deps.paymentRequests !== undefined && merchant?.sendReceipts === true,
      }),
    );
  };

  app.get('/dashboard/pos', async (request, reply) => {
    const signedIn = await kit.requirePos(request, reply);
    if (!signedIn) return reply;
    const { currency } = request.query as { currency?: string };
    return showEntry(signedIn, reply, { fields: {}, currency });
  });

  app.post('/dashboard/pos/sales', async (request: FormRequest, reply) => {
    const signedIn = await kit.requirePos(request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const body = request.body ?? {};
    const merchant = await deps.merchants.find(merchantOf(signedIn.user));
    if (!merchant) return kit.refuse(reply, signedIn, 404);
    const mode = keyModeOf(body.mode);
    const quantities = Object.fromEntries(
      Object.entries(body)
        .filter(([name]) => name.startsWith(QUANTITY_FIELD))
        .map(([name, value]) => [name.slice(QUANTITY_FIELD.length), value]),
    );
    try {
      const payment = await chargeSale({ creation: creation.deps, catalogue }, merchant, {
        saleKey: body.sale_key ?? '',
        mode,
        currency: body.currency ?? '',
        amount: typedAmount(body.amount ?? ''),
        quantities,
        customerEmail: body.customer_email ?? '',
        staffUserId: signedIn.user.id,
        amountLabel: POS_TEXT[kit.context(request).lang].entry.amount,
      });
      request.log.info({ payment: payment.id, mode }, 'sale charged at the point of sale');
      return reply.redirect(`/dashboard/pos/sales/${payment.id}`, 303);
    } catch (error) {
      if (!(error instanceof PaylinkError)) throw error;
      return showEntry(signedIn, reply.status(error.status), {
        fields: body,
        currency: body.currency,
        problem: error.message,
        problemField: error.field,
      });
    }
  });

  saleRoutes(app, deps, kit, context);
  cataloguePages(app, { ...deps, posCatalogue: catalogue }, kit, context);
}

/** A sale's screen (its QR code and status, then its end) and the status its script polls. */
function saleRoutes(
  app: FastifyInstance,
  deps: DashboardDeps,
  kit: PageKit,
  context: (request: FastifyRequest) => PageContext,
): void {
  const checkoutUrl = deps.paymentCreation?.checkoutUrl;
  const receiptDeps =
    deps.receiptTokens && checkoutUrl ? { tokens: deps.receiptTokens, checkoutUrl } : undefined;
  app.get('/dashboard/pos/sales/:id', async (request: SaleRequest, reply) => {
    const signedIn = await kit.requirePos(request, reply);
    if (!signedIn) return reply;
    const found = await ownSale(deps, signedIn, request.params.id);
    if (!found) return kit.refuse(reply, signedIn, 404);
    const { payment, state } = found;
    const deposit = payment.deposit;
    const request681 =
      deposit &&
      eip681TransferLink({
        tokenAddress: deposit.tokenAddress,
        chainId: deposit.chainId,
        recipient: deposit.depositAddress,
        amountBaseUnits: payment.quote.usdcBaseUnits,
      });
    const merchant = await deps.merchants.find(payment.merchantId);
    const receipts = deps.paymentRequests !== undefined && merchant?.sendReceipts === true;
    const receiptPage = receiptDeps && (await saleReceiptUrl(receiptDeps, payment, state, false));
    return reply.send(
      renderPosSale(signedIn, context(request), {
        payment,
        state,
        qrDataUri: request681 ? await qrDataUri(request681) : '',
        network: deposit ? (deps.networkNames?.get(deposit.chainId) ?? String(deposit.chainId)) : '',
        receiptTo: receipts && payment.mode === 'live' ? payment.customerEmail : null,
        receipt: receiptPage
          ? { qrDataUri: await qrDataUri(receiptPage) }
          : receiptDeps && state.status === 'paid'
            ? 'offered'
            : undefined,
      }),
    );
  });

  // "Show the receipt as a QR code" on a paid sale without one: its receipt page made, then shown.
  app.post('/dashboard/pos/sales/:id/receipt', async (request: FormRequest, reply) => {
    const signedIn = await kit.requirePos(request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    const found = receiptDeps && (await ownSale(deps, signedIn, id));
    if (!found) return kit.refuse(reply, signedIn, 404);
    await saleReceiptUrl(receiptDeps, found.payment, found.state, true);
    return reply.redirect(`/dashboard/pos/sales/${found.payment.id}`, 303);
  });

  // What the sale's screen polls (pos.js): its status, nothing else.
  app.get('/dashboard/pos/sales/:id/status.json', async (request: SaleRequest, reply) => {
    const signedIn = await kit.requirePos(request, reply);
    if (!signedIn) return reply;
    const found = await ownSale(deps, signedIn, request.params.id);
    reply.type('application/json; charset=utf-8');
    if (!found) return reply.status(404).send({ error: 'Sale not found', code: 'NOT_FOUND' });
    const { status } = found.state;
    return reply.send({ status, final: ENDED.has(status) });
  });
}

/** A QR code as an image the strict CSP allows (a `data:` URI). */
async function qrDataUri(text: string): Promise<string> {
  return `data:image/svg+xml;base64,${Buffer.from(await qrSvg(text)).toString('base64')}`;
}

/**
 * A sale of the signed-in user's merchant, of either mode, made at the point of sale; undefined for any other
 * payment (the same 404 as none): the counter sees the sales it rings up, not the merchant's other payments.
 */
async function ownSale(deps: DashboardDeps, signedIn: SignedIn, id: string) {
  const found = await ownPayment(deps, signedIn, id);
  return found && isPosSale(found.payment) ? found : undefined;
}
