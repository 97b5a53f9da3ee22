import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isReceiptToken, receiptData } from '../../app/email/receipts.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import type { Payment } from '../../domain/payment.ts';
import { EMAIL_MESSAGES } from '../email/messages/index.ts';
import { receiptFacts } from '../email/receiptEmail.ts';
import { html } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import type { Language } from '../web/language.ts';
import type { CheckoutNetwork } from '../web/network.ts';
import { badge, languageSwitcher, layout, messagePage, type PageAssets } from './pageLayout.ts';

/** What the checkout needs to serve receipt pages; absent: `/receipts/*` is not served. */
export interface CheckoutReceipts {
  /** The payment whose receipt this token opens (stored when the receipt was queued). */
  findPayment(token: string): Promise<Payment | undefined>;
}

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
    readonly networkOf: (chainId: number) => CheckoutNetwork;
    readonly languageOf: (request: FastifyRequest) => Language;
    readonly assets: PageAssets;
  },
): void {
  const { receipts } = deps;
  if (!receipts) return;
  app.get('/receipts/:token', async (request: FastifyRequest<{ Params: { token: string } }>, reply) => {
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
    const data = receiptData(
      payment,
      merchant,
      { checkoutUrl: `${request.protocol}://${request.host}`, explorerUrl },
      token,
    );
    const { facts } = receiptFacts(data, language);
    const title = fill(m.pageTitle, { merchant: merchant.name });
    const body = html`<main class="card">
<section class="stage end" aria-labelledby="title">
  ${badge('done')}
  <h1 id="title">${m.heading}</h1>
  <dl class="facts">
  ${facts.map((fact) => html`<div class="fact"><dt>${fact.label}</dt><dd>${factValue(fact, m.transaction, data.explorerTxUrl)}</dd></div>`)}
  </dl>
</section>
<footer>${languageSwitcher(language)}</footer>
</main>`;
    return layout({ language, title, assets: deps.assets, body, script: null });
  });
}

/**
 * A fact as the page shows it. The transaction is a hash of 66 characters: set as an address (it breaks
 * anywhere, so a phone's screen holds it) and linked to the network's explorer where there is one.
 */
function factValue(
  fact: { label: string; value: string },
  transactionLabel: string,
  explorerTxUrl: string | null,
) {
  if (fact.label !== transactionLabel) return fact.value;
  const hash = html`<code class="address small">${fact.value}</code>`;
  return explorerTxUrl ? html`<a href="${explorerTxUrl}" rel="noreferrer">${hash}</a>` : hash;
}
