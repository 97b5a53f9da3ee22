import { describe, expect, it } from 'vitest';
import { testPayment } from '../../test/fakes/paymentFixture.ts';
import { amountDueBaseUnits, homeChainTxid, newPayment, type Payment, paymentToken } from './payment.ts';
import type { PaymentState } from './paymentStatus.ts';
import { NO_PAYOUT_YET } from './payout.ts';

const USDC_ADDRESS = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const CREATED = new Date('2026-01-01T00:00:00.000Z');

/** A pending 10 USDC payment (1 % commission) at a deposit address, unless `overrides` say otherwise. */
function payment(overrides: Partial<Payment> = {}): Payment {
  return testPayment(1, { createdAt: CREATED, ...overrides });
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

describe('newPayment', () => {
  const { deposit, quote, expiresAt } = payment();
  const terms = {
    id: '00000000-0000-4000-8000-000000000002',
    kind: 'payment',
    merchantId: 'mch_2',
    mode: 'test',
    quote,
    rateSource: 'fixed',
    rateObservedAt: CREATED,
    underpaymentToleranceBps: 50,
    payoutAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    expiresAt,
    createdAt: CREATED,
    deposit,
  } as const;

  it('starts pending, with nothing received or paid out, last changed when made', () => {
    expect(newPayment(terms)).toEqual({
      ...terms,
      // The id's last 40 bits, as people read them.
      reference: 'PL-0000-0002',
      webhookUrl: null,
      returnUrl: null,
      successUrl: null,
      cancelUrl: null,
      metadata: null,
      linkId: null,
      orderId: null,
      title: null,
      description: null,
      lineItems: null,
      customerEmail: null,
      customerLanguage: null,
      payerLanguage: null,
      status: 'pending',
      announcedStatus: 'pending',
      amountReceivedBaseUnits: 0n,
      paidAt: null,
      late: false,
      updatedAt: CREATED,
      txid: null,
      txidChainId: null,
      paidWith: null,
      payout: NO_PAYOUT_YET,
    });
  });

  it("keeps the merchant's options it was given", () => {
    const made = newPayment({ ...terms, orderId: 'order-7', webhookUrl: 'https://shop.example/hooks' });
    expect(made).toMatchObject({
      orderId: 'order-7',
      webhookUrl: 'https://shop.example/hooks',
      returnUrl: null,
    });
  });
});

const TX = `0x${'ab'.repeat(32)}`;

describe('paymentToken', () => {
  it('names the token that paid on the home chain, checksummed, with its own symbol', () => {
    const paid = payment({
      txid: TX,
      txidChainId: 137,
      paidWith: { address: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174', symbol: 'USDC.e' },
    });
    expect(paymentToken(paid)).toEqual({
      address: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
      symbol: 'USDC.e',
    });
  });

  it("names the home chain's USDC, never a source chain's token, when the transfer txid names was sent there", () => {
    const paidOnBase = payment({
      txid: TX,
      txidChainId: 8453,
      paidWith: { address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', symbol: 'USDC' },
    });
    expect(paymentToken(paidOnBase)).toEqual({ address: USDC_ADDRESS, symbol: 'USDC' });
  });

  it("names the deposit's USDC before anything paid, and nothing for a payment without a deposit address", () => {
    expect(paymentToken(payment())).toEqual({ address: USDC_ADDRESS, symbol: 'USDC' });
    expect(paymentToken(payment({ deposit: null }))).toBeNull();
  });
});

describe('homeChainTxid', () => {
  it('is txid when the transfer it names was sent on the home chain, null when on another chain or none', () => {
    expect(homeChainTxid(payment({ txid: TX, txidChainId: 137 }))).toBe(TX);
    expect(homeChainTxid(payment({ txid: TX, txidChainId: 8453 }))).toBeNull();
    // A chain not recorded is not taken for the home chain's.
    expect(homeChainTxid(payment({ txid: TX, txidChainId: null }))).toBeNull();
    expect(homeChainTxid(payment())).toBeNull();
  });

  it('is txid for a payment made before deposit addresses existed: it shows no chain_id to pair it with', () => {
    expect(homeChainTxid(payment({ deposit: null, txid: TX, txidChainId: null }))).toBe(TX);
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
