import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { ApiKeyRecord } from '../../app/merchants/ports.ts';
import type { ServiceMeasurements } from '../../app/operations/measureService.ts';
import type { PayoutView } from '../../app/settlement/listPayouts.ts';
import type { FailingEndpoint } from '../../app/webhooks/failingEndpoints.ts';
import { bpsToPercent } from '../../domain/commission.ts';
import { formatDecimal, roundToScale } from '../../domain/decimal.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import type { SignedInPageInput } from './renderDashboard.ts';
import { csrfField, keysTable, type PageContext, problemBox, signedInPage, time } from './renderDashboard.ts';

/** The merchant form's fields as typed, kept when the form is shown again with a problem. */
export interface MerchantForm {
  readonly name?: string | undefined;
  readonly wallet?: string | undefined;
  readonly webhookUrl?: string | undefined;
  readonly commissionPercent?: string | undefined;
  readonly tolerancePercent?: string | undefined;
}

const page = signedInPage;

export function renderMerchants(
  input: SignedInPageInput & {
    merchants: readonly Merchant[];
  },
): string {
  const o = input.ctx.t.operator;
  const rows = input.merchants.map(
    (m) =>
      html`<tr><td><a href="/dashboard/merchants/${m.id}">${m.name}</a></td><td><code>${m.id}</code></td><td>${input.ctx.t.merchantStatus[m.status]}</td><td class="amount">${bpsToPercent(m.commissionBps)} %</td><td><code>${m.walletAddress ?? ''}</code></td><td><a href="/dashboard/payments?merchant=${m.id}">${o.payments}</a></td></tr>`,
  );
  const body = html`<h1>${o.merchants}</h1>
<p><a class="button" href="/dashboard/merchants/new">${o.newMerchant}</a></p>
<div class="table-wrap" tabindex="0" role="region" aria-label="${o.merchants}"><table>
  <thead><tr><th scope="col">${o.name}</th><th scope="col">${o.id}</th><th scope="col">${o.status}</th><th scope="col">${o.commission}</th><th scope="col">${o.wallet}</th><th scope="col"><span class="visually-hidden">${o.payments}</span></th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`;
  return page(input.signedIn, input.ctx, o.merchants, body);
}

function merchantFields(ctx: PageContext, form: MerchantForm, merchant?: Merchant): SafeHtml {
  const o = ctx.t.operator;
  const value = (typed: string | undefined, stored: string | null | undefined) => typed ?? stored ?? '';
  return html`<label for="name">${o.name}</label>
  <input id="name" name="name" required maxlength="200" value="${value(form.name, merchant?.name)}">
  <label for="wallet">${o.walletLabel}</label>
  <input id="wallet" name="wallet" spellcheck="false" autocomplete="off" value="${value(form.wallet, merchant?.walletAddress)}">
  <label for="webhook_url">${o.webhookUrl}</label>
  <input id="webhook_url" name="webhook_url" type="url" value="${value(form.webhookUrl, merchant?.webhookUrl)}">
  <label for="commission_percent">${o.commissionPercent}</label>
  <input id="commission_percent" name="commission_percent" inputmode="decimal" value="${value(form.commissionPercent, merchant && bpsToPercent(merchant.commissionBps))}">
  <label for="underpayment_tolerance_percent">${o.tolerancePercent}</label>
  <input id="underpayment_tolerance_percent" name="underpayment_tolerance_percent" inputmode="decimal" value="${value(form.tolerancePercent, merchant && bpsToPercent(merchant.underpaymentToleranceBps))}">`;
}

export function renderNewMerchant(
  input: SignedInPageInput & {
    form: MerchantForm;
    problem?: string | undefined;
  },
): string {
  const o = input.ctx.t.operator;
  const body = html`<div class="card narrow">
  <h1>${o.newMerchant}</h1>
  ${problemBox(input.problem)}
  <form class="stack" method="post" action="/dashboard/merchants">
    ${csrfField(input.signedIn)}
    ${merchantFields(input.ctx, input.form)}
    <button type="submit">${o.create}</button>
  </form>
</div>`;
  return page(input.signedIn, input.ctx, o.newMerchant, body);
}

export function renderMerchant(
  input: SignedInPageInput & {
    merchant: Merchant;
    keys: readonly ApiKeyRecord[];
    form?: MerchantForm | undefined;
    problem?: string | undefined;
  },
): string {
  const { merchant, signedIn, ctx } = input;
  const o = ctx.t.operator;
  const action = (path: string, label: string, extra?: SafeHtml) =>
    html`<form method="post" action="/dashboard/merchants/${merchant.id}/${path}">${csrfField(signedIn)}${extra ?? null}<button type="submit">${label}</button></form>`;
  const graceSelect = (mode: string) => html`<input type="hidden" name="mode" value="${mode}">
<label for="grace-${mode}">${format(o.oldKeysKeep, { mode })}</label>
<select id="grace-${mode}" name="grace"><option value="0">${o.graceNone}</option><option value="1h">${o.grace1h}</option><option value="24h" selected>${o.grace24h}</option><option value="7d">${o.grace7d}</option></select> `;
  const body = html`<h1>${merchant.name} <span class="badge">${ctx.t.merchantStatus[merchant.status]}</span></h1>
<p><code>${merchant.id}</code> · ${o.createdAt} ${time(merchant.createdAt)} · <a href="/dashboard/payments?merchant=${merchant.id}">${o.payments}</a></p>
<div class="card">
  <h2>${o.settings}</h2>
  ${problemBox(input.problem)}
  <form class="stack" method="post" action="/dashboard/merchants/${merchant.id}">
    ${csrfField(signedIn)}
    ${merchantFields(ctx, input.form ?? {}, merchant)}
    <button type="submit">${o.save}</button>
  </form>
</div>
<h2>${o.apiKeys}</h2>
${keysTable(ctx, input.keys)}
<div class="actions">
  ${action('roll-key', o.rollLive, graceSelect('live'))}
  ${action('roll-key', o.rollTest, graceSelect('test'))}
</div>
<h2>${o.secretAndStatus}</h2>
<div class="actions">
  ${action('rotate-webhook-secret', o.rotateSecret)}
  ${merchant.status === 'active' ? null : action('enable', o.enable)}
</div>
${merchant.status === 'active' ? disableForm(ctx, signedIn, merchant) : null}`;
  return page(signedIn, ctx, merchant.name, body);
}

/**
 * Disabling a merchant stops its keys and signs its users out at once: styled as what it is, and confirmed by a
 * required box (the server refuses the form without it, so the step holds without the script, which asks once
 * more).
 */
function disableForm(ctx: PageContext, signedIn: SignedIn, merchant: Merchant): SafeHtml {
  const o = ctx.t.operator;
  return html`<form class="card stack danger" method="post" action="/dashboard/merchants/${merchant.id}/disable" data-confirm="${o.disableConfirm}">
  <h3>${o.disableTitle}</h3>
  ${csrfField(signedIn)}
  <p>${o.disableHint}</p>
  <label class="choice"><input type="checkbox" name="confirmed" value="yes" required> ${o.disableConfirmBox}</label>
  <button type="submit" class="danger">${o.disable}</button>
</form>`;
}

/** Payouts not fully sent, with why each waits and when it is tried next. */
export function renderPayouts(
  input: SignedInPageInput & {
    payouts: readonly PayoutView[];
    all: boolean;
  },
): string {
  const p = input.ctx.t.payouts;
  const why = (v: PayoutView) => {
    const reasons = [
      v.payout_blocked_reason ? format(p.merchantShare, { reason: v.payout_blocked_reason }) : null,
      v.commission_blocked_reason ? format(p.commission, { reason: v.commission_blocked_reason }) : null,
    ].filter((reason): reason is SafeHtml => reason !== null);
    return reasons.length > 0
      ? html`${reasons.map((reason, i) => html`${i > 0 ? '; ' : ''}${reason}`)}`
      : p.waiting;
  };
  const rows = input.payouts.map(
    (v) => html`<tr>
  <td><a href="/dashboard/payments/${v.payment_id}"><code>${v.payment_id}</code></a></td>
  <td><code>${v.merchant_id}</code></td>
  <td class="amount">${v.unsettled}</td>
  <td>${v.failures}</td>
  <td>${v.next_attempt_at ?? p.nextPass}</td>
  <td>${why(v)}</td>
  <td><form method="post" action="/dashboard/payouts/${v.payment_id}/retry">${csrfField(input.signedIn)}<button type="submit" class="link">${p.retry}</button></form></td>
</tr>`,
  );
  const title = input.all ? p.owedTitle : p.delayedTitle;
  const body = html`<h1>${title}</h1>
<p><a href="${input.all ? '/dashboard/payouts' : '/dashboard/payouts?all=1'}">${input.all ? p.onlyDelayed : p.everyOwed}</a></p>
${
  input.payouts.length === 0
    ? html`<p class="muted">${input.all ? p.nothingOwed : p.noneFailing}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${title}"><table>
  <thead><tr><th scope="col">${p.payment}</th><th scope="col">${p.merchant}</th><th scope="col">${p.owed}</th><th scope="col">${p.tries}</th><th scope="col">${p.nextAttempt}</th><th scope="col">${p.why}</th><th scope="col"><span class="visually-hidden">${p.action}</span></th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}`;
  return page(input.signedIn, input.ctx, title, body);
}

export function renderFailingEndpoints(
  input: SignedInPageInput & {
    endpoints: readonly FailingEndpoint[];
  },
): string {
  const f = input.ctx.t.failing;
  const rows = input.endpoints.map(
    (e) => html`<tr>
  <td><a href="/dashboard/merchants/${e.merchantId}">${e.merchantName}</a></td>
  <td><code>${e.url ?? input.ctx.t.developers.noneSet}</code></td>
  <td class="amount">${e.failed}</td>
  <td class="amount">${e.retrying}</td>
  <td>${e.lastAttemptAt ? time(e.lastAttemptAt) : '—'}</td>
  <td>${e.lastAnswer ?? '—'}</td>
</tr>`,
  );
  const body = html`<h1>${f.title}</h1>
<p class="muted">${f.hint}</p>
${
  input.endpoints.length === 0
    ? html`<p class="muted" role="status">${f.allFine}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${f.title}"><table>
  <thead><tr><th scope="col">${f.merchant}</th><th scope="col">${f.endpoint}</th><th scope="col">${f.givenUp}</th><th scope="col">${f.retrying}</th><th scope="col">${f.lastAttempt}</th><th scope="col">${f.lastAnswer}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}`;
  return page(input.signedIn, input.ctx, f.title, body);
}

/** Decimals a person reads of a native balance; the exact figure (18 decimals) is the title, shown on hover. */
const NATIVE_SHOWN_DECIMALS = 4;

/**
 * A native balance for a person: "0.9731 POL", rounded down (a balance is never shown larger than it is), and
 * "< 0.0001 ETH" for a dust balance that would otherwise read as nothing. `symbol` is the chain's own token (ETH,
 * POL, AVAX); empty for a chain no longer configured, whose token is not known any more.
 */
export function nativeBalance(wei: bigint, symbol: string): SafeHtml {
  const exact = { units: wei, scale: 18 };
  const shown = roundToScale(exact, NATIVE_SHOWN_DECIMALS, 'down');
  const text =
    wei > 0n && shown.units === 0n
      ? `< ${formatDecimal({ units: 1n, scale: NATIVE_SHOWN_DECIMALS })}`
      : formatDecimal(shown, NATIVE_SHOWN_DECIMALS);
  const unit = symbol === '' ? '' : ` ${symbol}`;
  return html`<span title="${formatDecimal(exact)}${unit}">${text}${unit}</span>`;
}

/** The figures /metrics exports, read the same way, for a person. */
export function renderHealth(
  input: SignedInPageInput & {
    measured: ServiceMeasurements;
    /** Each configured chain's native token, by chain id. */
    nativeSymbols: ReadonlyMap<number, string>;
    at: Date;
  },
): string {
  const h = input.ctx.t.health;
  const m = input.measured;
  const seconds = (value: number | undefined) =>
    value === undefined
      ? h.unknown
      : value < 120
        ? `${Math.round(value)} s`
        : `${Math.round(value / 60)} min`;
  const fact = (label: string | SafeHtml, value: SafeHtml | string, bad = false) =>
    html`<dt>${label}</dt><dd${bad ? html` class="error"` : null}>${value}</dd>`;
  // Every status word in the page's language; a status this version does not know is shown as it is.
  const counts = (map: ReadonlyMap<string, number> | undefined, words: Readonly<Record<string, string>>) =>
    map
      ? [...map].map(([k, v]) => `${Object.hasOwn(words, k) ? words[k] : k}: ${v}`).join(', ') || h.none
      : h.unknown;
  const chains = m.chains.map(
    (c) => html`<div class="card"><h2>${format(h.chain, { chain: c.chainId })}</h2><dl class="facts">
  ${fact(h.rpc, c.rpcUp ? h.up : h.down, !c.rpcUp)}
  ${fact(h.watcherBehind, c.watcherLagBlocks === undefined ? h.unknown : format(h.watcherLag, { blocks: c.watcherLagBlocks, time: seconds(c.watcherLagSeconds) }))}
  ${fact(h.cursorWritten, seconds(c.watcherCursorAgeSeconds))}
  ${fact(h.finalizedAge, seconds(c.finalizedHeadAgeSeconds))}
</dl></div>`,
  );
  const relayers = (m.relayers ?? []).map((r) => {
    const low = r.balanceWei < r.lowBalanceWei;
    return fact(
      format(h.relayerGas, { chain: r.chainId }),
      html`${format(h.relayerValue, { balance: nativeBalance(r.balanceWei, input.nativeSymbols.get(r.chainId) ?? ''), age: seconds(r.ageSeconds) })}${low ? html` — ${h.low}` : null}`,
      low,
    );
  });
  const body = html`<h1>${h.title}</h1>
<p class="muted">${format(h.asOf, { time: time(input.at) })}</p>
<div class="card"><dl class="facts">
  ${fact(h.database, m.databaseUp ? h.up : h.down, !m.databaseUp)}
  ${fact(h.paymentsByStatus, counts(m.paymentsByStatus, input.ctx.t.status))}
  ${fact(h.webhooksByDelivery, counts(m.webhookEventsByStatus, input.ctx.t.deliveryStatus))}
  ${fact(h.oldestOwed, seconds(m.webhookOldestOwedSeconds))}
  ${fact(h.payoutsPending, m.payouts ? String(m.payouts.pending) : h.unknown)}
  ${fact(h.payoutsDelayed, m.payouts ? String(m.payouts.delayed) : h.unknown, (m.payouts?.delayed ?? 0) > 0)}
  ${m.payouts && m.payouts.delayed > 0 ? fact(h.oldestDelayed, seconds(m.payouts.oldestDelayedSeconds), true) : null}
  ${relayers}
</dl></div>
${chains}`;
  return page(input.signedIn, input.ctx, h.title, body);
}
