import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { Currency } from '../../domain/currencies.ts';
import { lineTotal } from '../../domain/lineItems.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PaymentState } from '../../domain/paymentStatus.ts';
import type { CatalogueItem } from '../../domain/posSale.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import { formatPriceAmount } from '../web/localeFormat.ts';
import { priceText, usdcWithUnit } from './dashboardFormat.ts';
import { POS_TEXT } from './posMessages/index.ts';
import { csrfField, type PageContext, problemBox, signedInPage, time } from './renderDashboard.ts';

/**
 * The point of sale's screens (decision 0054), rendered on the server and usable without a script: the entry (an
 * amount, the catalogue's items, a total, "Charge"), the sale (a big QR code, the address and exact amount beside
 * it, its status) and its end (paid, or expired or failed), each with "New sale". pos.js adds the quantity
 * buttons, the live total and the status polling; pos.css lays them out for a tablet and a phone.
 */

/** The counter's form as shown, or as posted and refused. */
export interface PosEntry {
  readonly currency: Currency;
  /** The currencies offered: the catalogue's, the sale's, USDC. */
  readonly currencies: readonly string[];
  /** The catalogue's items in the sale's currency. */
  readonly items: readonly CatalogueItem[];
  /** Made for this showing of the form: every tap of its "Charge" is one sale. */
  readonly saleKey: string;
  readonly testAvailable: boolean;
  /** Whether receipts can be e-mailed here (e-mail configured, the merchant sends receipts). */
  readonly canEmail: boolean;
  readonly fields: Readonly<Record<string, string | undefined>>;
  readonly problem?: string | undefined;
  readonly problemField?: string | undefined;
}

export function renderPosEntry(signedIn: SignedIn, ctx: PageContext, entry: PosEntry): string {
  const p = POS_TEXT[ctx.lang];
  const e = p.entry;
  const { currency } = entry;
  const invalid = (name: string) =>
    entry.problemField === name ? html` aria-invalid="true" aria-describedby="pos-problem"` : null;
  const value = (name: string) => entry.fields[name] ?? '';
  const item = (it: CatalogueItem) => {
    const name = `qty_${it.id}`;
    return html`<li class="pos-item">
    <label for="${name}"><span class="pos-item-name">${it.name}</span> <span class="pos-item-price">${priceText(ctx, it.unitPrice)}</span></label>
    <span class="pos-stepper">
      <button type="button" class="pos-step" data-step="-1" data-for="${name}" aria-label="${fill(e.less, { item: it.name })}" hidden>−</button>
      <input id="${name}" name="${name}" type="text" inputmode="numeric" pattern="[0-9]*" maxlength="3" autocomplete="off" value="${value(name)}" placeholder="0" data-unit="${it.unitPrice.minorUnits.toString()}" aria-label="${fill(e.quantity, { item: it.name })}"${invalid('quantity')}>
      <button type="button" class="pos-step" data-step="1" data-for="${name}" aria-label="${fill(e.more, { item: it.name })}" hidden>+</button>
    </span>
  </li>`;
  };
  const body = html`<div class="pos">
  <h1>${p.title}</h1>
  <form class="pos-currency" method="get" action="/dashboard/pos">
    <label for="pos-currency">${e.currency}</label>
    <select id="pos-currency" name="currency">${entry.currencies.map(
      (code) =>
        html`<option value="${code}"${code === currency.code ? html` selected` : null}>${code}</option>`,
    )}</select>
    <button type="submit" class="secondary">${e.switchCurrency}</button>
  </form>
  <form class="pos-entry" method="post" action="/dashboard/pos/sales" data-pos-entry data-scale="${String(currency.minorUnits)}" data-lang="${ctx.lang}">
    ${csrfField(signedIn)}
    <input type="hidden" name="sale_key" value="${entry.saleKey}">
    <input type="hidden" name="currency" value="${currency.code}">
    ${entry.problem ? html`<p class="error" role="alert" id="pos-problem">${entry.problem}</p>` : problemBox(undefined)}
    <label for="pos-amount" class="pos-amount-label">${e.amount} <span class="muted">${format(e.amountHint, { currency: currency.code })}</span></label>
    <input id="pos-amount" class="pos-amount" name="amount" type="text" inputmode="decimal" autocomplete="off" value="${value('amount')}" placeholder="${formatPriceAmount(formatMoney({ currency, minorUnits: 0n }), ctx.lang)}"${invalid('amount')}>
    <h2>${e.items}</h2>
    ${
      entry.items.length === 0
        ? html`<p class="muted">${e.noItems}</p>`
        : html`<ul class="pos-items">${entry.items.map(item)}</ul>`
    }
    ${
      entry.canEmail
        ? html`<label for="pos-email">${e.email} <span class="muted">${e.optional}</span></label>
    <input id="pos-email" name="customer_email" type="email" autocomplete="off" value="${value('customer_email')}"${invalid('customer_email')}>`
        : null
    }
    ${entry.testAvailable ? html`<label class="choice"><input type="checkbox" name="mode" value="test"${value('mode') === 'test' ? html` checked` : null}> ${e.testMode}</label>` : null}
    <p class="pos-total" hidden>${e.total} <output data-total aria-live="polite">${currency.code}</output></p>
    <button type="submit" class="pos-charge">${e.charge}</button>
  </form>
  ${signedIn.user.role === 'merchant' ? html`<p><a href="/dashboard/pos/catalogue">${e.manage}</a></p>` : null}
</div>`;
  return signedInPage(signedIn, ctx, p.title, body);
}

/** A sale on the screen: waiting for the customer's transfer, or its end. */
export interface PosSaleView {
  readonly payment: Payment;
  readonly state: PaymentState;
  /** The EIP-681 request of the payment's home chain, as a QR code's `data:` URI. */
  readonly qrDataUri: string;
  /** The payment's chain, as the customer's wallet names it ("Polygon"). */
  readonly network: string;
  /** Where its receipt is e-mailed once paid (the ordinary receipt path); null: nowhere. */
  readonly receiptTo: string | null;
  /**
   * A paid sale's receipt page: its QR code once it has one, else whether the counter may make one (a button);
   * absent: no receipt is offered.
   */
  readonly receipt?: { readonly qrDataUri: string } | 'offered' | undefined;
}

export function renderPosSale(signedIn: SignedIn, ctx: PageContext, view: PosSaleView): string {
  const p = POS_TEXT[ctx.lang];
  const { payment, state } = view;
  const status = state.status;
  const open = status === 'pending' || status === 'processing';
  const price = html`<p class="pos-price">${priceText(ctx, payment.quote.amount)}${
    payment.quote.amount.currency.code === 'USDC'
      ? null
      : html` <span class="muted">${usdcWithUnit(ctx, payment.quote.usdcBaseUnits)}</span>`
  }${payment.mode === 'test' ? html` <span class="badge">${p.sale.test}</span>` : null}</p>
${lines(ctx, payment)}`;
  const body = open ? waiting(ctx, view, price) : ended(ctx, signedIn, view, price);
  return signedInPage(signedIn, ctx, open ? p.sale.scan : p.sale[status], body);
}

/** What the sale sells, line by line, as the customer's checkout and receipt list it; nothing for an amount alone. */
function lines(ctx: PageContext, payment: Payment): SafeHtml | null {
  if (!payment.lineItems) return null;
  return html`<ul class="pos-lines">${payment.lineItems.map(
    (line) =>
      html`<li><span>${line.quantity} × ${line.name}</span> <span>${priceText(ctx, lineTotal(line))}</span></li>`,
  )}</ul>`;
}

function waiting(ctx: PageContext, view: PosSaleView, price: SafeHtml): SafeHtml {
  const s = POS_TEXT[ctx.lang].sale;
  const { payment, state } = view;
  const usdc = formatUsdc(payment.quote.usdcBaseUnits);
  const deposit = payment.deposit;
  return html`<div class="pos pos-sale" data-sale-status="/dashboard/pos/sales/${payment.id}/status.json" data-status="${state.status}">
  <h1>${s.scan}</h1>
  ${price}
  <p class="pos-qr"><img src="${view.qrDataUri}" alt="${fill(s.qrAlt, { amount: usdc })}" width="320" height="320"></p>
  ${
    deposit
      ? html`<div class="pos-address">
    <p>${s.orSend} <code class="pos-exact">${usdc}</code> USDC ${format(s.toAddress, { network: view.network })}</p>
    <p><code class="pos-deposit">${deposit.depositAddress}</code></p>
  </div>`
      : null
  }
  <p class="pos-status" role="status" aria-live="polite" data-waiting="${s.waiting}" data-processing="${s.processing}">${state.status === 'processing' ? s.processing : s.waiting}</p>
  <p class="pos-actions"><a class="button secondary" href="/dashboard/pos/sales/${payment.id}">${s.refresh}</a> <a class="button secondary" href="/dashboard/pos">${s.newSale}</a></p>
</div>`;
}

function ended(ctx: PageContext, signedIn: SignedIn, view: PosSaleView, price: SafeHtml): SafeHtml {
  const s = POS_TEXT[ctx.lang].sale;
  const { payment, state } = view;
  const paid = state.status === 'paid';
  return html`<div class="pos pos-end pos-end-${state.status}" data-ended>
  <h1 class="pos-outcome">${paid ? html`<span aria-hidden="true">✓</span> ` : null}${s[state.status as 'paid' | 'expired' | 'failed']}</h1>
  ${price}
  <dl class="facts">
    ${paid && state.paidAt ? html`<dt>${s.paidAt}</dt><dd>${time(state.paidAt)}</dd>` : null}
    <dt>${s.reference}</dt><dd><strong class="pos-reference">${saleReference(payment.id)}</strong> <span class="muted"><code>${payment.id}</code></span></dd>
  </dl>
  ${paid && view.receiptTo ? html`<p class="notice">${format(s.receiptSent, { email: view.receiptTo })}</p>` : null}
  ${receiptPart(ctx, signedIn, view)}
  <p class="pos-actions"><a class="button pos-new" href="/dashboard/pos">${s.newSale}</a></p>
</div>`;
}

/** The receipt page as a QR code for the customer's phone, or the button that makes it. */
function receiptPart(ctx: PageContext, signedIn: SignedIn, view: PosSaleView): SafeHtml | null {
  const s = POS_TEXT[ctx.lang].sale;
  if (view.receipt === undefined) return null;
  if (view.receipt === 'offered')
    return html`<form method="post" action="/dashboard/pos/sales/${view.payment.id}/receipt">${csrfField(signedIn)}<button type="submit" class="secondary">${s.showReceipt}</button></form>`;
  return html`<figure class="pos-receipt"><img src="${view.receipt.qrDataUri}" alt="${s.receiptQrAlt}" width="240" height="240"><figcaption>${s.receiptQr}</figcaption></figure>`;
}

/**
 * What the customer and the counter say to each other: the payment id's last eight characters (its random part;
 * a UUIDv7's first ones are its time, alike for every sale of a minute), upper case.
 */
export function saleReference(paymentId: string): string {
  return paymentId.replaceAll('-', '').slice(-8).toUpperCase();
}
