import type { ApiKeyRecord } from '../../app/merchants/ports.ts';
import type { ListedPayment } from '../../app/payments/listPayments.ts';
import { attemptAnswer, type WebhookEventWithAttempts } from '../../app/webhooks/listWebhookEvents.ts';
import type { TestWebhookResult } from '../../app/webhooks/sendTestWebhook.ts';
import { bpsToPercent } from '../../domain/commission.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../domain/paymentStatus.ts';
import { receivedBaseUnitsShown } from '../../domain/webhookEvent.ts';
import { format, html } from '../web/html.ts';
import { priceText, referenceLink, statusBadge, usdcText } from './dashboardFormat.ts';
import type { SignedInPageInput } from './renderDashboard.ts';
import { csrfField, keysTable, problemBox, signedInPage, time } from './renderDashboard.ts';
import { endpointDeliveryRows } from './renderEndpointDeliveries.ts';
import { restrictedKeysSection } from './renderKeys.ts';

/** The payments list's filters, as the person typed them (kept in the form and in the next page's link). */
export interface PaymentFilters {
  readonly status?: PaymentStatus | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly orderId?: string | undefined;
  readonly q?: string | undefined;
  readonly mode: KeyMode;
  /** Set for an operator reading one merchant's payments. */
  readonly merchant?: string | undefined;
}

const page = signedInPage;

function filterQuery(filters: PaymentFilters, cursor: string): string {
  const query = new URLSearchParams();
  for (const [key, value] of [
    ['merchant', filters.merchant],
    ['mode', filters.mode === 'test' ? 'test' : undefined],
    ['status', filters.status],
    ['from', filters.from],
    ['to', filters.to],
    ['order_id', filters.orderId],
    ['cursor', cursor],
  ] as const)
    if (value) query.set(key, value);
  return query.toString();
}

export function renderPayments(
  input: SignedInPageInput & {
    merchant: Merchant | undefined;
    filters: PaymentFilters;
    page: { readonly payments: readonly ListedPayment[]; readonly nextCursor: string | null };
    /** What refunds sent back to the customer, by payment id (none: not refunded). */
    refunded?: ReadonlyMap<string, bigint> | undefined;
    /** Set for an operator reading every merchant's payments: each row names its merchant. */
    merchantNames?: ReadonlyMap<string, string> | undefined;
    /** The list is what waits of one kind (the home page's links), not a page of the listing. */
    waiting?: string | undefined;
    problem?: string | undefined;
  },
): string {
  const { filters, ctx } = input;
  const l = ctx.t.list;
  const isMerchant = input.signedIn.user.role === 'merchant';
  const names = input.merchantNames;
  const rows = input.page.payments.map(
    ({ payment, state }) => html`<tr>
  <td>${time(payment.createdAt)}</td>
  <td>${referenceLink(payment)}</td>
  ${names ? html`<td><a href="/dashboard/merchants/${payment.merchantId}">${names.get(payment.merchantId) ?? payment.merchantId}</a></td>` : null}
  <td>${statusBadge(ctx, state, input.refunded?.get(payment.id) ?? 0n)}</td>
  <td class="amount">${priceText(ctx, payment.quote.amount)}</td>
  <td class="amount">${usdcText(ctx, payment.quote.usdcBaseUnits)}</td>
  <td class="amount">${usdcText(ctx, receivedBaseUnitsShown(state))}</td>
  <td>${payment.orderId ?? ''}</td>
</tr>`,
  );
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? html` selected` : null}>${label}</option>`;
  const body = html`<h1>${l.title}${input.merchant ? html` · ${input.merchant.name}` : null}${filters.mode === 'test' ? html` <span class="badge">${l.testMode}</span>` : null}</h1>
${input.waiting ? html`<p class="notice" role="status">${input.waiting} · <a href="/dashboard/payments${filters.mode === 'test' ? '?mode=test' : ''}">${l.clear}</a></p>` : null}
${problemBox(input.problem)}
<form class="filters" method="get" action="/dashboard/payments" role="search" aria-label="${l.find}">
  ${filters.merchant ? html`<input type="hidden" name="merchant" value="${filters.merchant}">` : null}
  <div><label for="q">${l.search}</label>
  <input id="q" name="q" type="search" value="${filters.q ?? ''}" spellcheck="false" autocomplete="off"></div>
  <div><label for="status">${l.status}</label>
  <select id="status" name="status">${option('', l.any, !filters.status)}${PAYMENT_STATUSES.map((s) => option(s, ctx.t.status[s], filters.status === s))}</select></div>
  <div><label for="from">${l.from}</label> <input id="from" name="from" type="date" value="${filters.from ?? ''}"></div>
  <div><label for="to">${l.before}</label> <input id="to" name="to" type="date" value="${filters.to ?? ''}"></div>
  <div><label for="order_id">${l.orderId}</label> <input id="order_id" name="order_id" value="${filters.orderId ?? ''}"></div>
  <div><label for="mode">${l.mode}</label>
  <select id="mode" name="mode">${option('live', l.live, filters.mode === 'live')}${option('test', l.test, filters.mode === 'test')}</select></div>
  <div class="actions"><button type="submit">${l.show}</button> <a href="/dashboard/payments${filters.merchant ? `?merchant=${filters.merchant}` : ''}">${l.clear}</a></div>
</form>
${
  isMerchant
    ? html`<form class="export" method="get" action="/dashboard/export.csv">
  <input type="hidden" name="mode" value="${filters.mode}">
  <label for="export-from">${l.exportFrom}</label> <input id="export-from" name="from" type="date" value="${filters.from ?? ''}">
  <label for="export-to">${l.exportTo}</label> <input id="export-to" name="to" type="date" value="${filters.to ?? ''}">
  <button type="submit">${l.exportPayments}</button>
  <button type="submit" formaction="/dashboard/refunds.csv">${l.exportRefunds}</button>
</form>`
    : null
}
${
  input.page.payments.length === 0
    ? html`<p class="muted" role="status">${filters.q ? format(l.noMatchFor, { term: filters.q }) : l.noMatch}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${l.title}"><table>
  <caption class="muted">${l.newestFirst}</caption>
  <thead><tr><th scope="col">${l.created}</th><th scope="col">${l.payment}</th>${names ? html`<th scope="col">${l.merchant}</th>` : null}<th scope="col">${l.status}</th><th scope="col">${l.price}</th><th scope="col">${l.usdcDue}</th><th scope="col">${l.usdcReceived}</th><th scope="col">${l.order}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}
${input.page.nextCursor ? html`<p><a href="/dashboard/payments?${filterQuery(filters, input.page.nextCursor)}">${l.older}</a></p>` : null}`;
  return page(input.signedIn, ctx, l.title, body);
}

/** Keys (prefixes only), the webhook settings, a test webhook and the last deliveries. */
/**
 * The timeline an event is on: its payment, or its subscription's own (decision 0063). The developers page lists
 * live events, so the subscription's page is the live one.
 */
function timelineLink(event: WebhookEventWithAttempts['event']) {
  return event.paymentId !== null
    ? html`<a href="/dashboard/payments/${event.paymentId}"><code>${event.paymentId}</code></a>`
    : html`<a href="/dashboard/subscriptions/${event.subscriptionId ?? ''}"><code>${event.subscriptionId ?? ''}</code></a>`;
}

export function renderDevelopers(
  input: SignedInPageInput & {
    merchant: Merchant;
    keys: readonly ApiKeyRecord[];
    deliveries: readonly WebhookEventWithAttempts[];
    canTest: boolean;
    test?: TestWebhookResult | undefined;
  },
): string {
  const { signedIn, merchant, ctx } = input;
  const d = ctx.t.developers;
  const rollForm = (mode: KeyMode) =>
    html`<form method="post" action="/dashboard/developers/roll-key">${csrfField(signedIn)}<input type="hidden" name="mode" value="${mode}"><button type="submit">${format(d.roll, { mode })}</button></form>`;
  const test = input.test;
  const answer = test?.response;
  const testResult =
    test && answer
      ? html`<div class="card" role="status"><h3>${d.testSent}</h3>
  <p>${answer.kind === 'response' ? format(d.answered, { status: answer.statusCode, ms: answer.durationMs }) : format(d.noAnswer, { error: answer.error })}${answer.kind === 'response' && answer.statusCode >= 200 && answer.statusCode < 300 ? html`: ${d.received}` : '.'}</p>
  ${answer.kind === 'response' && answer.body ? html`<p>${d.response} <code>${answer.body.slice(0, 200)}</code></p>` : null}
  <p class="muted">${format(d.sentBody, { body: html`<code>${test.body}</code>`, url: test.url })}</p></div>`
      : null;
  const deliveries = input.deliveries.map((entry) => {
    const { event, attempts } = entry;
    const last = attempts.at(-1);
    const endpoints = endpointDeliveryRows(ctx, entry, [
      'empty',
      'url',
      'empty',
      'status',
      'answer',
      'empty',
    ]);
    return html`<tr>
  <td>${time(event.createdAt)}</td>
  <td>${event.type}</td>
  <td>${timelineLink(event)}</td>
  <td>${ctx.t.deliveryStatus[event.deliveryStatus]}</td>
  <td>${last ? (attemptAnswer(last) ?? ctx.t.payment.noAnswer) : '—'}</td>
  <td><form method="post" action="/dashboard/webhooks/${event.id}/resend">${csrfField(signedIn)}<input type="hidden" name="back" value="developers"><button type="submit" class="link">${ctx.t.payment.sendAgain}</button></form></td>
</tr>${endpoints}`;
  });
  const body = html`<h1>${d.title}</h1>
<h2>${d.apiKeys}</h2>
<p class="muted">${d.keysHint}</p>
${keysTable(
  ctx,
  input.keys.filter((key) => key.kind === 'secret'),
)}
<div class="actions">${rollForm('live')} ${rollForm('test')}</div>
${restrictedKeysSection(
  ctx,
  signedIn,
  input.keys.filter((key) => key.kind === 'restricted'),
)}
<h2>${d.webhooks}</h2>
<p><a href="/dashboard/developers/webhooks">${ctx.t.endpoints.manage}</a></p>
<div class="card"><dl class="facts">
  <dt>${d.endpoint}</dt><dd>${merchant.webhookUrl ? html`<code>${merchant.webhookUrl}</code>` : d.noneSet}</dd>
  <dt>${d.wallet}</dt><dd><code>${merchant.walletAddress ?? d.noneSet}</code></dd>
  <dt>${d.commission}</dt><dd>${bpsToPercent(merchant.commissionBps)} %</dd>
  <dt>${d.tolerance}</dt><dd>${bpsToPercent(merchant.underpaymentToleranceBps)} %</dd>
</dl>
<p class="muted">${d.setByAdministrator}</p></div>
<div class="actions">
<form method="post" action="/dashboard/developers/rotate-webhook-secret">${csrfField(signedIn)}<button type="submit">${d.rotateSecret}</button></form>
${input.canTest ? html`<form method="post" action="/dashboard/developers/test-webhook">${csrfField(signedIn)}<button type="submit">${d.sendTest}</button></form>` : null}
</div>
${testResult}
<h2>${d.lastDeliveries}</h2>
${
  input.deliveries.length === 0
    ? html`<p class="muted">${d.noDelivery}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${d.lastDeliveries}"><table><thead><tr><th scope="col">${d.created}</th><th scope="col">${d.event}</th><th scope="col">${ctx.t.list.payment}</th><th scope="col">${d.delivery}</th><th scope="col">${d.lastAnswer}</th><th scope="col"><span class="visually-hidden">${d.action}</span></th></tr></thead><tbody>${deliveries}</tbody></table></div>`
}`;
  return page(signedIn, ctx, d.title, body);
}

/** New secrets (API key, signing secret), shown this once: only a key's hash is kept, and neither is shown again. */
export function renderShownOnce(
  input: SignedInPageInput & {
    title: string;
    secrets: readonly { readonly label: string; readonly value: string }[];
    note: string;
    until?: Date | undefined;
    back?: string | undefined;
  },
): string {
  const o = input.ctx.t.shownOnce;
  const body = html`<div class="card narrow">
  <h1>${input.title}</h1>
  <p class="notice" role="status">${input.secrets.length > 1 ? o.copyThem : o.copyIt}</p>
  ${input.secrets.map(
    (secret, i) => html`<label for="secret-${i}">${secret.label}</label>
  <span class="copy-row"><input id="secret-${i}" type="text" readonly value="${secret.value}" spellcheck="false"> <button type="button" class="link" data-copy="secret-${i}" data-copied="${o.copied}" hidden>${o.copy}</button></span>`,
  )}
  <p>${input.note}${input.until ? html` ${time(input.until)}` : null}</p>
  <p><a href="${input.back ?? '/dashboard/developers'}">${o.done}</a></p>
</div>`;
  return page(input.signedIn, input.ctx, input.title, body);
}
