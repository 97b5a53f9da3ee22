import { describe, expect, it } from 'vitest';
import { testPayment, testTransfer } from '../../../test/fakes/paymentFixture.ts';
import { findCurrency } from '../../domain/currencies.ts';
import { NO_PAYOUT_YET } from '../../domain/payout.ts';
import { quote } from '../../domain/quote.ts';
import type { Refund } from '../../domain/refund.ts';
import type { RefundRecord } from '../refunds/ports.ts';
import { receiptDocument } from './receiptDocument.ts';

const paidAt = new Date('2026-01-01T00:30:00.000Z');
const shop = { name: 'Café Łódź' };

/** A refund whose deposit address sent `sent` on to the customer (the refund's own fields are not read). */
function refundThatSent(n: number, sent: bigint | null): RefundRecord {
  const refund = { id: `refund-${n}` } as Refund;
  if (sent === null) return { refund, deposit: undefined };
  const deposit = testPayment(100 + n, {
    kind: 'refund',
    amountReceivedBaseUnits: sent,
    payout: {
      ...NO_PAYOUT_YET,
      merchantPaidBaseUnits: sent,
      txHash: sent > 0n ? `0x${String(n).repeat(64)}` : null,
      sentAt: sent > 0n ? paidAt : null,
    },
  });
  return { refund, deposit };
}

describe('receiptDocument', () => {
  it('lists the transfers that count, oldest first: final ones, and an orphaned one a mint carried home', () => {
    const payment = testPayment(1, { status: 'paid', paidAt, amountReceivedBaseUnits: 12_500_001n });
    const transfers = [
      testTransfer(payment, 9, { amountBaseUnits: 2_500_001n, orphaned: true, carriedHome: 'minted' }),
      testTransfer(payment, 8, { amountBaseUnits: 7n, orphaned: true }),
      testTransfer(payment, 7, { amountBaseUnits: 5n, final: false }),
      testTransfer(payment, 3, { amountBaseUnits: 10_000_000n }),
    ];
    const document = receiptDocument(payment, shop, transfers, []);
    expect(document.transfers.map((t) => [t.txHash, t.amount])).toEqual([
      [transfers[3]!.txHash, '10.00'],
      [transfers[0]!.txHash, '2.500001'],
    ]);
    expect(document).toMatchObject({
      merchantName: 'Café Łódź',
      reference: payment.reference,
      paymentId: payment.id,
      paidAt,
      amount: '10.00',
      currency: 'USDC',
      usdcPrice: '10.00',
      usdcPaid: '12.500001',
      rate: null,
    });
  });

  it('states a fiat price in its currency with the locked rate, and never the commission', () => {
    const eur = findCurrency('EUR')!;
    const payment = testPayment(2, {
      status: 'paid',
      paidAt,
      quote: quote({ currency: eur, minorUnits: 1_000n }, { units: 108_000_000n, scale: 8 }, 100),
      amountReceivedBaseUnits: 10_800_000n,
    });
    const document = receiptDocument(payment, shop, [], []);
    expect(document).toMatchObject({ amount: '10.00', currency: 'EUR', rate: '1.08', usdcPrice: '10.80' });
    expect(JSON.stringify(document, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).not.toMatch(
      /commission|108000|0\.108/i,
    );
  });

  it('lists the refunds that sent the customer something, with their transaction and date', () => {
    const payment = testPayment(3, { status: 'paid', paidAt, amountReceivedBaseUnits: 12_000_000n });
    const refunds = [refundThatSent(1, 1_500_000n), refundThatSent(2, null), refundThatSent(3, 0n)];
    expect(receiptDocument(payment, shop, [], refunds).refunds).toEqual([
      { amount: '1.50', txHash: `0x${'1'.repeat(64)}`, at: paidAt },
    ]);
  });
});
