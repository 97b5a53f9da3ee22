import type { KeyMode } from '../../domain/credentials.ts';
import { csvHeader, csvRecord, number, text } from '../../domain/csv.ts';
import { formatUsdc } from '../../domain/money.ts';
import { deriveRefundStatus, refundFundingOf } from '../../domain/refund.ts';
import { EXPORT_PAGE_ROWS } from '../exportPayments.ts';
import type { Clock } from '../ports.ts';
import type { RefundStore } from './ports.ts';

export const REFUND_EXPORT_COLUMNS = [
  'refund_id',
  'created_at',
  'payment_id',
  'status',
  'amount',
  'currency',
  'requested_amount',
  'requested_currency',
  'amount_funded',
  'amount_sent',
  'address',
  'txid',
  'reason',
  'livemode',
] as const;

/**
 * A merchant's refunds of one mode created in a range, as CSV, newest first, a page at a time like the payments'
 * export (exportPayments.ts): exact decimals, RFC 4180, formula-safe text. The status is derived now, as the
 * refund endpoint shows it.
 */
export async function* exportRefundsCsv(
  deps: { readonly refunds: Pick<RefundStore, 'listForMerchant'>; readonly clock: Clock },
  merchantId: string,
  mode: KeyMode,
  range: { readonly from?: Date | undefined; readonly to?: Date | undefined },
): AsyncGenerator<string> {
  yield csvHeader(REFUND_EXPORT_COLUMNS);
  let after: { createdAt: Date; id: string } | undefined;
  for (;;) {
    const page = await deps.refunds.listForMerchant({
      merchantId,
      mode,
      createdFrom: range.from,
      createdBefore: range.to,
      after,
      limit: EXPORT_PAGE_ROWS,
    });
    const now = deps.clock.now();
    let chunk = '';
    for (const { refund, deposit } of page) {
      const funding = refundFundingOf(deposit);
      chunk += csvRecord([
        text(refund.id),
        text(refund.createdAt.toISOString()),
        text(refund.paymentId),
        text(deriveRefundStatus(refund, funding, now)),
        number(formatUsdc(refund.amountBaseUnits)),
        text('USDC'),
        text(refund.requestedAmount), // a decimal, or "overpaid"
        text(refund.requestedCurrency),
        number(formatUsdc(funding.fundedBaseUnits)),
        number(formatUsdc(funding.sentBaseUnits)),
        text(refund.address),
        text(funding.txid),
        text(refund.reason),
        text(refund.mode === 'live' ? 'true' : 'false'),
      ]);
    }
    if (chunk) yield chunk;
    const last = page.at(-1);
    if (page.length < EXPORT_PAGE_ROWS || !last) return;
    after = { createdAt: last.refund.createdAt, id: last.refund.id };
  }
}
