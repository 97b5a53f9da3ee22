import { formatMoney, formatUsdc, type Money } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PaymentState } from '../../domain/paymentStatus.ts';
import type { RefundStatus } from '../../domain/refund.ts';
import { html, type SafeHtml } from '../web/html.ts';
import { formatPriceAmount, formatUsdcAmount } from '../web/localeFormat.ts';
import type { PageContext } from './renderDashboard.ts';

/**
 * Amounts and statuses as every dashboard page shows them: amounts in the reader's language ("49,90" in French,
 * from the exact decimal string, never a float), statuses as coloured badges whose words always say the status
 * (the colour only repeats it, for whoever reads colours; dashboardWidgets.css has one per status).
 */

/** A USDC amount in base units, written the page language's way: "1 234,50" in French. */
export const usdcText = (ctx: PageContext, baseUnits: bigint): string =>
  formatUsdcAmount(formatUsdc(baseUnits), ctx.lang);

/** The same with its unit: "12,50 USDC". */
export const usdcWithUnit = (ctx: PageContext, baseUnits: bigint): string =>
  `${usdcText(ctx, baseUnits)} USDC`;

/** A price in its currency's precision, with its code: "49,90 EUR". */
export const priceText = (ctx: PageContext, money: Money): string =>
  `${formatPriceAmount(formatMoney(money), ctx.lang)} ${money.currency.code}`;

/** How much of a payment its refunds sent back: none, part of what arrived, or all of it. */
export type RefundedShare = 'none' | 'partly' | 'fully';

/** A paid (or failed) payment whose refunds reached the customer reads as refunded, in part or in full. */
export function refundedShare(state: PaymentState, refundedBaseUnits: bigint): RefundedShare {
  if (refundedBaseUnits <= 0n || (state.status !== 'paid' && state.status !== 'failed')) return 'none';
  return refundedBaseUnits >= state.amountReceivedBaseUnits ? 'fully' : 'partly';
}

/** A payment's status badge: "paid", or "partly refunded" / "refunded" once refunds reached the customer. */
export function statusBadge(ctx: PageContext, state: PaymentState, refundedBaseUnits = 0n): SafeHtml {
  const share = refundedShare(state, refundedBaseUnits);
  if (share === 'fully') return html`<span class="status status-refunded">${ctx.t.refunded.fully}</span>`;
  if (share === 'partly')
    return html`<span class="status status-partly-refunded">${ctx.t.refunded.partly}</span>`;
  return html`<span class="status status-${state.status}">${ctx.t.status[state.status]}</span>`;
}

/** A refund's status badge, coloured as the payment statuses that mean the same (waiting, moving, done, stopped). */
export function refundBadge(ctx: PageContext, status: RefundStatus): SafeHtml {
  return html`<span class="status status-refund-${status}">${ctx.t.refundStatus[status]}</span>`;
}

/** A payment named by its short reference (decision 0053), linked to its page; the id stays in the page's URL. */
export const referenceLink = (payment: Pick<Payment, 'id' | 'reference'>): SafeHtml =>
  html`<a href="/dashboard/payments/${payment.id}" class="reference">${payment.reference}</a>`;
