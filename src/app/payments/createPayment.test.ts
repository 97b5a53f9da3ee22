import { describe, expect, it } from 'vitest';
import { MemoryPayments } from '../../../test/fakes/memoryPayments.ts';
import { testMerchant } from '../../../test/fakes/merchantFixture.ts';
import type { Payment } from '../../domain/payment.ts';
import { paymentReference } from '../../domain/paymentReference.ts';
import { type CreatePaymentDeps, createPayment } from './createPayment.ts';
import { type DepositPlanner, PaymentReferenceTaken, type PaymentStore } from './ports.ts';

const planner: DepositPlanner = {
  plan: () => ({
    chainId: 137,
    tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    treasuryAddress: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
    depositAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  }),
  chainId: 137,
  tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  contracts: [],
};

/** A store that refuses the first `refusals` payments as a clash of references, then keeps what it is given. */
function storeRefusing(refusals: number) {
  const tried: Payment[] = [];
  const payments: PaymentStore = Object.assign(new MemoryPayments(), {
    insert: async (payment: Payment) => {
      tried.push(payment);
      if (tried.length <= refusals) throw new PaymentReferenceTaken(payment.reference);
    },
  });
  return { payments, tried };
}

const depsWith = (payments: PaymentStore): CreatePaymentDeps => ({
  payments,
  // USDC is priced one for one, without a rate.
  rates: {
    usdcPerUnit: () => {
      throw new Error('no rate is asked for USDC');
    },
  },
  clock: { now: () => new Date('2026-12-01T00:00:00.000Z') },
  maxAmountBaseUnits: 10n ** 12n,
  minAmountBaseUnits: 1n,
  deposits: { live: planner },
  paymentTtlMs: 3_600_000,
  webhookAllowPrivate: false,
});

const merchant = testMerchant({
  walletAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  webhookUrl: 'https://shop.example/hooks',
});

describe('createPayment and its reference', () => {
  it("draws a new id when the merchant already has the first id's reference, and answers what was stored", async () => {
    const { payments, tried } = storeRefusing(1);
    const payment = await createPayment(depsWith(payments), merchant, { amount: '10.00', currency: 'USDC' });
    expect(tried).toHaveLength(2);
    expect(tried[1]!.id).not.toBe(tried[0]!.id);
    expect(payment.id).toBe(tried[1]!.id);
    expect(payment.reference).toBe(paymentReference(payment.id));
  });

  it('gives up after three clashes in a row: no chance but a fault', async () => {
    const { payments, tried } = storeRefusing(3);
    await expect(
      createPayment(depsWith(payments), merchant, { amount: '10.00', currency: 'USDC' }),
    ).rejects.toBeInstanceOf(PaymentReferenceTaken);
    expect(tried).toHaveLength(3);
  });
});
