import type { TransferRecord } from '../../app/chain/ports.ts';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { MAX_REQUESTS_PER_PAYMENT, type RequestRefusal } from '../../app/email/paymentRequests.ts';
import { attemptAnswer, type WebhookEventWithAttempts } from '../../app/webhooks/listWebhookEvents.ts';
import { formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PaymentState } from '../../domain/paymentStatus.ts';
import type { PayoutStatus } from '../../domain/payout.ts';
import { countsAgainstPayment, overpaidBaseUnits, refundableBaseUnits } from '../../domain/refund.ts';
import { receivedBaseUnitsShown } from '../../domain/webhookEvent.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import type { refundResponse } from '../web/refundPresenter.ts';
import { priceText, refundBadge, statusBadge, usdcText, usdcWithUnit } from './dashboardFormat.ts';
import type { SignedInPageInput } from './renderDashboard.ts';
import { csrfField, type PageContext, problemBox, signedInPage, time } from './renderDashboard.ts';
import { endpointDeliveryRows } from './renderEndpointDeliveries.ts';

/** A refund as the payment page shows it: the API's fields, and what funding it still needs. */
export type RefundView = ReturnType<typeof refundResponse> & {
  readonly fundingQr?: string | undefined;
  readonly amountBaseUnits: bigint;
  /** What is still to send to its deposit address, in base units, while it awaits funds. */
  readonly fundingBaseUnits?: bigint | undefined;
  /** When all it asked for arrived (final) at its deposit address, and when it went on to the customer. */
  readonly fundedAt?: Date | null | undefined;
  readonly sentAt?: Date | null | undefined;
  /** What went on to the customer, in base units. */
  readonly sentBaseUnits?: bigint | undefined;
};

/** A transaction hash, linked to the chain's explorer when it has one. */
function txLink(txHash: string, explorerUrl: string | undefined): SafeHtml {
  return explorerUrl
    ? html`<a href="${explorerUrl.replace(/\/+$/, '')}/tx/${txHash}" rel="noopener noreferrer"><code>${txHash}</code></a>`
    : html`<code>${txHash}</code>`;
}

/** What the payment page offers of its request e-mail: the button, and what came of the last press. */
export interface RequestOffer {
  /** The customer's address, while the request can be sent (a pending payment, e-mail set up); else null. */
  readonly to: string | null;
  readonly outcome: 'sent' | RequestRefusal | undefined;
}

interface PaymentPageInput extends SignedInPageInput {
  payment: Payment;
  state: PaymentState<TransferRecord>;
  transfers: readonly TransferRecord[];
  webhooks: readonly WebhookEventWithAttempts[];
  refunds: readonly RefundView[];
  refundsEnabled: boolean;
  refundForm?: { problem: string; amount: string } | undefined;
  /** The home chain's explorer: the payout's and the refunds' transactions are there. */
  explorerUrl: string | undefined;
  /** Each chain's explorer: a customer's transfer links to the one of the chain it was sent on (decision 0039). */
  explorerOf: (chainId: number) => string | undefined;
  /** Where the merchant's money is, as the API's payout_status says (null: nothing to pay out). */
  payoutStatus: PayoutStatus | null;
  /** The request e-mail's button and what came of it; absent: no such section. */
  request?: RequestOffer | undefined;
}

/**
 * A payment's page: its facts, its timeline, the transfers seen, its refunds (with the form that starts one)
 * and its webhooks, each section a function below.
 */
export function renderPayment(input: PaymentPageInput): string {
  const { payment, signedIn, ctx } = input;
  const p = ctx.t.payment;
  const refunded = input.refunds.reduce((sum, refund) => sum + (refund.sentBaseUnits ?? 0n), 0n);
  const body = html`${paymentFacts(ctx, payment, input.state, input.payoutStatus, refunded)}
${input.request ? requestSection(ctx, signedIn, payment, input.request) : null}
<h2>${p.timeline}</h2>
<ol class="timeline">${timeline(input).map(
    (entry) => html`<li>${entry.at ? time(entry.at) : html`<span class="muted">—</span>`} ${entry.what}</li>`,
  )}</ol>
${transfersSection(ctx, input.transfers, input.explorerOf)}
${input.refundsEnabled ? refundsSection(input) : null}
<h2>${p.webhooks}</h2>
${input.webhooks.length === 0 ? html`<p class="muted">${p.noWebhook}</p>` : webhookList(ctx, signedIn, input.webhooks)}`;
  return signedInPage(signedIn, ctx, `${p.title} ${payment.reference}`, body);
}

/** The title, and the payment's facts as the list shows them and more: where to pay, when paid, the payout. */
function paymentFacts(
  ctx: PageContext,
  payment: Payment,
  state: PaymentState<TransferRecord>,
  payoutStatus: PayoutStatus | null,
  refundedBaseUnits: bigint,
): SafeHtml {
  const { t } = ctx;
  const usdc = (baseUnits: bigint) => usdcWithUnit(ctx, baseUnits);
  const p = t.payment;
  const l = t.list;
  return html`<h1>${p.title} <span class="reference">${payment.reference}</span>${payment.mode === 'test' ? html` <span class="badge">${l.testMode}</span>` : null}</h1>
<div class="card">
<dl class="facts">
  <dt>${l.status}</dt><dd>${statusBadge(ctx, state, refundedBaseUnits)}</dd>
  <dt>${l.created}</dt><dd>${time(payment.createdAt)}</dd>
  <dt>${l.price}</dt><dd>${priceText(ctx, payment.quote.amount)}</dd>
  <dt>${l.usdcDue}</dt><dd>${usdcText(ctx, payment.quote.usdcBaseUnits)}</dd>
  <dt>${l.usdcReceived}</dt><dd>${usdcText(ctx, receivedBaseUnitsShown(state))}</dd>
  ${refundedBaseUnits > 0n ? html`<dt>${p.refunded}</dt><dd>${usdc(refundedBaseUnits)}</dd>` : null}
  <dt>${p.depositAddress}</dt><dd><code>${payment.deposit?.depositAddress ?? ''}</code></dd>
  <dt>${l.order}</dt><dd>${payment.orderId ?? ''}</dd>
  ${payment.customerEmail ? html`<dt>${t.reference.customer}</dt><dd>${payment.customerEmail}</dd>` : null}
  <dt>${t.reference.apiId}</dt><dd><code>${payment.id}</code></dd>
  <dt>${p.paid}</dt><dd>${state.paidAt ? time(state.paidAt) : '—'}</dd>
  <dt>${p.payout}</dt><dd>${payment.payout.txHash ? format(p.payoutValue, { merchant: usdc(payment.payout.merchantPaidBaseUnits), commission: usdc(payment.payout.treasuryPaidBaseUnits) }) : payoutStatus ? t.payoutStatus[payoutStatus] : '—'}</dd>
</dl>
</div>`;
}

/** "Send the request again": the payment's link by e-mail to its customer, while it can be paid. */
function requestSection(
  ctx: PageContext,
  signedIn: SignedIn,
  payment: Payment,
  offer: RequestOffer,
): SafeHtml {
  const p = ctx.t.payment;
  const outcomes = {
    sent: p.requestSent,
    no_email: p.requestNoEmail,
    not_open: p.requestNotOpen,
    limit: p.requestLimit,
  } as const;
  const said =
    offer.outcome &&
    format(outcomes[offer.outcome], {
      email: payment.customerEmail ?? '',
      count: String(MAX_REQUESTS_PER_PAYMENT),
    });
  return html`<div class="card" id="request">
${said ? html`<p class="${offer.outcome === 'sent' ? 'notice' : 'error'}" role="${offer.outcome === 'sent' ? 'status' : 'alert'}">${said}</p>` : null}
${
  offer.to === null
    ? null
    : html`<form method="post" action="/dashboard/payments/${payment.id}/request">
  ${csrfField(signedIn)}
  <button type="submit">${format(p.requestButton, { email: offer.to })}</button>
</form>`
}
</div>`;
}

/** A transfer's finality in words: final, still confirming, or orphaned by a reorg. */
function finality(ctx: PageContext, transfer: TransferRecord): string {
  const p = ctx.t.payment;
  return transfer.orphaned ? p.orphaned : transfer.final ? p.final : p.confirming;
}

function transfersSection(
  ctx: PageContext,
  transfers: readonly TransferRecord[],
  explorerOf: (chainId: number) => string | undefined,
): SafeHtml {
  const p = ctx.t.payment;
  const rows = transfers.map(
    (t) =>
      html`<tr><td>${txLink(t.txHash, explorerOf(t.chainId))}</td><td class="amount">${usdcText(ctx, t.amountBaseUnits)}</td><td>${finality(ctx, t)}</td></tr>`,
  );
  return html`<h2>${p.transfers}</h2>
${
  transfers.length === 0
    ? html`<p class="muted">${p.noTransfer}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${p.transfers}"><table><thead><tr><th scope="col">${p.transaction}</th><th scope="col">${p.usdc}</th><th scope="col">${p.finality}</th></tr></thead><tbody>${rows}</tbody></table></div>`
}`;
}

/** The payment's refunds, and for its merchant the form that starts one while anything is left to refund. */
function refundsSection(input: PaymentPageInput): SafeHtml {
  const { ctx, signedIn } = input;
  const r = ctx.t.refunds;
  return html`<h2 id="refunds">${r.title}</h2>
${input.refunds.length === 0 ? html`<p class="muted">${r.none}</p>` : html`<ul class="refunds">${input.refunds.map((refund) => refundItem(ctx, signedIn, refund, input.explorerUrl))}</ul>`}
${signedIn.user.role === 'merchant' ? refundForm(input) : null}`;
}

/**
 * A full or partial refund, pre-filled with all that is left, and a one-click refund of the overpaid part;
 * none once nothing is left.
 */
function refundForm(input: PaymentPageInput): SafeHtml | null {
  const { payment, state, signedIn } = input;
  const r = input.ctx.t.refunds;
  const usdc = (baseUnits: bigint) => usdcWithUnit(input.ctx, baseUnits);
  const received = state.amountReceivedBaseUnits;
  // What is left: received less every refund that counts (as the refund use case reckons it).
  const counted = input.refunds
    .filter((refund) => countsAgainstPayment(refund.status))
    .map((refund) => refund.amountBaseUnits);
  const left = refundableBaseUnits(received, counted);
  if (left <= 0n) return null;
  const overpaidLeft = refundableBaseUnits(overpaidBaseUnits(payment, state), counted);
  return html`<form class="stack card" method="post" action="/dashboard/payments/${payment.id}/refunds">
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
}`;
}

/** One step of a payment's life, in the order it happened. */
interface TimelineEntry {
  readonly at: Date | null;
  readonly what: SafeHtml;
}

function timeline(input: PaymentPageInput): TimelineEntry[] {
  const { ctx, payment, state, transfers, explorerUrl, explorerOf } = input;
  const p = ctx.t.payment;
  const usdc = (baseUnits: bigint) => usdcWithUnit(ctx, baseUnits);
  const price = payment.quote.amount;
  const entries: TimelineEntry[] = [
    {
      at: payment.createdAt,
      what: html`${format(p.createdDue, { due: usdc(payment.quote.usdcBaseUnits) })}${price.currency.code === 'USDC' ? null : ` (${priceText(ctx, price)})`}`,
    },
  ];
  for (const t of transfers)
    entries.push({
      at: t.blockTimestamp,
      what: html`${format(p.transferSeen, {
        amount: usdc(t.amountBaseUnits),
        finality: finality(ctx, t),
      })} ${txLink(t.txHash, explorerOf(t.chainId))}`,
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
  for (const refund of input.refunds) entries.push(...refundSteps(ctx, refund, explorerUrl));
  const order = (entry: TimelineEntry) => entry.at?.getTime() ?? Number.MAX_SAFE_INTEGER;
  return entries.sort((a, b) => order(a) - order(b));
}

/** A refund's steps on its payment's timeline: asked for, funded, sent to the customer (with its transaction). */
function refundSteps(ctx: PageContext, refund: RefundView, explorerUrl: string | undefined): TimelineEntry[] {
  const p = ctx.t.payment;
  const amount = usdcWithUnit(ctx, refund.amountBaseUnits);
  const steps: TimelineEntry[] = [
    {
      at: new Date(refund.created_at),
      what: html`${format(p.refundRequested, { amount })} ${refundBadge(ctx, refund.status)} <a href="#refund-${refund.refund_id}">${p.seeRefund}</a>`,
    },
  ];
  if (refund.fundedAt) steps.push({ at: refund.fundedAt, what: format(p.refundFunded, { amount }) });
  if (refund.txid)
    steps.push({
      at: refund.sentAt ?? null,
      what: html`${format(p.refundSent, { amount: usdcWithUnit(ctx, refund.sentBaseUnits ?? refund.amountBaseUnits) })} ${txLink(refund.txid, explorerUrl)}`,
    });
  return steps;
}

function refundItem(
  ctx: PageContext,
  signedIn: SignedIn,
  refund: RefundView,
  explorerUrl: string | undefined,
): SafeHtml {
  const r = ctx.t.refunds;
  const open = refund.status === 'awaiting_address' || refund.status === 'awaiting_funds';
  return html`<li class="card" id="refund-${refund.refund_id}">
  <p><strong>${usdcWithUnit(ctx, refund.amountBaseUnits)}</strong> · ${refundBadge(ctx, refund.status)} · ${time(new Date(refund.created_at))}${refund.reason ? html` · ${refund.reason}` : null}</p>
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
      ? html`<form class="danger-inline" method="post" action="/dashboard/refunds/${refund.refund_id}/cancel" data-confirm="${r.cancelConfirm}">${csrfField(signedIn)}<input type="hidden" name="mode" value="${refund.livemode ? 'live' : 'test'}"><label class="choice"><input type="checkbox" name="confirmed" value="yes" required> ${r.cancelConfirmBox}</label><button type="submit" class="danger">${r.cancel}</button></form>`
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

/**
 * The payment's webhook events folded into one table: a row per event with its last attempt and its delivery,
 * and (for the merchant) one "Send again" per event; every attempt stays one click away, without a script.
 */
function webhookList(
  ctx: PageContext,
  signedIn: SignedIn,
  webhooks: readonly WebhookEventWithAttempts[],
): SafeHtml {
  const p = ctx.t.payment;
  const isMerchant = signedIn.user.role === 'merchant';
  const rows = webhooks.map((entry) => {
    const { event, attempts } = entry;
    const last = attempts.at(-1);
    const endpoints = endpointDeliveryRows(
      ctx,
      entry,
      isMerchant ? ['url', 'empty', 'attempt', 'status', 'empty'] : ['url', 'empty', 'attempt', 'status'],
    );
    return html`<tr>
  <td><code>${event.type}</code></td>
  <td>${time(event.createdAt)}</td>
  <td>${
    last
      ? html`<details><summary>${time(last.startedAt)} · ${attemptAnswer(last) ?? p.noAnswer}</summary><ol class="attempts">${attempts.map(
          (a) =>
            html`<li>${time(a.startedAt)} · ${attemptAnswer(a) ?? p.noAnswer}${a.durationMs === null ? '' : ` · ${a.durationMs} ms`} · ${a.outcome ?? p.inFlight}${a.responseBody ? html` · <code>${a.responseBody.slice(0, 200)}</code>` : null}</li>`,
        )}</ol></details>`
      : html`<span class="muted">${p.noAttempt}</span>`
  }</td>
  <td><span class="status status-delivery-${event.deliveryStatus}">${ctx.t.deliveryStatus[event.deliveryStatus]}</span></td>
  ${
    isMerchant
      ? html`<td><form method="post" action="/dashboard/webhooks/${event.id}/resend">${csrfField(signedIn)}<button type="submit" class="link">${p.sendAgain}<span class="visually-hidden"> ${event.type}</span></button></form></td>`
      : null
  }
</tr>${endpoints}`;
  });
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${p.webhooks}"><table class="webhooks">
<thead><tr><th scope="col">${p.event}</th><th scope="col">${p.created}</th><th scope="col">${p.lastAttempt}</th><th scope="col">${p.delivery}</th>${isMerchant ? html`<th scope="col"><span class="visually-hidden">${p.action}</span></th>` : null}</tr></thead>
<tbody>${rows}</tbody></table></div>`;
}
