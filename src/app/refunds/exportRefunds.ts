import type { KeyMode } from '../../domain/credentials.ts';
import { number, text } from '../../domain/csv.ts';
import { formatUsdc } from '../../domain/money.ts';
import { deriveRefundStatus, refundFundingOf } from '../../domain/refund.ts';
import { type ExportRange, keysetCsv } from '../payments/exportPayments.ts';
import type { Clock } from '../shared/ports.ts';
import type { RefundStore } from './ports.ts';

const REFUND_EXPORT_COLUMNS = [
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
export function exportRefundsCsv(
  deps: { readonly refunds: Pick<RefundStore, 'listForMerchant'>; readonly clock: Clock },
  merchantId: string,
  mode: KeyMode,
  range: ExportRange,
): AsyncGenerator<string> {
  // Each page's statuses are derived at the moment it is read.
  let now = deps.clock.now();
  return keysetCsv(
    REFUND_EXPORT_COLUMNS,
    { merchantId, mode, range },
    (page) => {
      now = deps.clock.now();
      return deps.refunds.listForMerchant(page);
    },
    ({ refund, deposit }) => {
      const funding = refundFundingOf(deposit);
      return [
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
      ];
    },
    ({ refund }) => refund,
  );
}
