import type { Merchant } from '../../src/domain/merchant.ts';

/** An active merchant `mch_1` with no wallet or webhook and no commission, unless `overrides` say otherwise. */
export function testMerchant(overrides: Partial<Merchant> = {}): Merchant {
  return {
    id: 'mch_1',
    name: 'Shop',
    walletAddress: null,
    webhookUrl: null,
    webhookSecret: 'whsec_x',
    commissionBps: 0,
    underpaymentToleranceBps: 0,
    sendReceipts: true,
    status: 'active',
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...overrides,
  };
}
