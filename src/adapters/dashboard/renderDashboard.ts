import type { ListedPayment } from '../../app/listPayments.ts';
import type { TransferRecord } from '../../app/ports.ts';
import type { PayoutView } from '../../app/settlement/listPayouts.ts';
import type { WebhookEventWithAttempts } from '../../app/webhooks/listWebhookEvents.ts';
import { bpsToPercent } from '../../domain/commission.ts';
import type { DashboardUser } from '../../domain/dashboardUser.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PaymentState } from '../../domain/paymentStatus.ts';
import { html, type SafeHtml } from '../checkout/html.ts';

/**
 * The dashboard's pages, rendered on the server (decision 0014): they work without JavaScript, and every value
 * is escaped by `html`. Forms that change something carry the session's CSRF token.
 */
export interface DashboardAssets {
  readonly stylesheet: string;
  readonly script: string;
}

function layout(input: {
  title: string;
  assets: DashboardAssets;
  body: SafeHtml;
  user?: DashboardUser | undefined;
  csrf?: string | undefined;
}): string {
  const nav = input.user
    ? html`<header class="top">
  <strong>Paylink</strong>
  <nav aria-label="Main"><ul>
    <li><a href="/dashboard/">${input.user.role === 'operator' ? 'Merchants' : 'Payments'}</a></li>
    ${input.user.role === 'operator' ? html`<li><a href="/dashboard/payouts">Payouts</a></li>` : null}
    <li><a href="/dashboard/security">Security</a></li>
  </ul></nav>
  <form method="post" action="/dashboard/logout">
    <input type="hidden" name="csrf" value="${input.csrf ?? ''}">
    <span class="muted">${input.user.email}</span>
    <button type="submit" class="link">Sign out</button>
  </form>
</header>`
    : null;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${input.title} · Paylink</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${input.assets.stylesheet}">
<script src="${input.assets.script}" defer></script>
</head>
<body>
${nav}
<main>
${input.body}
</main>
</body>
</html>
`.toString();
}

const time = (date: Date) =>
  html`<time datetime="${date.toISOString()}">${date.toISOString().replace('T', ' ').slice(0, 16)} UTC</time>`;

export function renderLogin(
  assets: DashboardAssets,
  message?: { kind: 'error' | 'notice'; text: string },
): string {
  const body = html`<div class="card narrow">
  <h1>Sign in</h1>
  ${message ? html`<p class="${message.kind}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>` : null}
  <form class="stack" method="post" action="/dashboard/login">
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="username" required>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <label for="code">Authentication code <span class="muted">(if you set one up)</span></label>
    <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6">
    <button type="submit">Sign in</button>
  </form>
</div>`;
  return layout({ title: 'Sign in', assets, body });
}

export function renderSetPassword(assets: DashboardAssets, error?: string): string {
  const body = html`<div class="card narrow">
  <h1>Set your password</h1>
  ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  <p class="muted">At least 12 characters. A sentence you will remember is a good password.</p>
  <form class="stack" method="post" action="/dashboard/set-password">
    <input type="hidden" name="token" data-from-fragment value="">
    <label for="password">New password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
    <button type="submit">Set password</button>
  </form>
</div>`;
  return layout({ title: 'Set your password', assets, body });
}

export function renderPayments(input: {
  assets: DashboardAssets;
  user: DashboardUser;
  csrf: string;
  merchant: Merchant | undefined;
  payments: readonly ListedPayment[];
  nextCursor: string | null;
}): string {
  const rows = input.payments.map(
    ({ payment, state }) => html`<tr>
  <td>${time(payment.createdAt)}</td>
  <td><a href="/dashboard/payments/${payment.id}"><code>${payment.id}</code></a></td>
  <td>${state.status}</td>
  <td class="amount">${formatMoney(payment.quote.amount)} ${payment.quote.amount.currency.code}</td>
  <td class="amount">${formatUsdc(payment.quote.usdcBaseUnits)}</td>
  <td class="amount">${formatUsdc(state.amountReceivedBaseUnits)}</td>
  <td>${payment.orderId ?? ''}</td>
</tr>`,
  );
  const body = html`<h1>Payments${input.merchant ? html` · ${input.merchant.name}` : null}</h1>
<form class="export" method="get" action="/dashboard/export.csv">
  <label for="from">From</label> <input id="from" name="from" type="date">
  <label for="to">To (not included)</label> <input id="to" name="to" type="date">
  <button type="submit">Export CSV</button>
</form>
${
  input.payments.length === 0
    ? html`<p class="muted">No payments yet.</p>`
    : html`<div class="table-wrap"><table>
  <caption class="muted">Newest first</caption>
  <thead><tr><th scope="col">Created</th><th scope="col">Payment</th><th scope="col">Status</th><th scope="col">Price</th><th scope="col">USDC due</th><th scope="col">USDC received</th><th scope="col">Order</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}
${input.nextCursor ? html`<p><a href="/dashboard/?cursor=${input.nextCursor}">Older payments</a></p>` : null}`;
  return layout({ title: 'Payments', assets: input.assets, body, user: input.user, csrf: input.csrf });
}

export function renderPayment(input: {
  assets: DashboardAssets;
  user: DashboardUser;
  csrf: string;
  payment: Payment;
  state: PaymentState<TransferRecord>;
  transfers: readonly TransferRecord[];
  webhooks: readonly WebhookEventWithAttempts[];
}): string {
  const { payment, state } = input;
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
  <form method="post" action="/dashboard/webhooks/${event.id}/resend">
    <input type="hidden" name="csrf" value="${input.csrf}">
    <button type="submit" class="link">Send again</button>
  </form>
</li>`,
  );
  const transfers = input.transfers.map(
    (t) =>
      html`<tr><td><code>${t.txHash}</code></td><td class="amount">${formatUsdc(t.amountBaseUnits)}</td><td>${t.orphaned ? 'orphaned (reorg)' : t.final ? 'final' : 'confirming'}</td></tr>`,
  );
  const body = html`<h1>Payment <code>${payment.id}</code></h1>
<div class="card">
<dl class="facts">
  <dt>Status</dt><dd>${state.status}</dd>
  <dt>Created</dt><dd>${time(payment.createdAt)}</dd>
  <dt>Price</dt><dd>${formatMoney(payment.quote.amount)} ${payment.quote.amount.currency.code}</dd>
  <dt>USDC due</dt><dd>${formatUsdc(payment.quote.usdcBaseUnits)}</dd>
  <dt>USDC received</dt><dd>${formatUsdc(state.amountReceivedBaseUnits)}</dd>
  <dt>Deposit address</dt><dd><code>${payment.deposit?.depositAddress ?? ''}</code></dd>
  <dt>Order</dt><dd>${payment.orderId ?? ''}</dd>
  <dt>Paid</dt><dd>${state.paidAt ? time(state.paidAt) : '—'}</dd>
  <dt>Payout transaction</dt><dd><code>${payment.payout.txHash ?? '—'}</code></dd>
</dl>
</div>
<h2>Transfers</h2>
${
  input.transfers.length === 0
    ? html`<p class="muted">None seen yet.</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Transaction</th><th scope="col">USDC</th><th scope="col">Finality</th></tr></thead><tbody>${transfers}</tbody></table></div>`
}
<h2>Webhooks</h2>
${input.webhooks.length === 0 ? html`<p class="muted">None sent yet.</p>` : html`<ul class="webhooks">${webhooks}</ul>`}`;
  return layout({
    title: `Payment ${payment.id}`,
    assets: input.assets,
    body,
    user: input.user,
    csrf: input.csrf,
  });
}

export function renderMerchants(input: {
  assets: DashboardAssets;
  user: DashboardUser;
  csrf: string;
  merchants: readonly Merchant[];
}): string {
  const rows = input.merchants.map(
    (m) =>
      html`<tr><td>${m.name}</td><td><code>${m.id}</code></td><td>${m.status}</td><td class="amount">${bpsToPercent(m.commissionBps)} %</td><td><code>${m.walletAddress ?? ''}</code></td></tr>`,
  );
  const body = html`<h1>Merchants</h1>
<div class="table-wrap"><table>
  <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Status</th><th scope="col">Commission</th><th scope="col">Wallet</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`;
  return layout({ title: 'Merchants', assets: input.assets, body, user: input.user, csrf: input.csrf });
}

export function renderNotFound(
  assets: DashboardAssets,
  user?: DashboardUser,
  csrf?: string,
  problem?: string,
): string {
  const title = problem ? 'Cannot do that' : 'Not found';
  const body = html`<div class="card narrow"><h1>${title}</h1>${problem ? html`<p class="error" role="alert">${problem}</p>` : null}<p><a href="/dashboard/">Back to the dashboard</a></p></div>`;
  return layout({ title, assets, body, user, csrf });
}

/** The second factor: on, or how to turn it on (scan, then confirm with a code). */
export function renderSecurity(input: {
  assets: DashboardAssets;
  user: DashboardUser;
  csrf: string;
  enroll?: { secret: string; qrDataUri: string };
  required?: boolean;
  error?: string;
}): string {
  const body = input.enroll
    ? html`<div class="card narrow">
  <h1>Second factor</h1>
  ${input.required ? html`<p class="notice" role="status">Operators must set up a second factor before going on.</p>` : null}
  ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : null}
  <p>Scan this with an authenticator app, then type the code it shows.</p>
  <p><img src="${input.enroll.qrDataUri}" alt="QR code of your authenticator secret" width="200" height="200"></p>
  <p class="muted">Or type this secret into the app: <code data-secret>${input.enroll.secret}</code></p>
  <form class="stack" method="post" action="/dashboard/security/totp">
    <input type="hidden" name="csrf" value="${input.csrf}">
    <input type="hidden" name="secret" value="${input.enroll.secret}">
    <label for="code">Code from the app</label>
    <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
    <button type="submit">Turn on</button>
  </form>
</div>`
    : html`<div class="card narrow"><h1>Second factor</h1><p role="status">On: signing in asks for a code from your authenticator app.</p></div>`;
  return layout({ title: 'Second factor', assets: input.assets, body, user: input.user, csrf: input.csrf });
}

/** Operators: payouts not fully sent, with why each waits and when it is tried next. */
export function renderPayouts(input: {
  assets: DashboardAssets;
  user: DashboardUser;
  csrf: string;
  payouts: readonly PayoutView[];
  all: boolean;
}): string {
  const why = (p: PayoutView) =>
    [
      p.payout_blocked_reason && `merchant share: ${p.payout_blocked_reason}`,
      p.commission_blocked_reason && `commission: ${p.commission_blocked_reason}`,
    ]
      .filter(Boolean)
      .join('; ') || 'waiting for the next flush';
  const rows = input.payouts.map(
    (p) => html`<tr>
  <td><code>${p.payment_id}</code></td>
  <td><code>${p.merchant_id}</code></td>
  <td class="amount">${p.unsettled}</td>
  <td>${p.failures}</td>
  <td>${p.next_attempt_at ?? 'next pass'}</td>
  <td>${why(p)}</td>
  <td><form method="post" action="/dashboard/payouts/${p.payment_id}/retry"><input type="hidden" name="csrf" value="${input.csrf}"><button type="submit" class="link">Retry now</button></form></td>
</tr>`,
  );
  const body = html`<h1>${input.all ? 'Payouts owed' : 'Delayed payouts'}</h1>
<p><a href="${input.all ? '/dashboard/payouts' : '/dashboard/payouts?all=1'}">${input.all ? 'Only the delayed ones' : 'Every payout still owed'}</a></p>
${
  input.payouts.length === 0
    ? html`<p class="muted">${input.all ? 'Nothing is owed.' : 'No payout is failing.'}</p>`
    : html`<div class="table-wrap"><table>
  <thead><tr><th scope="col">Payment</th><th scope="col">Merchant</th><th scope="col">USDC owed</th><th scope="col">Tries</th><th scope="col">Next attempt</th><th scope="col">Why</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}`;
  return layout({ title: 'Payouts', assets: input.assets, body, user: input.user, csrf: input.csrf });
}
