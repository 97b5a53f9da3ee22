import type { MerchantHome } from '../../app/dashboard/merchantHome.ts';
import { type PaidTotal, WAITING_KINDS, type WaitingKind } from '../../app/dashboard/ports.ts';
import type { ListedPayment } from '../../app/payments/listPayments.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { receivedBaseUnitsShown } from '../../domain/webhookEvent.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { priceText, referenceLink, statusBadge, usdcText, usdcWithUnit } from './dashboardFormat.ts';
import { type PageContext, type SignedInPageInput, signedInPage, time } from './renderDashboard.ts';
import { revenueChart } from './revenueChart.ts';

/** Each waiting kind's line on the home page, counted. */
function waitingLine(ctx: PageContext, kind: WaitingKind, count: number): SafeHtml {
  const h = ctx.t.home;
  const message = {
    payout_delayed: h.payoutsDelayed,
    refund_awaiting_funds: h.refundsAwaitingFunds,
    webhook_failing: h.webhooksFailing,
  }[kind];
  return format(message, { count });
}

/** The payments list of what waits of one kind (the home page's links). */
export const waitingPath = (kind: WaitingKind) => `/dashboard/payments?waiting=${kind}`;

function figure(ctx: PageContext, label: string, total: PaidTotal): SafeHtml {
  return html`<div class="card"><h2>${label}</h2><p class="figure">${usdcWithUnit(ctx, total.receivedBaseUnits)}</p><p class="muted">${format(ctx.t.home.payments, { count: total.count })}</p></div>`;
}

/**
 * A merchant's home: today's and this month's paid totals (UTC, live payments), what waits (each line a link to
 * its payments), and the newest payments.
 */
export function renderHome(
  input: SignedInPageInput & {
    merchant: Merchant | undefined;
    home: MerchantHome;
    newest: readonly ListedPayment[];
    /** What refunds sent back, by payment id (shown as partly or fully refunded). */
    refunded: ReadonlyMap<string, bigint>;
  },
): string {
  const { ctx, home } = input;
  const h = ctx.t.home;
  const l = ctx.t.list;
  const waits = WAITING_KINDS.filter((kind) => home.waiting[kind].length > 0);
  const rows = input.newest.map(
    ({ payment, state }) => html`<tr>
  <td>${time(payment.createdAt)}</td>
  <td>${referenceLink(payment)}</td>
  <td>${statusBadge(ctx, state, input.refunded.get(payment.id) ?? 0n)}</td>
  <td class="amount">${priceText(ctx, payment.quote.amount)}</td>
  <td class="amount">${usdcText(ctx, receivedBaseUnitsShown(state))}</td>
  <td>${payment.orderId ?? ''}</td>
</tr>`,
  );
  const body = html`<h1>${h.title}${input.merchant ? html` · ${input.merchant.name}` : null}</h1>
<section class="figures" aria-label="${h.title}">
  ${figure(ctx, h.paidToday, home.today)}
  ${figure(ctx, h.paidMonth, home.month)}
</section>
<p class="muted">${h.utc}</p>
${revenueChart(ctx, home.days)}
<h2>${h.waits}</h2>
${
  waits.length === 0
    ? html`<p class="muted" role="status">${h.nothingWaits}</p>`
    : html`<ul class="waiting">${waits.map(
        (kind) =>
          html`<li><a href="${waitingPath(kind)}">${waitingLine(ctx, kind, home.waiting[kind].length)}</a></li>`,
      )}</ul>`
}
<h2>${h.newest}</h2>
${
  rows.length === 0
    ? html`<div class="empty-state"><p>${h.noPayment}</p><p><a class="button" href="/dashboard/payments/new">${ctx.t.chart.newPayment}</a></p></div>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${h.newest}"><table>
  <thead><tr><th scope="col">${l.created}</th><th scope="col">${l.payment}</th><th scope="col">${l.status}</th><th scope="col">${l.price}</th><th scope="col">${l.usdcReceived}</th><th scope="col">${l.order}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}
<p><a href="/dashboard/payments">${h.allPayments}</a></p>
<p><a href="/dashboard/brand">${ctx.t.brand.homeLink}</a></p>`;
  return signedInPage(input.signedIn, ctx, h.title, body);
}
