import type { KeyMode } from '../../domain/credentials.ts';
import { type CsvCell, csvHeader, csvRecord, number, text } from '../../domain/csv.ts';
import { ValidationError } from '../../domain/errors.ts';
import { commissionOf, formatMoney, formatUsdc } from '../../domain/money.ts';
import { homeChainTxid, type Payment, payoutStateOf } from '../../domain/payment.ts';
import type { PayoutPolicy, PayoutStatus } from '../../domain/payout.ts';
import { withPaymentId } from '../../domain/redirectUrl.ts';
import { overpaidBaseUnits } from '../../domain/refund.ts';
import { receivedBaseUnitsShown } from '../../domain/webhookEvent.ts';
import type { Ledger } from '../chain/ports.ts';
import type { RefundStore } from '../refunds/ports.ts';
import type { CreatedRange, KeysetPosition, MerchantKeysetPage } from '../shared/keysetPage.ts';
import type { Clock } from '../shared/ports.ts';
import { currentState } from './getPaymentStatus.ts';
import type { PaymentStore } from './ports.ts';

/** Rows read per query: memory stays one page, however many payments the range holds. */
export const EXPORT_PAGE_ROWS = 1_000;

const EXPORT_COLUMNS = [
  'payment_id',
  'created_at',
  'status',
  'amount',
  'currency',
  'usdc_amount',
  'amount_received',
  'amount_overpaid',
  'paid_at',
  'txid',
  'payout_txid',
  'order_id',
  'livemode',
  'link_id',
  'success_url',
  'cancel_url',
  'metadata',
  'refunded',
  'commission',
  'payout_amount',
  'payout_status',
] as const;

/** `from` (inclusive) and `to` (exclusive), ISO 8601 date-times; either may be left out. */
export function exportRange(
  from: string | undefined,
  to: string | undefined,
): { from: Date | undefined; to: Date | undefined } {
  const parse = (field: string, value: string | undefined) => {
    if (value === undefined || value === '') return undefined;
    const match = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/.exec(
      value,
    );
    const date = match ? new Date(value) : undefined;
    // A day that does not exist (2026-02-30) would roll over into the next month: refused, not guessed.
    const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
    const calendar = new Date(Date.UTC(year, month - 1, day));
    const realDay = calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
    if (!date || Number.isNaN(date.getTime()) || !realDay)
      throw new ValidationError(
        field,
        'must be a date (2026-01-31) or an ISO 8601 date-time (2026-01-31T00:00:00Z)',
      );
    return date;
  };
  const range = { from: parse('from', from), to: parse('to', to) };
  if (range.from && range.to && range.to <= range.from) throw new ValidationError('to', 'must be after from');
  return range;
}

/** What the export reads beside the payments: each one's transfers, refunds and payout policy (decision 0026). */
export interface ExportPaymentsDeps {
  readonly payments: Pick<PaymentStore, 'listForMerchant'>;
  /** The transfers of a `processing` payment: its `amount_received` is what was seen, as the status says. */
  readonly ledger: Pick<Ledger, 'listTransfers'>;
  /** Absent: nothing is ever refunded (the column says 0). */
  readonly refunds?: Pick<RefundStore, 'sentByPayment'> | undefined;
  readonly payoutPolicy: PayoutPolicy;
  readonly clock: Clock;
}

/** A payment with what its row shows beyond its own columns. */
interface ExportRow {
  readonly payment: Payment;
  readonly receivedBaseUnits: bigint;
  readonly refundedBaseUnits: bigint;
  readonly payoutStatus: PayoutStatus | null;
}

/**
 * A merchant's payments of one mode created in a range, as CSV, newest first, produced a page at a time so that a
 * million rows never sit in memory: a consumer that reads slowly (a slow download) holds the next query back.
 * Amounts are exact decimals; the status is the stored one, which the worker keeps current (at most one pass
 * behind the clock). `amount_received` is the status endpoint's: every transfer seen until paid (so a
 * `processing` payment shows what arrived), then the final ones. Each page costs one read of its refunds and
 * one read of transfers per `processing` payment on it.
 */
export function exportPaymentsCsv(
  deps: ExportPaymentsDeps,
  merchantId: string,
  mode: KeyMode,
  range: ExportRange,
): AsyncGenerator<string> {
  return keysetCsv(
    EXPORT_COLUMNS,
    { merchantId, mode, range },
    async (page) => exportRows(deps, await deps.payments.listForMerchant(page)),
    ({ payment: p, receivedBaseUnits, refundedBaseUnits, payoutStatus }) => {
      const paid = p.status === 'paid';
      const commission = commissionOf(receivedBaseUnits, p.quote.commissionBps);
      return [
        text(p.id),
        text(p.createdAt.toISOString()),
        text(p.status),
        number(formatMoney(p.quote.amount)),
        text(p.quote.amount.currency.code),
        number(formatUsdc(p.quote.usdcBaseUnits)),
        number(formatUsdc(receivedBaseUnits)),
        number(formatUsdc(overpaidBaseUnits(p))),
        text(p.paidAt?.toISOString()),
        // The status's txid: the home chain's transfer, empty for one sent on a source chain (decision 0039).
        text(homeChainTxid(p)),
        text(p.payout.txHash),
        text(p.orderId),
        text(p.mode === 'live' ? 'true' : 'false'),
        text(p.linkId),
        text(p.successUrl && withPaymentId(p.successUrl, p.id)),
        text(p.cancelUrl && withPaymentId(p.cancelUrl, p.id)),
        // One JSON column: a spreadsheet keeps it whole, a script parses it.
        text(p.metadata === null ? null : JSON.stringify(p.metadata)),
        number(formatUsdc(refundedBaseUnits)),
        // What is the merchant's and what the commission is, of what a paid payment received; empty before.
        paid ? number(formatUsdc(commission)) : text(null),
        paid ? number(formatUsdc(receivedBaseUnits - commission)) : text(null),
        text(payoutStatus),
      ];
    },
    (row) => row.payment,
  );
}

async function exportRows(deps: ExportPaymentsDeps, payments: readonly Payment[]): Promise<ExportRow[]> {
  const now = deps.clock.now();
  const received = await Promise.all(
    payments.map(async (p) =>
      p.status === 'processing'
        ? receivedBaseUnitsShown(await currentState(deps, p))
        : p.amountReceivedBaseUnits,
    ),
  );
  const refunded = deps.refunds
    ? await deps.refunds.sentByPayment(
        payments.filter((p) => p.amountReceivedBaseUnits > 0n).map((p) => p.id),
      )
    : new Map<string, bigint>();
  return payments.map((payment, i) => ({
    payment,
    receivedBaseUnits: received[i]!,
    refundedBaseUnits: refunded.get(payment.id) ?? 0n,
    payoutStatus: payoutStateOf(
      payment,
      { status: payment.status, amountReceivedBaseUnits: payment.amountReceivedBaseUnits },
      deps.payoutPolicy,
      now,
    ).status,
  }));
}

/** `from` (inclusive) and `to` (exclusive), as `exportRange` gives them. */
export type ExportRange = { readonly from?: Date | undefined; readonly to?: Date | undefined };

/** One page of an export, as both listings (`PaymentListQuery`, `RefundListQuery`) take it. */
export type ExportPageQuery = MerchantKeysetPage & CreatedRange;

/**
 * CSV of a merchant's newest-first keyset listing of one mode in a range, read EXPORT_PAGE_ROWS at a time (the
 * payments' and the refunds' exports): one page in memory whatever the range, and a consumer that reads slowly
 * holds the next query back.
 */
export async function* keysetCsv<T>(
  columns: readonly string[],
  scope: { readonly merchantId: string; readonly mode: KeyMode; readonly range: ExportRange },
  readPage: (page: ExportPageQuery) => Promise<readonly T[]>,
  record: (row: T) => CsvCell[],
  positionOf: (row: T) => KeysetPosition,
): AsyncGenerator<string> {
  yield csvHeader(columns);
  let after: KeysetPosition | undefined;
  for (;;) {
    const page = await readPage({
      merchantId: scope.merchantId,
      mode: scope.mode,
      createdFrom: scope.range.from,
      createdBefore: scope.range.to,
      after,
      limit: EXPORT_PAGE_ROWS,
    });
    let chunk = '';
    for (const row of page) chunk += csvRecord(record(row));
    if (chunk) yield chunk;
    const last = page.at(-1);
    if (page.length < EXPORT_PAGE_ROWS || last === undefined) return;
    const { createdAt, id } = positionOf(last);
    after = { createdAt, id };
  }
}
