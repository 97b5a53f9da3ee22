import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BrandStore } from '../../app/brand/ports.ts';
import type { Ledger } from '../../app/chain/ports.ts';
import { receiptDocument } from '../../app/email/receiptDocument.ts';
import { isReceiptToken, receiptData, receiptMerchantOf } from '../../app/email/receipts.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import type { RefundRecord } from '../../app/refunds/ports.ts';
import { customerLanguageOf } from '../../domain/language.ts';
import type { Payment } from '../../domain/payment.ts';
import { EMAIL_MESSAGES } from '../email/messages/index.ts';
import { type ReceiptFact, receiptFacts, receiptPdfUrl } from '../email/receiptEmail.ts';
import { html } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import { isLanguage, type Language } from '../web/language.ts';
import type { CheckoutNetwork } from '../web/network.ts';
import { shownBrand } from './brandRoutes.ts';
import { badge, languageSwitcher, layout, messagePage, type PageAssets } from './pageLayout.ts';
import { renderReceiptPdf } from './receiptPdf.ts';

/** What the checkout needs to serve receipt pages; absent: `/receipts/*` is not served. */
export interface CheckoutReceipts {
  /** The payment whose receipt this token opens (stored when the receipt was queued). */
  findPayment(token: string): Promise<Payment | undefined>;
  /** The payment's refunds, for the PDF receipt's "what was returned". */
  refundsOf(paymentId: string): Promise<RefundRecord[]>;
}

type ReceiptRequest = FastifyRequest<{ Params: { token: string }; Querystring: { lang?: string } }>;

const HTML = 'text/html; charset=utf-8';

/**
 * `GET /receipts/:token`: a paid payment's receipt, linked from the receipt e-mail. The token (32 random bytes)
 * is the only key, as with a shared document: whoever has the URL reads it, nobody can list or guess one. The
 * page is not indexed (robots meta, and the checkout's security headers and no-store).
 */
export function registerReceiptRoutes(
  app: FastifyInstance,
  deps: {
    readonly receipts?: CheckoutReceipts | undefined;
    readonly merchants: Pick<MerchantStore, 'find'>;
    readonly brands?: Pick<BrandStore, 'find'> | undefined;
    readonly ledger: Pick<Ledger, 'listTransfers'>;
    readonly networkOf: (chainId: number) => CheckoutNetwork;
    readonly languageOf: (request: FastifyRequest) => Language;
    readonly assets: PageAssets;
  },
): void {
  const { receipts } = deps;
  if (!receipts) return;
  registerReceiptPdfRoute(app, { ...deps, receipts });
  app.get('/receipts/:token', async (request: ReceiptRequest, reply) => {
    const language = deps.languageOf(request);
    const m = EMAIL_MESSAGES[language].receipt;
    reply
      .type(HTML)
      .header('vary', 'accept-language')
      .header('content-language', language)
      .header('x-robots-tag', 'noindex, nofollow')
      // The URL is the key: it must not leave in a Referer to the explorer.
      .header('referrer-policy', 'no-referrer');
    const { token } = request.params;
    const payment = isReceiptToken(token) ? await receipts.findPayment(token) : undefined;
    const merchant = payment && (await deps.merchants.find(payment.merchantId));
    if (!payment || !merchant)
      return reply.status(404).send(messagePage(language, deps.assets, m.notFoundTitle, m.notFoundBody));
    // Each chain's explorer: the transaction is the customer's, on whichever chain it was sent (decision 0039).
    const explorerUrl = (chainId: number) => deps.networkOf(chainId).explorerUrl || undefined;
    // Every transfer that counted and every refund, as the PDF and the e-mail list them (decision 0050).
    const [transfers, refunds] = await Promise.all([
      deps.ledger.listTransfers(payment.id),
      receipts.refundsOf(payment.id),
    ]);
    // The receipt names the merchant as its pages do: its display name, its logo and colour (decision 0052),
    // and its address and tax id where set (decision 0057).
    const stored = await deps.brands?.find(merchant.id);
    const brand = shownBrand(merchant, stored, deps.assets);
    const data = receiptData(
      payment,
      receiptMerchantOf(merchant, stored),
      { checkoutUrl: `${request.protocol}://${request.host}`, explorerUrl },
      token,
      transfers,
      refunds,
    );
    const networks = new Map(data.transfers.map((t) => [t.txHash, deps.networkOf(t.chainId).name]));
    const { facts } = receiptFacts(data, language);
    const title = fill(m.pageTitle, { merchant: brand.name });
    const body = html`<main class="card">
<section class="stage end" aria-labelledby="title">
  ${brand.logo}
  ${badge('done')}
  <h1 id="title">${m.heading}</h1>
  <dl class="facts">
  ${facts.map((fact) => html`<div class="fact"><dt>${fact.label}</dt><dd>${factValue(fact, networks)}</dd></div>`)}
  </dl>
  <p><a class="button" href="${receiptPdfUrl(`/receipts/${token}`, language)}" download>${m.pdfLink}</a></p>
</section>
<footer>${languageSwitcher(language)}</footer>
</main>`;
    return layout({ language, title, assets: brand.assets, body, script: null });
  });
}

const NOT_FOUND = { error: 'Receipt not found', code: 'NOT_FOUND' } as const;
const NOT_PAID = { error: 'The payment is not paid: it has no receipt', code: 'PAYMENT_NOT_PAID' } as const;

/**
 * `GET /receipts/:token/pdf`: the same receipt as a PDF a customer's accountant keeps (decision 0048), opened by
 * the same token and nothing else. In `?lang=` (the page and the e-mail link their own language), else the
 * payer's. Errors are the API's JSON shape: a file was asked for, not a page.
 */
function registerReceiptPdfRoute(
  app: FastifyInstance,
  deps: {
    readonly receipts: CheckoutReceipts;
    readonly merchants: Pick<MerchantStore, 'find'>;
    readonly brands?: Pick<BrandStore, 'find'> | undefined;
    readonly ledger: Pick<Ledger, 'listTransfers'>;
    readonly networkOf: (chainId: number) => CheckoutNetwork;
  },
): void {
  const rendered = recentlyRendered(RENDERED_PDFS_KEPT);
  app.get('/receipts/:token/pdf', async (request: ReceiptRequest, reply) => {
    reply.header('x-robots-tag', 'noindex, nofollow').header('referrer-policy', 'no-referrer');
    const { token } = request.params;
    const payment = isReceiptToken(token) ? await deps.receipts.findPayment(token) : undefined;
    const merchant = payment && (await deps.merchants.find(payment.merchantId));
    if (!payment || !merchant) return reply.status(404).send(NOT_FOUND);
    // A payment reorganised off the chain after its receipt was queued keeps its token but is no longer paid.
    if (payment.status !== 'paid') return reply.status(409).send(NOT_PAID);
    const [transfers, refunds] = await Promise.all([
      deps.ledger.listTransfers(payment.id),
      deps.receipts.refundsOf(payment.id),
    ]);
    const { lang } = request.query;
    const language = isLanguage(lang) ? lang : customerLanguageOf(payment);
    const brand = await deps.brands?.find(merchant.id);
    const document = receiptDocument(payment, receiptMerchantOf(merchant, brand), transfers, refunds);
    const look = { colour: brand?.colour ?? null, logo: brand?.logo ?? null };
    // The logo by its hash: a new logo is a new PDF, without its bytes in the key.
    const key = `${language}:${look.colour}:${look.logo?.hash}:${JSON.stringify(document)}`;
    const pdf = await rendered(key, () =>
      renderReceiptPdf(document, language, (chainId) => deps.networkOf(chainId).name, look),
    );
    return reply
      .type('application/pdf')
      .header('content-language', language)
      .header('content-disposition', `attachment; filename="receipt-${payment.id}.pdf"`)
      .send(pdf);
  });
}

/** About 15 KB each: a few MB at most. */
const RENDERED_PDFS_KEPT = 200;

/**
 * The last PDFs rendered, by what they say: drawing one takes 100–300 ms of CPU (fonts parsed and subset), and
 * a customer who opens theirs twice, or a link shared around, should not cost that each time. The key is the
 * whole document, so a new refund or transfer is a new PDF; the oldest is dropped first.
 */
function recentlyRendered(size: number) {
  const kept = new Map<string, Promise<Buffer>>();
  return (key: string, render: () => Promise<Buffer>): Promise<Buffer> => {
    const hit = kept.get(key);
    kept.delete(key);
    const pdf = hit ?? render();
    kept.set(key, pdf);
    // A failed render is not kept: the next request tries again.
    pdf.catch(() => kept.delete(key));
    for (const oldest of kept.keys()) {
      if (kept.size <= size) break;
      kept.delete(oldest);
    }
    return pdf;
  };
}

/**
 * A fact as the page shows it. A transaction is its amount and network, then a hash of 66 characters: set as an
 * address (it breaks anywhere, so a phone's screen holds it) and linked to the network's explorer where there is
 * one.
 */
function factValue(fact: ReceiptFact, networks: ReadonlyMap<string, string>) {
  const { transaction } = fact;
  if (!transaction) return fact.value;
  const hash = html`<code class="address small">${transaction.hash}</code>`;
  const linked = transaction.url ? html`<a href="${transaction.url}" rel="noreferrer">${hash}</a>` : hash;
  return html`${transaction.amount} · ${networks.get(transaction.hash) ?? ''}<br>${linked}`;
}
