import { describe, expect, it } from 'vitest';
import { findCurrency } from '../../domain/currencies.ts';
import type { Payment } from '../../domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY, NO_PAYOUT_YET } from '../../domain/payout.ts';
import { quote } from '../../domain/quote.ts';
import { EXPORT_PAGE_ROWS, exportPaymentsCsv, exportRange } from './exportPayments.ts';
import type { PaymentListQuery } from './ports.ts';

const START = Date.parse('2026-01-01T00:00:00.000Z');

function payment(i: number): Payment {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    kind: 'payment',
    merchantId: 'mch_1',
    mode: 'live',
    quote: quote({ currency: findCurrency('USDC')!, minorUnits: BigInt(i) }, { units: 1n, scale: 0 }, 0),
    createdAt: new Date(START + Math.floor(i / 2) * 1000), // two per second: ties broken by id
    payout: NO_PAYOUT_YET,
    amountReceivedBaseUnits: 0n,
    status: 'pending',
    paidAt: null,
    txid: null,
    txidChainId: null,
    deposit: null,
    orderId: null,
  } as unknown as Payment;
}

describe('payment export', () => {
  it('reads page by page with the keyset, never the whole range at once, and writes each payment once', async () => {
    const all = Array.from({ length: 2 * EXPORT_PAGE_ROWS + 7 }, (_, i) => payment(i));
    const newestFirst = [...all].sort((a, b) =>
      a.createdAt.getTime() === b.createdAt.getTime()
        ? b.id.localeCompare(a.id)
        : b.createdAt.getTime() - a.createdAt.getTime(),
    );
    const queries: PaymentListQuery[] = [];
    const store = {
      async listForMerchant(query: PaymentListQuery) {
        queries.push(query);
        const after = query.after;
        return newestFirst
          .filter(
            (p) =>
              !after ||
              p.createdAt < after.createdAt ||
              (p.createdAt.getTime() === after.createdAt.getTime() && p.id < after.id),
          )
          .slice(0, query.limit);
      },
    };
    let text = '';
    let chunks = 0;
    for await (const chunk of exportPaymentsCsv(
      {
        payments: store,
        ledger: { listTransfers: async () => [] },
        payoutPolicy: DEFAULT_PAYOUT_POLICY,
        clock: { now: () => new Date('2026-11-21T12:00:00Z') },
      },
      'mch_1',
      'live',
      {
        from: undefined,
        to: undefined,
      },
    )) {
      text += chunk;
      chunks++;
    }
    const ids = text
      .trimEnd()
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(',')[0]);
    expect(ids).toEqual(newestFirst.map((p) => p.id));
    expect(queries.map((q) => q.limit)).toEqual([EXPORT_PAGE_ROWS, EXPORT_PAGE_ROWS, EXPORT_PAGE_ROWS]);
    expect(chunks).toBe(4); // the header, then one chunk per page
  });

  it('reads a range as dates or date-times; refuses anything else', () => {
    expect(exportRange('2026-01-31', undefined)).toEqual({
      from: new Date('2026-01-31T00:00:00.000Z'),
      to: undefined,
    });
    expect(exportRange(undefined, '2026-02-01T10:00:00+02:00').to).toEqual(
      new Date('2026-02-01T08:00:00.000Z'),
    );
    expect(exportRange('', '')).toEqual({ from: undefined, to: undefined });
    expect(() => exportRange('31/01/2026', undefined)).toThrow(/from: must be a date/);
    expect(() => exportRange(undefined, '2026-02-30T00:00:00Z')).toThrow(/to: must be a date/);
    expect(() => exportRange('2026-01-31T10:00', undefined)).toThrow(/from/); // a time needs its zone
    expect(() => exportRange('2026-02-01', '2026-02-01')).toThrow(/to: must be after from/);
    expect(() => exportRange('2026-13-01', undefined)).toThrow(/from/);
  });
});
