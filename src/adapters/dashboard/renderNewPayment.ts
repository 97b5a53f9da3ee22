import type { KeyMode } from '../../domain/credentials.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PaymentState } from '../../domain/paymentStatus.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import { formEnd, invalidMark, textField } from './formFields.ts';
import { lineItemRows } from './lineItemFields.ts';
import { csrfField, type SignedInPageInput, signedInPage, time } from './renderDashboard.ts';

/** The "New payment" form as shown: empty, or as the person filled it when it was refused. */
export interface NewPaymentForm {
  readonly mode: KeyMode;
  readonly fields: Readonly<Record<string, string | undefined>>;
  readonly problem?: string | undefined;
  /** Made for each form shown, posted back as its idempotency key. */
  readonly formKey: string;
  /** How long a payment stays payable (PAYLINK_PAYMENT_TTL), in minutes: the expiry when none is given. */
  readonly ttlMinutes: number;
  /** Whether e-mail is set up, so that the link can be sent to the customer from here. */
  readonly canEmail: boolean;
  /** The field the problem is about, marked invalid and described by the problem. */
  readonly problemField?: string | undefined;
}

/** The units the expiry is typed in, and their seconds. */
export const EXPIRY_UNITS = { minutes: 60, hours: 3_600, days: 86_400 } as const;

/** The "New payment" form: what a payment of the API takes, without code. */
export function renderNewPayment(
  input: SignedInPageInput & {
    form: NewPaymentForm;
    testAvailable: boolean;
  },
): string {
  const { ctx, form } = input;
  const n = ctx.t.newPayment;
  const l = ctx.t.list;
  const invalid = (name: string) => invalidMark(form, name);
  const field = (name: string, label: string, attributes: SafeHtml, hint?: string) =>
    textField(form, name, label, attributes, hint);
  const unit = form.fields.expires_unit || 'hours';
  const unitNames = { minutes: n.unitMinutes, hours: n.unitHours, days: n.unitDays };
  const unitOption = (name: keyof typeof EXPIRY_UNITS) =>
    html`<option value="${name}"${unit === name ? html` selected` : null}>${unitNames[name]}</option>`;
  const body = html`<div class="card narrow">
  <h1>${n.title}${form.mode === 'test' ? html` <span class="badge">${l.testMode}</span>` : null}</h1>
  <p class="muted">${n.hint}</p>
  ${form.problem ? html`<p class="error" role="alert" id="form-problem">${form.problem}</p>` : null}
  <form class="stack" method="post" action="/dashboard/payments/new">
    ${csrfField(input.signedIn)}
    <input type="hidden" name="form_key" value="${form.formKey}">
    ${field('amount', n.amount, html`inputmode="decimal" autocomplete="off" required pattern="[0-9]+([.,][0-9]+)?"`)}
    ${field('currency', n.currency, html`autocomplete="off" maxlength="5" spellcheck="false" placeholder="USDC"`, n.currencyHint)}
    ${field('title', n.paymentTitle, html`maxlength="200"`, n.paymentTitleHint)}
    ${field('customer_description', n.shownDescription, html`maxlength="2000"`, ctx.t.links.optional)}
    ${lineItemRows(ctx, form)}
    ${field('description', n.description, html`maxlength="500"`, n.descriptionHint)}
    ${field('order_id', n.orderId, html`maxlength="255" autocomplete="off"`)}
    ${field('customer_email', n.customerEmail, html`type="email" autocomplete="off"`)}
    ${
      form.canEmail
        ? html`<label class="choice"><input type="checkbox" name="send_email" value="on"${form.fields.send_email ? html` checked` : null}${invalid('send_email')}> ${n.sendEmail}</label>`
        : null
    }
    <fieldset>
      <legend>${n.expiry} <span class="muted">${format(n.expiryDefault, { minutes: form.ttlMinutes })}</span></legend>
      ${field('expires_in', n.expiresIn, html`inputmode="numeric" pattern="[0-9]*" autocomplete="off"`)}
      <label for="expires_unit">${n.expiryUnit}</label>
      <select id="expires_unit" name="expires_unit">${unitOption('minutes')}${unitOption('hours')}${unitOption('days')}</select>
    </fieldset>
    ${formEnd(ctx, { ...form, testAvailable: input.testAvailable }, n.create)}
  </form>
</div>`;
  return signedInPage(input.signedIn, ctx, n.title, body);
}

/**
 * A payment's link, to hand to its customer: copied, shared (the device's share sheet where it has one, else an
 * e-mail), or shown as a QR code; with its status, which the script keeps current.
 */
export function renderPaymentLink(
  input: SignedInPageInput & {
    payment: Payment;
    state: PaymentState;
    url: string;
    qrDataUri: string;
    /** Just created with "send by e-mail": says so, naming the address. */
    emailed?: boolean | undefined;
  },
): string {
  const { ctx, payment, state, url } = input;
  const n = ctx.t.newPayment;
  const l = ctx.t.list;
  const amount = `${formatMoney(payment.quote.amount)} ${payment.quote.amount.currency.code}`;
  const description = payment.metadata?.description;
  // The description is the merchant's own note (the form says so): never in what the customer receives.
  const subject = fill(n.emailSubject, { amount });
  const mailto = `mailto:${payment.customerEmail ?? ''}?${new URLSearchParams({ subject, body: url })
    .toString()
    .replaceAll('+', '%20')}`;
  const body = html`<div class="card narrow">
  <h1>${n.created}${payment.mode === 'test' ? html` <span class="badge">${l.testMode}</span>` : null}</h1>
  ${input.emailed ? html`<p class="notice" role="status">${format(n.emailed, { email: payment.customerEmail ?? '' })}</p>` : null}
  <dl class="facts">
    <dt>${l.price}</dt><dd>${amount}${payment.quote.amount.currency.code === 'USDC' ? null : html` <span class="muted">(${formatUsdc(payment.quote.usdcBaseUnits)} USDC)</span>`}</dd>
    ${description ? html`<dt>${n.description}</dt><dd>${description}</dd>` : null}
    ${payment.orderId ? html`<dt>${n.orderId}</dt><dd>${payment.orderId}</dd>` : null}
    <dt>${n.status}</dt><dd><span class="status status-${state.status}" role="status" data-poll="/dashboard/payments/${payment.id}/status.json">${ctx.t.status[state.status]}</span></dd>
    <dt>${n.expires}</dt><dd>${time(payment.expiresAt)}</dd>
  </dl>
  <label for="payment-url">${n.link}</label>
  <span class="copy-row"><input id="payment-url" type="text" readonly value="${url}" spellcheck="false"> <button type="button" class="link" data-copy="payment-url" data-copied="${n.copied}" hidden>${n.copy}</button></span>
  <p class="actions"><button type="button" data-share="${url}" data-share-title="${subject}" hidden>${n.share}</button> <a href="${mailto}">${n.email}</a></p>
  <p class="qr"><img src="${input.qrDataUri}" alt="${n.qrAlt}" width="240" height="240"></p>
  <p><a href="/dashboard/payments/${payment.id}">${n.details}</a> · <a href="/dashboard/payments/new${payment.mode === 'test' ? '?mode=test' : ''}">${n.another}</a></p>
</div>`;
  return signedInPage(input.signedIn, ctx, n.created, body);
}
