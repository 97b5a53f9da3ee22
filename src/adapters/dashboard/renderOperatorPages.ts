import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { ServiceMeasurements } from '../../app/measureService.ts';
import type { ApiKeyRecord } from '../../app/ports.ts';
import type { PayoutView } from '../../app/settlement/listPayouts.ts';
import type { FailingEndpoint } from '../../app/webhooks/failingEndpoints.ts';
import { bpsToPercent } from '../../domain/commission.ts';
import { formatDecimal } from '../../domain/decimal.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { html, type SafeHtml } from '../checkout/html.ts';
import { type DashboardAssets, layout, time } from './renderDashboard.ts';

/** The merchant form's fields as typed, kept when the form is shown again with a problem. */
export interface MerchantForm {
  readonly name?: string | undefined;
  readonly wallet?: string | undefined;
  readonly webhookUrl?: string | undefined;
  readonly commissionPercent?: string | undefined;
  readonly tolerancePercent?: string | undefined;
}

const page = (signedIn: SignedIn, assets: DashboardAssets, title: string, body: SafeHtml) =>
  layout({ title, assets, body, user: signedIn.user, csrf: signedIn.session.csrfToken });

const csrfField = (signedIn: SignedIn) =>
  html`<input type="hidden" name="csrf" value="${signedIn.session.csrfToken}">`;

const problemBox = (problem: string | undefined) =>
  problem ? html`<p class="error" role="alert">${problem}</p>` : null;

export function renderMerchants(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
  merchants: readonly Merchant[];
}): string {
  const rows = input.merchants.map(
    (m) =>
      html`<tr><td><a href="/dashboard/merchants/${m.id}">${m.name}</a></td><td><code>${m.id}</code></td><td>${m.status}</td><td class="amount">${bpsToPercent(m.commissionBps)} %</td><td><code>${m.walletAddress ?? ''}</code></td><td><a href="/dashboard/payments?merchant=${m.id}">Payments</a></td></tr>`,
  );
  const body = html`<h1>Merchants</h1>
<p><a class="button" href="/dashboard/merchants/new">New merchant</a></p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Merchants"><table>
  <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Status</th><th scope="col">Commission</th><th scope="col">Wallet</th><th scope="col"><span class="visually-hidden">Payments</span></th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`;
  return page(input.signedIn, input.assets, 'Merchants', body);
}

function merchantFields(form: MerchantForm, merchant?: Merchant): SafeHtml {
  const value = (typed: string | undefined, stored: string | null | undefined) => typed ?? stored ?? '';
  return html`<label for="name">Name</label>
  <input id="name" name="name" required maxlength="200" value="${value(form.name, merchant?.name)}">
  <label for="wallet">Payout wallet (Polygon address)</label>
  <input id="wallet" name="wallet" spellcheck="false" autocomplete="off" value="${value(form.wallet, merchant?.walletAddress)}">
  <label for="webhook_url">Webhook URL</label>
  <input id="webhook_url" name="webhook_url" type="url" value="${value(form.webhookUrl, merchant?.webhookUrl)}">
  <label for="commission_percent">Commission (%)</label>
  <input id="commission_percent" name="commission_percent" inputmode="decimal" value="${value(form.commissionPercent, merchant && bpsToPercent(merchant.commissionBps))}">
  <label for="underpayment_tolerance_percent">Underpayment tolerance (%)</label>
  <input id="underpayment_tolerance_percent" name="underpayment_tolerance_percent" inputmode="decimal" value="${value(form.tolerancePercent, merchant && bpsToPercent(merchant.underpaymentToleranceBps))}">`;
}

export function renderNewMerchant(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
  form: MerchantForm;
  problem?: string | undefined;
}): string {
  const body = html`<div class="card narrow">
  <h1>New merchant</h1>
  ${problemBox(input.problem)}
  <form class="stack" method="post" action="/dashboard/merchants">
    ${csrfField(input.signedIn)}
    ${merchantFields(input.form)}
    <button type="submit">Create merchant</button>
  </form>
</div>`;
  return page(input.signedIn, input.assets, 'New merchant', body);
}

export function renderMerchant(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
  merchant: Merchant;
  keys: readonly ApiKeyRecord[];
  form?: MerchantForm | undefined;
  problem?: string | undefined;
}): string {
  const { merchant, signedIn } = input;
  const action = (path: string, label: string, extra?: SafeHtml) =>
    html`<form method="post" action="/dashboard/merchants/${merchant.id}/${path}">${csrfField(signedIn)}${extra ?? null}<button type="submit">${label}</button></form>`;
  const graceSelect = (mode: string) => html`<input type="hidden" name="mode" value="${mode}">
<label for="grace-${mode}">Old ${mode} keys keep working</label>
<select id="grace-${mode}" name="grace"><option value="0">not at all</option><option value="1h">1 hour</option><option value="24h" selected>24 hours</option><option value="7d">7 days</option></select> `;
  const body = html`<h1>${merchant.name} <span class="badge">${merchant.status}</span></h1>
<p><code>${merchant.id}</code> · created ${time(merchant.createdAt)} · <a href="/dashboard/payments?merchant=${merchant.id}">Payments</a></p>
<div class="card">
  <h2>Settings</h2>
  ${problemBox(input.problem)}
  <form class="stack" method="post" action="/dashboard/merchants/${merchant.id}">
    ${csrfField(signedIn)}
    ${merchantFields(input.form ?? {}, merchant)}
    <button type="submit">Save</button>
  </form>
</div>
<h2>API keys</h2>
<div class="table-wrap" tabindex="0" role="region" aria-label="API keys"><table><thead><tr><th scope="col">Key</th><th scope="col">Mode</th><th scope="col">Created</th><th scope="col">Valid</th></tr></thead><tbody>${input.keys.map(
    (k) =>
      html`<tr><td><code>${k.keyPrefix}…</code></td><td>${k.mode}</td><td>${time(k.createdAt)}</td><td>${k.expiresAt ? html`until ${time(k.expiresAt)}` : 'current'}</td></tr>`,
  )}</tbody></table></div>
<div class="actions">
  ${action('roll-key', 'Roll live key', graceSelect('live'))}
  ${action('roll-key', 'Roll test key', graceSelect('test'))}
</div>
<h2>Webhook secret and status</h2>
<div class="actions">
  ${action('rotate-webhook-secret', 'Rotate webhook secret')}
  ${merchant.status === 'active' ? action('disable', 'Disable merchant') : action('enable', 'Enable merchant')}
</div>
<p class="muted">Disabling stops its API keys and signs its users out at once; its payments still settle.</p>`;
  return page(signedIn, input.assets, merchant.name, body);
}

/** Payouts not fully sent, with why each waits and when it is tried next. */
export function renderPayouts(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
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
  <td><a href="/dashboard/payments/${p.payment_id}"><code>${p.payment_id}</code></a></td>
  <td><code>${p.merchant_id}</code></td>
  <td class="amount">${p.unsettled}</td>
  <td>${p.failures}</td>
  <td>${p.next_attempt_at ?? 'next pass'}</td>
  <td>${why(p)}</td>
  <td><form method="post" action="/dashboard/payouts/${p.payment_id}/retry">${csrfField(input.signedIn)}<button type="submit" class="link">Retry now</button></form></td>
</tr>`,
  );
  const body = html`<h1>${input.all ? 'Payouts owed' : 'Delayed payouts'}</h1>
<p><a href="${input.all ? '/dashboard/payouts' : '/dashboard/payouts?all=1'}">${input.all ? 'Only the delayed ones' : 'Every payout still owed'}</a></p>
${
  input.payouts.length === 0
    ? html`<p class="muted">${input.all ? 'Nothing is owed.' : 'No payout is failing.'}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Payouts"><table>
  <thead><tr><th scope="col">Payment</th><th scope="col">Merchant</th><th scope="col">USDC owed</th><th scope="col">Tries</th><th scope="col">Next attempt</th><th scope="col">Why</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}`;
  return page(input.signedIn, input.assets, 'Payouts', body);
}

export function renderFailingEndpoints(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
  endpoints: readonly FailingEndpoint[];
}): string {
  const rows = input.endpoints.map(
    (e) => html`<tr>
  <td><a href="/dashboard/merchants/${e.merchantId}">${e.merchantName}</a></td>
  <td><code>${e.url ?? 'none set'}</code></td>
  <td class="amount">${e.failed}</td>
  <td class="amount">${e.retrying}</td>
  <td>${e.lastAttemptAt ? time(e.lastAttemptAt) : '—'}</td>
  <td>${e.lastAnswer ?? '—'}</td>
</tr>`,
  );
  const body = html`<h1>Failing webhook endpoints</h1>
<p class="muted">Events given up on are delivered only when resent (<code>paylink webhooks resend</code>, or the merchant's dashboard).</p>
${
  input.endpoints.length === 0
    ? html`<p class="muted" role="status">Every endpoint takes its webhooks.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Failing endpoints"><table>
  <thead><tr><th scope="col">Merchant</th><th scope="col">Endpoint</th><th scope="col">Given up</th><th scope="col">Retrying</th><th scope="col">Last attempt</th><th scope="col">Last answer</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}`;
  return page(input.signedIn, input.assets, 'Failing webhook endpoints', body);
}

const seconds = (value: number | undefined) =>
  value === undefined ? 'unknown' : value < 120 ? `${Math.round(value)} s` : `${Math.round(value / 60)} min`;

/** The figures /metrics exports, read the same way, for a person. */
export function renderHealth(input: {
  signedIn: SignedIn;
  assets: DashboardAssets;
  measured: ServiceMeasurements;
  at: Date;
}): string {
  const m = input.measured;
  const fact = (label: string, value: SafeHtml | string, bad = false) =>
    html`<dt>${label}</dt><dd${bad ? html` class="error"` : null}>${value}</dd>`;
  const counts = (map: ReadonlyMap<string, number> | undefined) =>
    map ? [...map].map(([k, v]) => `${k}: ${v}`).join(', ') || 'none' : 'unknown';
  const chains = m.chains.map(
    (c) => html`<div class="card"><h2>Chain ${c.chainId}</h2><dl class="facts">
  ${fact('RPC', c.rpcUp ? 'up' : 'DOWN', !c.rpcUp)}
  ${fact('Watcher behind the head', c.watcherLagBlocks === undefined ? 'unknown' : `${c.watcherLagBlocks} blocks, ${seconds(c.watcherLagSeconds)}`)}
  ${fact('Watcher last wrote its cursor', `${seconds(c.watcherCursorAgeSeconds)} ago`)}
  ${fact('Age of the finalized head', seconds(c.finalizedHeadAgeSeconds))}
</dl></div>`,
  );
  const relayers = (m.relayers ?? []).map((r) => {
    const low = r.balanceWei < r.lowBalanceWei;
    return fact(
      `Relayer gas, chain ${r.chainId}`,
      `${formatDecimal({ units: r.balanceWei, scale: 18 }, 2)} (read ${seconds(r.ageSeconds)} ago)${low ? ' — LOW: top it up' : ''}`,
      low,
    );
  });
  const body = html`<h1>Health</h1>
<p class="muted">As of ${time(input.at)}; the same figures as <code>/metrics</code>.</p>
<div class="card"><dl class="facts">
  ${fact('Database', m.databaseUp ? 'up' : 'DOWN', !m.databaseUp)}
  ${fact('Payments by status', counts(m.paymentsByStatus))}
  ${fact('Webhooks by delivery', counts(m.webhookEventsByStatus))}
  ${fact('Oldest webhook owed', seconds(m.webhookOldestOwedSeconds))}
  ${fact('Payouts pending', m.payouts ? String(m.payouts.pending) : 'unknown')}
  ${fact('Payouts delayed', m.payouts ? String(m.payouts.delayed) : 'unknown', (m.payouts?.delayed ?? 0) > 0)}
  ${m.payouts && m.payouts.delayed > 0 ? fact('Oldest delayed payout failing for', seconds(m.payouts.oldestDelayedSeconds), true) : null}
  ${relayers}
</dl></div>
${chains}`;
  return page(input.signedIn, input.assets, 'Health', body);
}
