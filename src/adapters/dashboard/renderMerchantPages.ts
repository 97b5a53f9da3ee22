import type { TransferRecord } from '../../app/chain/ports.ts';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { ApiKeyRecord } from '../../app/merchants/ports.ts';
import type { ListedPayment } from '../../app/payments/listPayments.ts';
import { attemptAnswer, type WebhookEventWithAttempts } from '../../app/webhooks/listWebhookEvents.ts';
import type { TestWebhookResult } from '../../app/webhooks/sendTestWebhook.ts';
import { bpsToPercent } from '../../domain/commission.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import { PAYMENT_STATUSES, type PaymentState, type PaymentStatus } from '../../domain/paymentStatus.ts';
import type { PayoutStatus } from '../../domain/payout.ts';
import { countsAgainstPayment, overpaidBaseUnits, refundableBaseUnits } from '../../domain/refund.ts';
import { receivedBaseUnitsShown } from '../../domain/webhookEvent.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import type { refundResponse } from '../web/refundPresenter.ts';
import { csrfField, keysTable, type PageContext, problemBox, signedInPage, time } from './renderDashboard.ts';

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

export type RefundView = ReturnType<typeof refundResponse> & {
  readonly fundingQr?: string | undefined;
  readonly amountBaseUnits: bigint;
  /** What is still to send to its deposit address, in base units, while it awaits funds. */
  readonly fundingBaseUnits?: bigint | undefined;
};

const page = signedInPage;

const usdc = (baseUnits: bigint) => `${formatUsdc(baseUnits)} USDC`;

/** A transaction hash, linked to the chain's explorer when it has one. */
function txLink(txHash: string, explorerUrl: string | undefined): SafeHtml {
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

/**
 * A payment's status as the list shows it: a paid (or failed) payment whose refunds reached the customer says "refunded"
 * once they sent back all that arrived (final), "partly refunded" before.
 */
function statusBadge(ctx: PageContext, state: PaymentState, refundedBaseUnits: bigint): SafeHtml {
  if (refundedBaseUnits > 0n && (state.status === 'paid' || state.status === 'failed')) {
    const fully = refundedBaseUnits >= state.amountReceivedBaseUnits;
    return html`<span class="status status-refunded">${fully ? ctx.t.refunded.fully : ctx.t.refunded.partly}</span>`;
  }
  return html`<span class="status status-${state.status}">${ctx.t.status[state.status]}</span>`;
}

export function renderPayments(input: {
  signedIn: SignedIn;
  ctx: PageContext;
  merchant: Merchant | undefined;
  filters: PaymentFilters;
  page: { readonly payments: readonly ListedPayment[]; readonly nextCursor: string | null };
  /** What refunds sent back to the customer, by payment id (none: not refunded). */
  refunded?: ReadonlyMap<string, bigint> | undefined;
  problem?: string | undefined;
}): string {
  const { filters, ctx } = input;
  const l = ctx.t.list;
  const isMerchant = input.signedIn.user.role === 'merchant';
  const rows = input.page.payments.map(
    ({ payment, state }) => html`<tr>
  <td>${time(payment.createdAt)}</td>
  <td><a href="/dashboard/payments/${payment.id}"><code>${payment.id}</code></a></td>
  <td>${statusBadge(ctx, state, input.refunded?.get(payment.id) ?? 0n)}</td>
  <td class="amount">${formatMoney(payment.quote.amount)} ${payment.quote.amount.currency.code}</td>
  <td class="amount">${formatUsdc(payment.quote.usdcBaseUnits)}</td>
  <td class="amount">${formatUsdc(receivedBaseUnitsShown(state))}</td>
  <td>${payment.orderId ?? ''}</td>
</tr>`,
  );
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? html` selected` : null}>${label}</option>`;
  const body = html`<h1>${l.title}${input.merchant ? html` · ${input.merchant.name}` : null}${filters.mode === 'test' ? html` <span class="badge">${l.testMode}</span>` : null}</h1>
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
  <thead><tr><th scope="col">${l.created}</th><th scope="col">${l.payment}</th><th scope="col">${l.status}</th><th scope="col">${l.price}</th><th scope="col">${l.usdcDue}</th><th scope="col">${l.usdcReceived}</th><th scope="col">${l.order}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}
${input.page.nextCursor ? html`<p><a href="/dashboard/payments?${filterQuery(filters, input.page.nextCursor)}">${l.older}</a></p>` : null}`;
  return page(input.signedIn, ctx, l.title, body);
}

/** One step of a payment's life, in the order it happened. */
interface TimelineEntry {
  readonly at: Date | null;
  readonly what: SafeHtml;
}

function timeline(
  ctx: PageContext,
  payment: Payment,
  state: PaymentState<TransferRecord>,
  transfers: readonly TransferRecord[],
  explorerUrl: string | undefined,
): TimelineEntry[] {
  const p = ctx.t.payment;
  const price = payment.quote.amount;
  const entries: TimelineEntry[] = [
    {
      at: payment.createdAt,
      what: html`${format(p.createdDue, { due: usdc(payment.quote.usdcBaseUnits) })}${price.currency.code === 'USDC' ? null : ` (${formatMoney(price)} ${price.currency.code})`}`,
    },
  ];
  for (const t of transfers)
    entries.push({
      at: t.blockTimestamp,
      what: html`${format(p.transferSeen, {
        amount: usdc(t.amountBaseUnits),
        finality: t.orphaned ? p.orphaned : t.final ? p.final : p.confirming,
      })} ${txLink(t.txHash, explorerUrl)}`,
    });
  if (state.paidAt) entries.push({ at: state.paidAt, what: html`${state.late ? p.paidLate : p.paidEvent}` });
  const { payout } = payment;
  if (payout.txHash)
    entries.push({
      at: payout.sentAt,
      what: html`${format(p.payoutSent, {
        merchant: usdc(payout.merchantPaidBaseUnits),
        commission: usdc(payout.treasuryPaidBaseUnits),
      })} ${txLink(payout.txHash, explorerUrl)}`,
    });
  if (payout.blockedSince)
    entries.push({
      at: payout.blockedSince,
      what: format(p.payoutDelayed, { reason: payout.blockedReason ?? '—', tries: payout.failures }),
    });
  if (state.status === 'expired' || state.status === 'failed')
    entries.push({
      at: payment.expiresAt,
      what: html`${state.status === 'expired' ? p.expired : p.underpaid}`,
    });
  const order = (entry: TimelineEntry) => entry.at?.getTime() ?? Number.MAX_SAFE_INTEGER;
  return entries.sort((a, b) => order(a) - order(b));
}

function refundItem(
  ctx: PageContext,
  signedIn: SignedIn,
  refund: RefundView,
  explorerUrl: string | undefined,
): SafeHtml {
  const r = ctx.t.refunds;
  const open = refund.status === 'awaiting_address' || refund.status === 'awaiting_funds';
  return html`<li class="card">
  <p><strong>${refund.amount} USDC</strong> · <span class="status">${ctx.t.refundStatus[refund.status]}</span> · ${time(new Date(refund.created_at))}${refund.reason ? html` · ${refund.reason}` : null}</p>
  ${
    'claim_url' in refund && refund.claim_url
      ? html`<p><label for="claim-${refund.refund_id}">${r.claimLink}</label>
  <span class="copy-row"><input id="claim-${refund.refund_id}" type="text" readonly value="${refund.claim_url}"> <button type="button" class="link" data-copy="claim-${refund.refund_id}" data-copied="${ctx.t.shownOnce.copied}" hidden>${ctx.t.shownOnce.copy}</button></span></p>`
      : null
  }
  ${refund.address ? html`<p>${r.to} <code>${refund.address}</code></p>` : null}
  ${
    'deposit_address' in refund && refund.deposit_address && refund.status === 'awaiting_funds'
      ? html`<div class="funding"><p>${format(r.fundIt, {
          amount: refund.amount,
          address: html`<code>${refund.deposit_address}</code>`,
          chain: refund.chain_id,
        })} <a href="${refund.funding_uri}">${r.openInWallet}</a>.</p>
  ${refund.fundingQr ? html`<img src="${refund.fundingQr}" alt="${format(r.fundingQrAlt, { amount: refund.amount })}" width="160" height="160">` : null}
  ${
    signedIn.user.role === 'merchant' &&
    refund.fundingBaseUnits !== undefined &&
    refund.token_address !== undefined &&
    refund.chain_id !== undefined
      ? walletFunding(ctx, {
          token: refund.token_address,
          to: refund.deposit_address,
          chain: refund.chain_id,
          baseUnits: refund.fundingBaseUnits,
        })
      : null
  }</div>`
      : null
  }
  ${refund.txid ? html`<p>${r.sent} ${txLink(refund.txid, explorerUrl)}</p>` : null}
  ${refund.payout_delayed_reason ? html`<p class="error">${format(r.delayed, { reason: refund.payout_delayed_reason })}</p>` : null}
  ${
    open && signedIn.user.role === 'merchant'
      ? html`<form method="post" action="/dashboard/refunds/${refund.refund_id}/cancel">${csrfField(signedIn)}<input type="hidden" name="mode" value="${refund.livemode ? 'live' : 'test'}"><button type="submit" class="link">${r.cancel}</button></form>`
      : null
  }
</li>`;
}

/**
 * "Fund from my browser wallet" (EIP-1193, dashboard.js): hidden until the script finds a wallet; the words of
 * each outcome travel as data attributes, in the page's language.
 */
function walletFunding(
  ctx: PageContext,
  transfer: { token: string; to: string; chain: number; baseUnits: bigint },
): SafeHtml {
  const r = ctx.t.refunds;
  return html`<p><button type="button" hidden data-fund data-token="${transfer.token}" data-to="${transfer.to}" data-amount="${transfer.baseUnits}" data-chain="${transfer.chain}">${r.fundFromWallet}</button></p>
  <p role="status" data-fund-status hidden data-sent="${r.fundSent}" data-rejected="${r.fundRejected}" data-wrong-chain="${fill(r.fundWrongChain, { chain: transfer.chain })}" data-error="${r.fundError}"></p>`;
}

/** A webhook event with every attempt, and (for the merchant) "Send again". */
function webhookItem(ctx: PageContext, signedIn: SignedIn, { event, attempts }: WebhookEventWithAttempts) {
  const p = ctx.t.payment;
  return html`<li>
  <p><strong>${event.type}</strong> · ${ctx.t.deliveryStatus[event.deliveryStatus]} · ${time(event.createdAt)}</p>
  ${
    attempts.length === 0
      ? html`<p class="muted">${p.noAttempt}</p>`
      : html`<ol class="attempts">${attempts.map(
          (a) =>
            html`<li>${attemptAnswer(a) ?? p.noAnswer}${a.durationMs === null ? '' : ` · ${a.durationMs} ms`} · ${a.outcome ?? p.inFlight}${a.responseBody ? html` · <code>${a.responseBody.slice(0, 200)}</code>` : null}</li>`,
        )}</ol>`
  }
  ${
    signedIn.user.role === 'merchant'
      ? html`<form method="post" action="/dashboard/webhooks/${event.id}/resend">
    ${csrfField(signedIn)}
    <button type="submit" class="link">${p.sendAgain}</button>
  </form>`
      : null
  }
</li>`;
}

export function renderPayment(input: {
  signedIn: SignedIn;
  ctx: PageContext;
  payment: Payment;
  state: PaymentState<TransferRecord>;
  transfers: readonly TransferRecord[];
  webhooks: readonly WebhookEventWithAttempts[];
  refunds: readonly RefundView[];
  refundsEnabled: boolean;
  refundForm?: { problem: string; amount: string } | undefined;
  explorerUrl: string | undefined;
  /** Where the merchant's money is, as the API's payout_status says (null: nothing to pay out). */
  payoutStatus: PayoutStatus | null;
}): string {
  const { payment, state, signedIn, ctx } = input;
  const { t } = ctx;
  const p = t.payment;
  const r = t.refunds;
  const isMerchant = signedIn.user.role === 'merchant';
  const received = state.amountReceivedBaseUnits;
  // What is left: received less every refund that counts (as the refund use case reckons it).
  const counted = input.refunds
    .filter((r2) => countsAgainstPayment(r2.status))
    .map((r2) => r2.amountBaseUnits);
  const left = refundableBaseUnits(received, counted);
  const overpaidLeft = refundableBaseUnits(overpaidBaseUnits(payment, state), counted);
  const finality = (t2: TransferRecord) => (t2.orphaned ? p.orphaned : t2.final ? p.final : p.confirming);
  const transfers = input.transfers.map(
    (t2) =>
      html`<tr><td>${txLink(t2.txHash, input.explorerUrl)}</td><td class="amount">${formatUsdc(t2.amountBaseUnits)}</td><td>${finality(t2)}</td></tr>`,
  );
  const refundForm =
    isMerchant && input.refundsEnabled && left > 0n
      ? html`<form class="stack card" method="post" action="/dashboard/payments/${payment.id}/refunds">
  <h3>${r.formTitle}</h3>
  ${problemBox(input.refundForm?.problem)}
  ${csrfField(signedIn)}
  <label for="refund-amount">${r.amount}</label>
  <input id="refund-amount" name="amount" inputmode="decimal" required value="${input.refundForm?.amount ?? formatUsdc(left)}" aria-describedby="refund-hint">
  <p id="refund-hint" class="muted">${overpaidLeft > 0n ? format(r.receivedOverpaid, { received: usdc(received), overpaid: usdc(overpaidLeft) }) : format(r.received, { received: usdc(received) })}</p>
  <label for="refund-reason">${r.reason} <span class="muted">${r.reasonHint}</span></label>
  <input id="refund-reason" name="reason" maxlength="500">
  <label for="refund-address">${r.address} <span class="muted">${r.addressHint}</span></label>
  <input id="refund-address" name="address" spellcheck="false" autocomplete="off">
  <button type="submit">${r.start}</button>
</form>
${
  overpaidLeft > 0n
    ? html`<form method="post" action="/dashboard/payments/${payment.id}/refunds">${csrfField(signedIn)}<input type="hidden" name="amount" value="overpaid"><button type="submit" class="link">${format(r.refundOverpaid, { overpaid: usdc(overpaidLeft) })}</button></form>`
    : null
}`
      : null;
  const l = t.list;
  const body = html`<h1>${p.title} <code>${payment.id}</code>${payment.mode === 'test' ? html` <span class="badge">${l.testMode}</span>` : null}</h1>
<div class="card">
<dl class="facts">
  <dt>${l.status}</dt><dd><span class="status status-${state.status}">${t.status[state.status]}</span></dd>
  <dt>${l.created}</dt><dd>${time(payment.createdAt)}</dd>
  <dt>${l.price}</dt><dd>${formatMoney(payment.quote.amount)} ${payment.quote.amount.currency.code}</dd>
  <dt>${l.usdcDue}</dt><dd>${formatUsdc(payment.quote.usdcBaseUnits)}</dd>
  <dt>${l.usdcReceived}</dt><dd>${formatUsdc(receivedBaseUnitsShown(state))}</dd>
  <dt>${p.depositAddress}</dt><dd><code>${payment.deposit?.depositAddress ?? ''}</code></dd>
  <dt>${l.order}</dt><dd>${payment.orderId ?? ''}</dd>
  <dt>${p.paid}</dt><dd>${state.paidAt ? time(state.paidAt) : '—'}</dd>
  <dt>${p.payout}</dt><dd>${payment.payout.txHash ? format(p.payoutValue, { merchant: usdc(payment.payout.merchantPaidBaseUnits), commission: usdc(payment.payout.treasuryPaidBaseUnits) }) : input.payoutStatus ? t.payoutStatus[input.payoutStatus] : '—'}</dd>
</dl>
</div>
<h2>${p.timeline}</h2>
<ol class="timeline">${timeline(ctx, payment, state, input.transfers, input.explorerUrl).map(
    (entry) => html`<li>${entry.at ? time(entry.at) : html`<span class="muted">—</span>`} ${entry.what}</li>`,
  )}</ol>
<h2>${p.transfers}</h2>
${
  input.transfers.length === 0
    ? html`<p class="muted">${p.noTransfer}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${p.transfers}"><table><thead><tr><th scope="col">${p.transaction}</th><th scope="col">${p.usdc}</th><th scope="col">${p.finality}</th></tr></thead><tbody>${transfers}</tbody></table></div>`
}
${
  input.refundsEnabled
    ? html`<h2 id="refunds">${r.title}</h2>
${input.refunds.length === 0 ? html`<p class="muted">${r.none}</p>` : html`<ul class="refunds">${input.refunds.map((refund) => refundItem(ctx, signedIn, refund, input.explorerUrl))}</ul>`}
${refundForm}`
    : null
}
<h2>${p.webhooks}</h2>
${input.webhooks.length === 0 ? html`<p class="muted">${p.noWebhook}</p>` : html`<ul class="webhooks">${input.webhooks.map((w) => webhookItem(ctx, signedIn, w))}</ul>`}`;
  return page(signedIn, ctx, `${p.title} ${payment.id}`, body);
}

/** Keys (prefixes only), the webhook settings, a test webhook and the last deliveries. */
export function renderDevelopers(input: {
  signedIn: SignedIn;
  ctx: PageContext;
  merchant: Merchant;
  keys: readonly ApiKeyRecord[];
  deliveries: readonly WebhookEventWithAttempts[];
  canTest: boolean;
  test?: TestWebhookResult | undefined;
}): string {
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
  const deliveries = input.deliveries.map(({ event, attempts }) => {
    const last = attempts.at(-1);
    return html`<tr>
  <td>${time(event.createdAt)}</td>
  <td>${event.type}</td>
  <td><a href="/dashboard/payments/${event.paymentId}"><code>${event.paymentId}</code></a></td>
  <td>${ctx.t.deliveryStatus[event.deliveryStatus]}</td>
  <td>${last ? (attemptAnswer(last) ?? ctx.t.payment.noAnswer) : '—'}</td>
  <td><form method="post" action="/dashboard/webhooks/${event.id}/resend">${csrfField(signedIn)}<input type="hidden" name="back" value="developers"><button type="submit" class="link">${ctx.t.payment.sendAgain}</button></form></td>
</tr>`;
  });
  const body = html`<h1>${d.title}</h1>
<h2>${d.apiKeys}</h2>
<p class="muted">${d.keysHint}</p>
${keysTable(ctx, input.keys)}
<div class="actions">${rollForm('live')} ${rollForm('test')}</div>
<h2>${d.webhooks}</h2>
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
export function renderShownOnce(input: {
  signedIn: SignedIn;
  ctx: PageContext;
  title: string;
  secrets: readonly { readonly label: string; readonly value: string }[];
  note: string;
  until?: Date | undefined;
  back?: string | undefined;
}): string {
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
