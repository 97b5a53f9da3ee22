import type { ListedPayment } from '../../app/payments/listPayments.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import { formatMoney, type Money } from '../../domain/money.ts';
import type { PaymentLink } from '../../domain/paymentLink.ts';
import { receivedBaseUnitsShown } from '../../domain/webhookEvent.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { formatPriceAmount } from '../web/localeFormat.ts';
import { priceText, referenceLink, statusBadge, usdcText, usdcWithUnit } from './dashboardFormat.ts';
import { formEnd, textField } from './formFields.ts';
import { lineItemRows } from './lineItemFields.ts';
import type { SignedInPageInput } from './renderDashboard.ts';
import { csrfField, type PageContext, problemBox, signedInPage, time } from './renderDashboard.ts';
import { linkActions } from './renderLinkEdit.ts';

type Totals = { readonly count: number; readonly receivedBaseUnits: bigint };

const testBadge = (ctx: PageContext, mode: KeyMode) =>
  mode === 'test' ? html` <span class="badge">${ctx.t.list.testMode}</span>` : null;

/** An amount in its currency's precision, without its code, the page language's way. */
const amountText = (ctx: PageContext, money: Money) => formatPriceAmount(formatMoney(money), ctx.lang);

/**
 * Suggested amounts, one after another: "5.00, 10.00, 20.00"; where the decimal separator is a comma a comma
 * between them would read as one number, so they are set apart by a dot ("5,00 · 10,00 · 20,00").
 */
function suggestedText(ctx: PageContext, amounts: readonly Money[]): string {
  return amounts.map((amount) => amountText(ctx, amount)).join(ctx.lang === 'en' ? ', ' : ' · ');
}

/** What a link asks for: "25.00 EUR (up to 5 each)" or "2.00 – 200.00 EUR". */
function priceOf(ctx: PageContext, link: PaymentLink): SafeHtml {
  const { price } = link;
  if (price.type === 'fixed') {
    const unit = priceText(ctx, price.unit);
    return price.maxQuantity > 1
      ? html`${unit} <span class="muted">${format(ctx.t.links.upTo, { count: price.maxQuantity })}</span>`
      : html`${unit}`;
  }
  return html`${amountText(ctx, price.min)} – ${priceText(ctx, price.max)}`;
}

function activeBadge(ctx: PageContext, link: PaymentLink): SafeHtml {
  const k = ctx.t.links;
  return link.deactivatedAt === null
    ? html`<span class="status status-paid">${k.active}</span>`
    : html`<span class="status status-expired">${k.deactivated}</span>`;
}

/** The merchant's links of one mode, newest first, each with how many paid through it and how much. */
export function renderLinks(
  input: SignedInPageInput & {
    mode: KeyMode;
    links: readonly PaymentLink[];
    totals: ReadonlyMap<string, Totals>;
    nextCursor: string | null;
  },
): string {
  const { ctx, mode } = input;
  const k = ctx.t.links;
  const l = ctx.t.list;
  const modeQuery = mode === 'test' ? '?mode=test' : '';
  const rows = input.links.map((link) => {
    const totals = input.totals.get(link.id);
    return html`<tr>
  <td><a href="/dashboard/links/${link.id}${modeQuery}">${link.title}</a></td>
  <td>${link.price.type === 'fixed' ? k.fixed : k.open}</td>
  <td class="amount">${priceOf(ctx, link)}</td>
  <td>${activeBadge(ctx, link)}</td>
  <td class="amount">${totals?.count ?? 0}</td>
  <td class="amount">${usdcText(ctx, totals?.receivedBaseUnits ?? 0n)}</td>
  <td>${time(link.createdAt)}</td>
</tr>`;
  });
  const body = html`<h1>${k.title}${testBadge(ctx, mode)}</h1>
<p class="muted">${k.hint}</p>
<div class="actions">
  <a class="button" href="/dashboard/links/new${modeQuery}">${k.newLink}</a>
  <a href="/dashboard/links${mode === 'test' ? '' : '?mode=test'}">${mode === 'test' ? k.showLive : k.showTest}</a>
</div>
${
  input.links.length === 0
    ? html`<p class="muted" role="status">${k.none}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${k.title}"><table>
  <thead><tr><th scope="col">${k.linkTitle}</th><th scope="col">${k.priceType}</th><th scope="col">${l.price}</th><th scope="col">${l.status}</th><th scope="col">${k.paidCount}</th><th scope="col">${k.paidAmount}</th><th scope="col">${l.created}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}
${input.nextCursor ? html`<p><a href="/dashboard/links?${new URLSearchParams({ ...(mode === 'test' ? { mode } : {}), cursor: input.nextCursor }).toString()}">${l.older}</a></p>` : null}`;
  return signedInPage(input.signedIn, ctx, k.title, body);
}

/** "New link": a fixed price (with an optional quantity) or an open amount, and what every link may have. */
export function renderNewLink(
  input: SignedInPageInput & {
    mode: KeyMode;
    fields: Readonly<Record<string, string | undefined>>;
    problem?: string | undefined;
    testAvailable: boolean;
  },
): string {
  const { ctx, mode, fields } = input;
  const k = ctx.t.links;
  const n = ctx.t.newPayment;
  const value = (name: string) => fields[name] ?? '';
  const hint = (text: string | undefined) => (text ? html` <span class="muted">${text}</span>` : null);
  const field = (name: string, label: string, attributes: SafeHtml | null, note?: string) =>
    textField(input, name, label, attributes, note);
  const amount = html`inputmode="decimal" autocomplete="off"`;
  const count = html`inputmode="numeric" pattern="[0-9]*" autocomplete="off"`;
  const open = fields.price_type === 'open';
  const radio = (type: 'fixed' | 'open', label: string) =>
    html`<label class="choice"><input type="radio" name="price_type" value="${type}"${open === (type === 'open') ? html` checked` : null}> ${label}</label>`;
  const body = html`<div class="card narrow">
  <h1>${k.newLink}${testBadge(ctx, mode)}</h1>
  <p class="muted">${k.newHint}</p>
  ${problemBox(input.problem)}
  <form class="stack" method="post" action="/dashboard/links/new">
    ${csrfField(input.signedIn)}
    ${field('title', k.linkTitle, html`required maxlength="200"`)}
    <label for="description">${k.description}${hint(k.optional)}</label>
    <textarea id="description" name="description" maxlength="2000" rows="3">${value('description')}</textarea>
    ${field('image_url', k.imageUrl, html`type="url" maxlength="2048"`, k.optionalHttps)}
    ${field('currency', n.currency, html`autocomplete="off" maxlength="5" spellcheck="false" placeholder="USDC"`, n.currencyHint)}
    <fieldset>
      <legend>${k.priceType}</legend>
      ${radio('fixed', k.fixedLong)}
      ${field('amount', k.amount, amount, k.forFixed)}
      ${field('max_quantity', k.maxQuantity, count, k.maxQuantityHint)}
      ${radio('open', k.openLong)}
      ${field('min_amount', k.minAmount, amount, k.forOpen)}
      ${field('max_amount', k.maxAmount, amount, k.forOpen)}
      ${field('suggested_amounts', k.suggested, html`autocomplete="off"`, k.suggestedHint)}
    </fieldset>
    ${lineItemRows(ctx, input)}
    ${field('max_uses', k.maxUses, count, k.optional)}
    ${field('ends_on', k.endsOn, html`type="date"`, k.endsOnHint)}
    ${formEnd(ctx, { fields, mode, testAvailable: input.testAvailable }, k.create)}
  </form>
</div>`;
  return signedInPage(input.signedIn, ctx, k.newLink, body);
}

/** A link's page: its public URL (copy, QR), its terms, what it brought, its payments, and deactivation. */
export function renderLink(
  input: SignedInPageInput & {
    link: PaymentLink;
    paidCount: number;
    paidBaseUnits: bigint;
    url: string;
    qrDataUri: string;
    payments: { readonly payments: readonly ListedPayment[]; readonly nextCursor: string | null };
    /** What the last action did (saved, re-activated), said once on the page it led back to. */
    notice?: string | undefined;
  },
): string {
  const { ctx, link, signedIn } = input;
  const k = ctx.t.links;
  const l = ctx.t.list;
  const n = ctx.t.newPayment;
  const { price } = link;
  const active = link.deactivatedAt === null;
  const rows = input.payments.payments.map(
    ({ payment, state }) => html`<tr>
  <td>${time(payment.createdAt)}</td>
  <td>${referenceLink(payment)}</td>
  <td>${statusBadge(ctx, state)}</td>
  <td class="amount">${priceText(ctx, payment.quote.amount)}</td>
  <td class="amount">${usdcText(ctx, receivedBaseUnitsShown(state))}</td>
</tr>`,
  );
  const body = html`<h1>${link.title}${testBadge(ctx, link.mode)}</h1>
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : null}
<div class="card">
  <dl class="facts">
    <dt>${l.status}</dt><dd>${activeBadge(ctx, link)}</dd>
    <dt>${k.priceType}</dt><dd>${price.type === 'fixed' ? k.fixed : k.open}</dd>
    <dt>${l.price}</dt><dd>${priceOf(ctx, link)}</dd>
    ${price.type === 'open' && price.suggested.length > 0 ? html`<dt>${k.suggested}</dt><dd>${suggestedText(ctx, price.suggested)} ${price.currency.code}</dd>` : null}
    ${link.description ? html`<dt>${k.description}</dt><dd>${link.description}</dd>` : null}
    ${link.maxUses !== null ? html`<dt>${k.maxUses}</dt><dd>${link.maxUses}</dd>` : null}
    ${link.endsAt ? html`<dt>${k.endsAt}</dt><dd>${time(link.endsAt)}</dd>` : null}
    <dt>${k.paidCount}</dt><dd>${input.paidCount}</dd>
    <dt>${k.paidAmount}</dt><dd>${usdcWithUnit(ctx, input.paidBaseUnits)}</dd>
    <dt>${l.created}</dt><dd>${time(link.createdAt)}</dd>
  </dl>
</div>
${linkActions(ctx, signedIn, link)}
<h2>${k.publicUrl}</h2>
<div class="card">
  <label for="link-url">${k.share}</label>
  <span class="copy-row"><input id="link-url" type="text" readonly value="${input.url}" spellcheck="false"> <button type="button" class="link" data-copy="link-url" data-copied="${n.copied}" hidden>${n.copy}</button></span>
  <p class="actions"><button type="button" data-share="${input.url}" data-share-title="${link.title}" hidden>${n.share}</button> <a href="${input.url}" rel="noopener noreferrer">${k.open_}</a></p>
  <p class="qr"><img src="${input.qrDataUri}" alt="${k.qrAlt}" width="240" height="240"></p>
</div>
<h2>${k.payments}</h2>
${
  rows.length === 0
    ? html`<p class="muted" role="status">${k.noPayment}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${k.payments}"><table>
  <thead><tr><th scope="col">${l.created}</th><th scope="col">${l.payment}</th><th scope="col">${l.status}</th><th scope="col">${l.price}</th><th scope="col">${l.usdcReceived}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}
${input.payments.nextCursor ? html`<p><a href="/dashboard/links/${link.id}?${new URLSearchParams({ ...(link.mode === 'test' ? { mode: 'test' } : {}), cursor: input.payments.nextCursor }).toString()}">${l.older}</a></p>` : null}
${
  active
    ? html`<h2>${k.deactivate}</h2>
<form class="card danger" method="post" action="/dashboard/links/${link.id}/deactivate" data-confirm="${k.confirm}">
  ${csrfField(signedIn)}
  <input type="hidden" name="mode" value="${link.mode}">
  <p>${k.deactivateHint}</p>
  <label class="choice"><input type="checkbox" name="confirmed" value="yes" required> ${k.confirmBox}</label>
  <button type="submit" class="danger">${k.deactivate}</button>
</form>`
    : null
}
<p><a href="/dashboard/links${link.mode === 'test' ? '?mode=test' : ''}">${k.back}</a></p>`;
  return signedInPage(signedIn, ctx, link.title, body);
}
