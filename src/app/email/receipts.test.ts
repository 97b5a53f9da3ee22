import { describe, expect, it } from 'vitest';
import { testPayment, testTransfer } from '../../../test/fakes/paymentFixture.ts';
import type { EmailTemplate } from './ports.ts';
import { queueReceipt, type ReceiptData, receiptData } from './receipts.ts';

const TX = `0x${'ab'.repeat(32)}`;
const EXPLORERS: Record<number, string> = { 137: 'https://polygonscan.com', 8453: 'https://basescan.org' };
const settings = {
  checkoutUrl: 'https://pay.example',
  explorerUrl: (chainId: number) => EXPLORERS[chainId],
};
const token = 'A'.repeat(43);

describe('receiptData', () => {
  it('links each transaction to the explorer of the chain it was sent on (decision 0039)', () => {
    const paid = testPayment(1, { status: 'paid', amountReceivedBaseUnits: 15_000_000n });
    const onBase = testTransfer(paid, 1, { chainId: 8453, txHash: TX });
    const onPolygon = testTransfer(paid, 2, { chainId: 137, amountBaseUnits: 5_000_000n });
    expect(receiptData(paid, { name: 'Shop' }, settings, token, [onPolygon, onBase])).toMatchObject({
      usdcPaid: '15.00',
      transfers: [
        { amount: '10.00', chainId: 8453, txHash: TX, explorerTxUrl: `https://basescan.org/tx/${TX}` },
        {
          amount: '5.00',
          chainId: 137,
          txHash: onPolygon.txHash,
          explorerTxUrl: `https://polygonscan.com/tx/${onPolygon.txHash}`,
        },
      ],
      refunds: [],
    });
  });

  it('lists only the transfers that counted, and links none where the chain has no explorer (the sandbox)', () => {
    const paid = testPayment(1, { status: 'paid' });
    const counted = testTransfer(paid, 1, { chainId: 31338, txHash: TX });
    const orphaned = testTransfer(paid, 2, { chainId: 31338, orphaned: true });
    const pending = testTransfer(paid, 3, { chainId: 31338, final: false });
    expect(
      receiptData(paid, { name: 'Shop' }, settings, token, [counted, orphaned, pending]).transfers,
    ).toEqual([{ amount: '10.00', chainId: 31338, txHash: TX, explorerTxUrl: null }]);
  });
});

describe('queueReceipt', () => {
  it('queues none for a stored address no message can be sent to, instead of throwing in the watcher’s transaction', async () => {
    const inserted: string[] = [];
    const tx = {
      findMerchant: async () => testMerchantWithReceipts,
      insertReceipt: async (paymentId: string) => {
        inserted.push(paymentId);
        return true;
      },
    };
    const receiptSettings = {
      ...settings,
      messageDomain: 'pay.example',
      template: {} as EmailTemplate<ReceiptData>,
    };
    const paid = testPayment(1, { status: 'paid', txid: TX, customerEmail: 'a..b@example.com' });
    await expect(queueReceipt(tx as never, receiptSettings, paid, new Date(), 'paid')).resolves.toBe(false);
    expect(inserted).toEqual([]);
  });
});

describe("queueReceipt's top-up", () => {
  /** A template that writes down what it was given: the test reads the data back from the text. */
  const template: EmailTemplate<ReceiptData> = {
    kind: 'receipt',
    languages: ['en'],
    render: (data) => ({ subject: 'Receipt', text: JSON.stringify(data), html: '<p>Receipt</p>' }),
  };
  const receiptSettings = { ...settings, messageDomain: 'pay.example', template };
  const paid = testPayment(1, {
    status: 'paid',
    customerEmail: 'ann@example.com',
    amountReceivedBaseUnits: 15_000_000n,
  });
  const transfers = [
    testTransfer(paid, 1, { chainId: 137 }),
    testTransfer(paid, 2, { chainId: 137, amountBaseUnits: 5_000_000n }),
  ];

  function transaction(receiptToken: string | null, merchant = testMerchantWithReceipts) {
    const queued: { text: string }[] = [];
    return {
      queued,
      tx: {
        findMerchant: async () => merchant,
        findBrand: async () => undefined,
        insertReceipt: async () => {
          throw new Error('an update stores no new token');
        },
        listTransfers: async () => transfers,
        findReceiptToken: async () => receiptToken,
        insertMessage: async (message: { text: string }) => void queued.push(message),
      },
    };
  }

  it('queues the receipt again with every transfer and the new total, linking the page the first one did', async () => {
    const { tx, queued } = transaction(token);
    await expect(queueReceipt(tx as never, receiptSettings, paid, new Date(), 'topUp')).resolves.toBe(true);
    expect(queued).toHaveLength(1);
    const data = JSON.parse(queued[0]!.text) as ReceiptData;
    expect(data.usdcPaid).toBe('15.00');
    expect(data.transfers.map((t) => t.amount)).toEqual(['10.00', '5.00']);
    expect(data.receiptUrl).toBe(`https://pay.example/receipts/${token}`);
  });

  it('queues none for a payment that never got a receipt, nor where the merchant stopped sending them', async () => {
    for (const { tx, queued } of [
      transaction(null),
      transaction(token, { ...testMerchantWithReceipts, sendReceipts: false }),
    ]) {
      await expect(queueReceipt(tx as never, receiptSettings, paid, new Date(), 'topUp')).resolves.toBe(
        false,
      );
      expect(queued).toEqual([]);
    }
  });
});

const testMerchantWithReceipts = { name: 'Shop', sendReceipts: true };
