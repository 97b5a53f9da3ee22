import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { ListedPayment } from '../../app/listPayments.ts';
import type { ApiKeyRecord, TransferRecord } from '../../app/ports.ts';
import type { WebhookEventWithAttempts } from '../../app/webhooks/listWebhookEvents.ts';
import type { TestWebhookResult } from '../../app/webhooks/sendTestWebhook.ts';
import { bpsToPercent } from '../../domain/commission.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import { PAYMENT_STATUSES, type PaymentState, type PaymentStatus } from '../../domain/paymentStatus.ts';
import { html, type SafeHtml } from '../checkout/html.ts';
import type { refundResponse } from '../http/refundPresenter.ts';
import { type DashboardAssets, layout, time } from './renderDashboard.ts';

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

export type RefundView = ReturnType<typeof refundResponse> & { readonly fundingQr?: string | undefined };

const page = (signedIn: SignedIn, assets: DashboardAssets, title: string, body: SafeHtml) =>
  layout({ title, assets, body, user: signedIn.user, csrf: signedIn.session.csrfToken });

const csrfField = (signedIn: SignedIn) =>
  html`<input type="hidden" name="csrf" value="${signedIn.session.csrfToken}">`;

const problemBox = (problem: string | undefined) =>
  problem ? html`<p class="error" role="alert">${problem}</p>` : null;

const usdc = (baseUnits: bigint) => `${formatUsdc(baseUnits)} USDC`;

/** A transaction hash, linked to the chain's explorer when it has one. */
export function txLink(txHash: string, explorerUrl: string | undefined): SafeHtml {
  return explorerUrl
    ? html`<a href="${explorerUrl.replace(/\/+$/, '')}/tx/${txHash}" rel="noopener noreferrer"><code>${txHash}</code></a>`
    : html`<code>${txHash}</code>`;
}

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

export function renderPayments(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
  merchant: Merchant | undefined;
  filters: PaymentFilters;
  page: { readonly payments: readonly ListedPayment[]; readonly nextCursor: string | null };
  problem?: string | undefined;
}): string {
  const { filters } = input;
  const isMerchant = input.signedIn.user.role === 'merchant';
  const rows = input.page.payments.map(
    ({ payment, state }) => html`<tr>
  <td>${time(payment.createdAt)}</td>
  <td><a href="/dashboard/payments/${payment.id}"><code>${payment.id}</code></a></td>
  <td><span class="status status-${state.status}">${state.status}</span></td>
  <td class="amount">${formatMoney(payment.quote.amount)} ${payment.quote.amount.currency.code}</td>
  <td class="amount">${formatUsdc(payment.quote.usdcBaseUnits)}</td>
  <td class="amount">${formatUsdc(state.amountReceivedBaseUnits)}</td>
  <td>${payment.orderId ?? ''}</td>
</tr>`,
  );
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? html` selected` : null}>${label}</option>`;
  const body = html`<h1>Payments${input.merchant ? html` · ${input.merchant.name}` : null}${filters.mode === 'test' ? html` <span class="badge">Test mode</span>` : null}</h1>
${problemBox(input.problem)}
<form class="filters" method="get" action="/dashboard/payments" role="search" aria-label="Find payments">
  ${filters.merchant ? html`<input type="hidden" name="merchant" value="${filters.merchant}">` : null}
  <div><label for="q">Payment id, deposit address or transaction</label>
  <input id="q" name="q" type="search" value="${filters.q ?? ''}" spellcheck="false" autocomplete="off"></div>
  <div><label for="status">Status</label>
  <select id="status" name="status">${option('', 'Any', !filters.status)}${PAYMENT_STATUSES.map((s) => option(s, s, filters.status === s))}</select></div>
  <div><label for="from">Created from</label> <input id="from" name="from" type="date" value="${filters.from ?? ''}"></div>
  <div><label for="to">Created before</label> <input id="to" name="to" type="date" value="${filters.to ?? ''}"></div>
  <div><label for="order_id">Order id</label> <input id="order_id" name="order_id" value="${filters.orderId ?? ''}"></div>
  <div><label for="mode">Mode</label>
  <select id="mode" name="mode">${option('live', 'Live', filters.mode === 'live')}${option('test', 'Test', filters.mode === 'test')}</select></div>
  <div class="actions"><button type="submit">Show</button> <a href="/dashboard/payments${filters.merchant ? `?merchant=${filters.merchant}` : ''}">Clear</a></div>
</form>
${
  isMerchant
    ? html`<form class="export" method="get" action="/dashboard/export.csv">
  <input type="hidden" name="mode" value="${filters.mode}">
  <label for="export-from">Export from</label> <input id="export-from" name="from" type="date" value="${filters.from ?? ''}">
  <label for="export-to">to (not included)</label> <input id="export-to" name="to" type="date" value="${filters.to ?? ''}">
  <button type="submit">Export payments</button>
  <button type="submit" formaction="/dashboard/refunds.csv">Export refunds</button>
</form>`
    : null
}
${
  input.page.payments.length === 0
    ? html`<p class="muted" role="status">${filters.q ? `No payment matches ${filters.q}.` : 'No payments match.'}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Payments"><table>
  <caption class="muted">Newest first</caption>
  <thead><tr><th scope="col">Created</th><th scope="col">Payment</th><th scope="col">Status</th><th scope="col">Price</th><th scope="col">USDC due</th><th scope="col">USDC received</th><th scope="col">Order</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}
${input.page.nextCursor ? html`<p><a href="/dashboard/payments?${filterQuery(filters, input.page.nextCursor)}">Older payments</a></p>` : null}`;
  return page(input.signedIn, input.assets, 'Payments', body);
}

/** One step of a payment's life, in the order it happened. */
interface TimelineEntry {
  readonly at: Date | null;
  readonly what: SafeHtml;
}

function timeline(
  payment: Payment,
  state: PaymentState<TransferRecord>,
  transfers: readonly TransferRecord[],
  explorerUrl: string | undefined,
): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    {
      at: payment.createdAt,
      what: html`Created: ${usdc(payment.quote.usdcBaseUnits)} due${payment.quote.amount.currency.code === 'USDC' ? null : html` (${formatMoney(payment.quote.amount)} ${payment.quote.amount.currency.code})`}`,
    },
  ];
  for (const t of transfers)
    entries.push({
      at: t.blockTimestamp ?? null,
      what: html`Transfer of ${usdc(t.amountBaseUnits)} seen, ${t.orphaned ? 'orphaned by a reorg' : t.final ? 'final' : 'confirming'}: ${txLink(t.txHash, explorerUrl)}`,
    });
  if (state.paidAt)
    entries.push({ at: state.paidAt, what: html`Paid${state.late ? ' (after the link expired)' : ''}` });
  const { payout } = payment;
  if (payout.txHash)
    entries.push({
      at: payout.sentAt,
      what: html`Payout sent: the merchant received ${usdc(payout.merchantPaidBaseUnits)}, the commission was ${usdc(payout.treasuryPaidBaseUnits)}: ${txLink(payout.txHash, explorerUrl)}`,
    });
  if (payout.blockedSince)
    entries.push({
      at: payout.blockedSince,
      what: html`Payout delayed: ${payout.blockedReason ?? 'the transfer failed'} (tried ${payout.failures} times)`,
    });
  if (state.status === 'expired' || state.status === 'failed')
    entries.push({
      at: payment.expiresAt,
      what: html`${state.status === 'expired' ? 'Expired' : 'Failed: underpaid at expiry'}`,
    });
  return entries.sort(
    (a, b) => (a.at?.getTime() ?? Number.MAX_SAFE_INTEGER) - (b.at?.getTime() ?? Number.MAX_SAFE_INTEGER),
  );
}

function refundItem(signedIn: SignedIn, refund: RefundView, explorerUrl: string | undefined): SafeHtml {
  const open = refund.status === 'awaiting_address' || refund.status === 'awaiting_funds';
  return html`<li class="card">
  <p><strong>${refund.amount} USDC</strong> · <span class="status">${refund.status.replaceAll('_', ' ')}</span> · ${time(new Date(refund.created_at))}${refund.reason ? html` · ${refund.reason}` : null}</p>
  ${
    'claim_url' in refund && refund.claim_url
      ? html`<p><label for="claim-${refund.refund_id}">Link for the customer to give an address</label>
  <span class="copy-row"><input id="claim-${refund.refund_id}" type="text" readonly value="${refund.claim_url}"> <button type="button" class="link" data-copy="claim-${refund.refund_id}" hidden>Copy</button></span></p>`
      : null
  }
  ${refund.address ? html`<p>To <code>${refund.address}</code></p>` : null}
  ${
    'deposit_address' in refund && refund.deposit_address && refund.status === 'awaiting_funds'
      ? html`<div class="funding"><p>Fund it: send ${refund.amount} USDC to <code>${refund.deposit_address}</code> (chain ${refund.chain_id}), from any wallet, or <a href="${refund.funding_uri}">open it in a wallet app</a>.</p>
  ${refund.fundingQr ? html`<img src="${refund.fundingQr}" alt="QR code to send ${refund.amount} USDC to the refund's deposit address" width="160" height="160">` : null}</div>`
      : null
  }
  ${refund.txid ? html`<p>Sent: ${txLink(refund.txid, explorerUrl)}</p>` : null}
  ${refund.payout_delayed_reason ? html`<p class="error">Delayed: ${refund.payout_delayed_reason}</p>` : null}
  ${
    open && signedIn.user.role === 'merchant'
      ? html`<form method="post" action="/dashboard/refunds/${refund.refund_id}/cancel">${csrfField(signedIn)}<input type="hidden" name="mode" value="${refund.livemode ? 'live' : 'test'}"><button type="submit" class="link">Cancel this refund</button></form>`
      : null
  }
</li>`;
}

export function renderPayment(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
  payment: Payment;
  state: PaymentState<TransferRecord>;
  transfers: readonly TransferRecord[];
  webhooks: readonly WebhookEventWithAttempts[];
  refunds: readonly RefundView[];
  refundsEnabled: boolean;
  refundForm?: { problem: string; amount: string } | undefined;
  explorerUrl: string | undefined;
}): string {
  const { payment, state, signedIn } = input;
  const isMerchant = signedIn.user.role === 'merchant';
  const received = state.amountReceivedBaseUnits;
  const overpaid = received > payment.quote.usdcBaseUnits ? received - payment.quote.usdcBaseUnits : 0n;
  const webhooks = input.webhooks.map(
    ({ event, attempts }) => html`<li>
  <p><strong>${event.type}</strong> · ${event.deliveryStatus} · ${time(event.createdAt)}</p>
  ${
    attempts.length === 0
      ? html`<p class="muted">No attempt yet.</p>`
      : html`<ol class="attempts">${attempts.map(
          (a) =>
            html`<li>${a.statusCode === null ? (a.error ?? 'no answer') : `HTTP ${a.statusCode}`}${a.durationMs === null ? '' : ` in ${a.durationMs} ms`} · ${a.outcome ?? 'in flight'}${a.responseBody ? html` · <code>${a.responseBody.slice(0, 200)}</code>` : null}</li>`,
        )}</ol>`
  }
  ${
    isMerchant
      ? html`<form method="post" action="/dashboard/webhooks/${event.id}/resend">
    ${csrfField(signedIn)}
    <button type="submit" class="link">Send again</button>
  </form>`
      : null
  }
</li>`,
  );
  const transfers = input.transfers.map(
    (t) =>
      html`<tr><td>${txLink(t.txHash, input.explorerUrl)}</td><td class="amount">${formatUsdc(t.amountBaseUnits)}</td><td>${t.orphaned ? 'orphaned (reorg)' : t.final ? 'final' : 'confirming'}</td></tr>`,
  );
  const refundForm =
    isMerchant && input.refundsEnabled && received > 0n
      ? html`<form class="stack card" method="post" action="/dashboard/payments/${payment.id}/refunds">
  <h3>Refund this payment</h3>
  ${problemBox(input.refundForm?.problem)}
  ${csrfField(signedIn)}
  <label for="refund-amount">Amount (USDC)</label>
  <input id="refund-amount" name="amount" inputmode="decimal" required value="${input.refundForm?.amount ?? formatUsdc(received)}" aria-describedby="refund-hint">
  <p id="refund-hint" class="muted">Received ${usdc(received)}${overpaid > 0n ? `, of which ${usdc(overpaid)} beyond the price` : ''}. A smaller amount is a partial refund.</p>
  <label for="refund-reason">Reason <span class="muted">(optional, shown to the customer)</span></label>
  <input id="refund-reason" name="reason" maxlength="500">
  <label for="refund-address">Customer's address <span class="muted">(optional: without one, you get a link to send them)</span></label>
  <input id="refund-address" name="address" spellcheck="false" autocomplete="off">
  <button type="submit">Start refund</button>
</form>`
      : null;
  const body = html`<h1>Payment <code>${payment.id}</code>${payment.mode === 'test' ? html` <span class="badge">Test mode</span>` : null}</h1>
<div class="card">
<dl class="facts">
  <dt>Status</dt><dd><span class="status status-${state.status}">${state.status}</span></dd>
  <dt>Created</dt><dd>${time(payment.createdAt)}</dd>
  <dt>Price</dt><dd>${formatMoney(payment.quote.amount)} ${payment.quote.amount.currency.code}</dd>
  <dt>USDC due</dt><dd>${formatUsdc(payment.quote.usdcBaseUnits)}</dd>
  <dt>USDC received</dt><dd>${formatUsdc(received)}</dd>
  <dt>Deposit address</dt><dd><code>${payment.deposit?.depositAddress ?? ''}</code></dd>
  <dt>Order</dt><dd>${payment.orderId ?? ''}</dd>
  <dt>Paid</dt><dd>${state.paidAt ? time(state.paidAt) : '—'}</dd>
  <dt>Payout</dt><dd>${payment.payout.txHash ? html`${usdc(payment.payout.merchantPaidBaseUnits)} to the merchant, ${usdc(payment.payout.treasuryPaidBaseUnits)} commission` : '—'}</dd>
</dl>
</div>
<h2>Timeline</h2>
<ol class="timeline">${timeline(payment, state, input.transfers, input.explorerUrl).map(
    (entry) => html`<li>${entry.at ? time(entry.at) : html`<span class="muted">—</span>`} ${entry.what}</li>`,
  )}</ol>
<h2>Transfers</h2>
${
  input.transfers.length === 0
    ? html`<p class="muted">None seen yet.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Transfers"><table><thead><tr><th scope="col">Transaction</th><th scope="col">USDC</th><th scope="col">Finality</th></tr></thead><tbody>${transfers}</tbody></table></div>`
}
${
  input.refundsEnabled
    ? html`<h2 id="refunds">Refunds</h2>
${input.refunds.length === 0 ? html`<p class="muted">None.</p>` : html`<ul class="refunds">${input.refunds.map((r) => refundItem(signedIn, r, input.explorerUrl))}</ul>`}
${refundForm}`
    : null
}
<h2>Webhooks</h2>
${input.webhooks.length === 0 ? html`<p class="muted">None sent yet.</p>` : html`<ul class="webhooks">${webhooks}</ul>`}`;
  return page(signedIn, input.assets, `Payment ${payment.id}`, body);
}

/** Keys (prefixes only), the webhook settings, a test webhook and the last deliveries. */
export function renderDevelopers(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
  merchant: Merchant;
  keys: readonly ApiKeyRecord[];
  deliveries: readonly WebhookEventWithAttempts[];
  canTest: boolean;
  test?: TestWebhookResult | undefined;
}): string {
  const { signedIn, merchant } = input;
  const keyRows = input.keys.map(
    (k) =>
      html`<tr><td><code>${k.keyPrefix}…</code></td><td>${k.mode}</td><td>${time(k.createdAt)}</td><td>${k.expiresAt ? html`until ${time(k.expiresAt)}` : 'current'}</td></tr>`,
  );
  const rollForm = (mode: KeyMode) =>
    html`<form method="post" action="/dashboard/developers/roll-key">${csrfField(signedIn)}<input type="hidden" name="mode" value="${mode}"><button type="submit">Roll ${mode} key</button></form>`;
  const test = input.test;
  const testResult = test
    ? html`<div class="card" role="status"><h3>Test webhook sent</h3>
  <p>${test.response.kind === 'response' ? `Your server answered HTTP ${test.response.statusCode} in ${test.response.durationMs} ms` : `No answer: ${test.response.error}`}${test.response.kind === 'response' && test.response.statusCode >= 200 && test.response.statusCode < 300 ? ': received.' : '.'}</p>
  ${test.response.kind === 'response' && test.response.body ? html`<p>Response: <code>${test.response.body.slice(0, 200)}</code></p>` : null}
  <p class="muted">Sent <code>${test.body}</code> to ${test.url}</p></div>`
    : null;
  const deliveries = input.deliveries.map(({ event, attempts }) => {
    const last = attempts.at(-1);
    return html`<tr>
  <td>${time(event.createdAt)}</td>
  <td>${event.type}</td>
  <td><a href="/dashboard/payments/${event.paymentId}"><code>${event.paymentId}</code></a></td>
  <td>${event.deliveryStatus}</td>
  <td>${last ? (last.statusCode === null ? (last.error ?? 'no answer') : `HTTP ${last.statusCode}`) : '—'}</td>
  <td><form method="post" action="/dashboard/webhooks/${event.id}/resend">${csrfField(signedIn)}<input type="hidden" name="back" value="developers"><button type="submit" class="link">Send again</button></form></td>
</tr>`;
  });
  const body = html`<h1>Developers</h1>
<h2>API keys</h2>
<p class="muted">Only the start of each key is kept. Rolling a key shows the new one once; the old one keeps working for 24 hours.</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="API keys"><table><thead><tr><th scope="col">Key</th><th scope="col">Mode</th><th scope="col">Created</th><th scope="col">Valid</th></tr></thead><tbody>${keyRows}</tbody></table></div>
<div class="actions">${rollForm('live')} ${rollForm('test')}</div>
<h2>Webhooks</h2>
<div class="card"><dl class="facts">
  <dt>Endpoint</dt><dd>${merchant.webhookUrl ? html`<code>${merchant.webhookUrl}</code>` : 'none set'}</dd>
  <dt>Payout wallet</dt><dd><code>${merchant.walletAddress ?? 'none set'}</code></dd>
  <dt>Commission</dt><dd>${bpsToPercent(merchant.commissionBps)} %</dd>
  <dt>Underpayment tolerance</dt><dd>${bpsToPercent(merchant.underpaymentToleranceBps)} %</dd>
</dl>
<p class="muted">Your administrator sets these.</p></div>
<div class="actions">
<form method="post" action="/dashboard/developers/rotate-webhook-secret">${csrfField(signedIn)}<button type="submit">Rotate signing secret</button></form>
${input.canTest ? html`<form method="post" action="/dashboard/developers/test-webhook">${csrfField(signedIn)}<button type="submit">Send test webhook</button></form>` : null}
</div>
${testResult}
<h2>Last deliveries</h2>
${
  input.deliveries.length === 0
    ? html`<p class="muted">No webhook yet.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Last deliveries"><table><thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Payment</th><th scope="col">Delivery</th><th scope="col">Last answer</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>${deliveries}</tbody></table></div>`
}`;
  return page(signedIn, input.assets, 'Developers', body);
}

/** New secrets (API key, signing secret), shown this once: only a key's hash is kept, and neither is shown again. */
export function renderShownOnce(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
  title: string;
  secrets: readonly { readonly label: string; readonly value: string }[];
  note: string;
  until?: Date | undefined;
  back?: string | undefined;
}): string {
  const body = html`<div class="card narrow">
  <h1>${input.title}</h1>
  <p class="notice" role="status">Copy ${input.secrets.length > 1 ? 'them' : 'it'} now: ${input.secrets.length > 1 ? 'they are' : 'it is'} not shown again.</p>
  ${input.secrets.map(
    (secret, i) => html`<label for="secret-${i}">${secret.label}</label>
  <span class="copy-row"><input id="secret-${i}" type="text" readonly value="${secret.value}" spellcheck="false"> <button type="button" class="link" data-copy="secret-${i}" hidden>Copy</button></span>`,
  )}
  <p>${input.note}${input.until ? html` ${time(input.until)}` : null}</p>
  <p><a href="${input.back ?? '/dashboard/developers'}">Done</a></p>
</div>`;
  return page(input.signedIn, input.assets, input.title, body);
}
