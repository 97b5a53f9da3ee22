import { describe, expect, it } from 'vitest';
import { findCurrency } from './currencies.ts';
import { amountDueBaseUnits, type Payment, paymentToken } from './payment.ts';
import type { PaymentState } from './paymentStatus.ts';
import { NO_PAYOUT_YET } from './payout.ts';
import { quote } from './quote.ts';

const USDC_ADDRESS = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const CREATED = new Date('2026-01-01T00:00:00.000Z');

/** A pending 10 USDC payment (1 % commission) at a deposit address, unless `overrides` say otherwise. */
function payment(overrides: Partial<Payment> = {}): Payment {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    kind: 'payment',
    merchantId: 'mch_1',
    mode: 'live',
    quote: quote({ currency: findCurrency('USDC')!, minorUnits: 10_000_000n }, { units: 1n, scale: 0 }, 100),
    rateSource: 'fixed',
    rateObservedAt: CREATED,
    underpaymentToleranceBps: 0,
    payoutAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    webhookUrl: null,
    returnUrl: null,
    successUrl: null,
    cancelUrl: null,
    metadata: null,
    linkId: null,
    orderId: null,
    customerEmail: null,
    status: 'pending',
    announcedStatus: 'pending',
    amountReceivedBaseUnits: 0n,
    paidAt: null,
    late: false,
    expiresAt: new Date(CREATED.getTime() + 3_600_000),
    createdAt: CREATED,
    updatedAt: CREATED,
    deposit: {
      chainId: 137,
      tokenAddress: USDC_ADDRESS,
      factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      treasuryAddress: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
      depositAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    },
    txid: null,
    paidWith: null,
    payout: NO_PAYOUT_YET,
    ...overrides,
  };
}

function state(status: PaymentState['status'], amountSeenBaseUnits: bigint): PaymentState {
  return {
    status,
    amountReceivedBaseUnits: 0n,
    amountSeenBaseUnits,
    paidAt: null,
    late: false,
    completedBy: null,
    lastSeen: null,
  };
}

describe('paymentToken', () => {
  it('names the token that paid, checksummed, with its own symbol', () => {
    const paid = payment({
      paidWith: { address: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174', symbol: 'USDC.e' },
    });
    expect(paymentToken(paid)).toEqual({
      address: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
      symbol: 'USDC.e',
    });
  });

  it("names the deposit's USDC before anything paid, and nothing for a payment without a deposit address", () => {
    expect(paymentToken(payment())).toEqual({ address: USDC_ADDRESS, symbol: 'USDC' });
    expect(paymentToken(payment({ deposit: null }))).toBeNull();
  });
});

describe('amountDueBaseUnits', () => {
  it('is the price less every transfer seen', () => {
    expect(amountDueBaseUnits(payment(), state('pending', 0n))).toBe(10_000_000n);
    expect(amountDueBaseUnits(payment(), state('processing', 2_500_000n))).toBe(7_500_000n);
    expect(amountDueBaseUnits(payment(), state('processing', 9_999_999n))).toBe(1n);
  });

  it('is never negative: nothing is due once the price has been seen, or more', () => {
    expect(amountDueBaseUnits(payment(), state('processing', 10_000_000n))).toBe(0n);
    expect(amountDueBaseUnits(payment(), state('processing', 12_000_000n))).toBe(0n);
  });

  it('is nothing once paid, even when a tolerated shortfall arrived', () => {
    const tolerant = payment({ underpaymentToleranceBps: 100 });
    expect(amountDueBaseUnits(tolerant, state('paid', 9_950_000n))).toBe(0n);
    // The same shortfall before the payment counts as paid is still owed.
    expect(amountDueBaseUnits(tolerant, state('processing', 9_950_000n))).toBe(50_000n);
  });
});
