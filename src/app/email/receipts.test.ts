import { describe, expect, it } from 'vitest';
import { testPayment } from '../../../test/fakes/paymentFixture.ts';
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
  it('links the customer’s transaction to the explorer of the chain it was sent on (decision 0039)', () => {
    const onBase = testPayment(1, { status: 'paid', txid: TX, txidChainId: 8453 });
    expect(receiptData(onBase, { name: 'Shop' }, settings, token)).toMatchObject({
      txid: TX,
      explorerTxUrl: `https://basescan.org/tx/${TX}`,
    });
    const onPolygon = testPayment(1, { status: 'paid', txid: TX, txidChainId: 137 });
    expect(receiptData(onPolygon, { name: 'Shop' }, settings, token).explorerTxUrl).toBe(
      `https://polygonscan.com/tx/${TX}`,
    );
  });

  it('links none where the chain has no explorer (the sandbox), and shows the hash alone', () => {
    const onSandbox = testPayment(1, { status: 'paid', txid: TX, txidChainId: 31338 });
    expect(receiptData(onSandbox, { name: 'Shop' }, settings, token)).toMatchObject({
      txid: TX,
      explorerTxUrl: null,
    });
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
    await expect(queueReceipt(tx as never, receiptSettings, paid, new Date())).resolves.toBe(false);
    expect(inserted).toEqual([]);
  });
});

const testMerchantWithReceipts = { name: 'Shop', sendReceipts: true };
