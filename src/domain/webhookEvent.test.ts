import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { CHAIN_ID, testPayment, testTransfer, USDC } from '../../test/fakes/paymentFixture.ts';
import { findCurrency } from './currencies.ts';
import type { Payment } from './payment.ts';
import { NO_PAYOUT_YET, type PayoutState } from './payout.ts';
import { quote } from './quote.ts';
import { cctpFeeFields, payoutBaseUnits, type StatusFields, webhookEventBody } from './webhookEvent.ts';

const CREATED = new Date('2026-01-01T00:00:00.000Z');
const PAID_AT = new Date('2026-01-01T00:05:00.000Z');
const NOW = new Date('2026-01-01T00:06:00.000Z');
const EVENT_ID = 'evt_00000000-0000-4000-8000-000000000009';
const TX = `0x${'ab'.repeat(32)}`;
const PAYOUT_TX = `0x${'cd'.repeat(32)}`;

/** 25.00 EUR at 1.08: 27.00 USDC, of which 0.27 commission (1 %) and 26.73 the merchant's quoted share. */
function payment(overrides: Partial<Payment> = {}): Payment {
  return testPayment(1, {
    createdAt: CREATED,
    quote: quote({ currency: findCurrency('EUR')!, minorUnits: 2500n }, { units: 108n, scale: 2 }, 100),
    rateSource: 'ecb',
    webhookUrl: 'https://shop.example/hooks',
    orderId: 'order-42',
    ...overrides,
  });
}

const PENDING: StatusFields = { status: 'pending', amountReceivedBaseUnits: 0n, paidAt: null, late: false };
const NO_PAYOUT: PayoutState = { status: null, delayedReason: null, merchantOwedBaseUnits: 0n };

describe('payoutBaseUnits', () => {
  it('is the quoted merchant share until paid, whatever arrived so far', () => {
    expect(payoutBaseUnits(payment(), PENDING)).toBe(26_730_000n);
    expect(
      payoutBaseUnits(payment(), { ...PENDING, status: 'processing', amountReceivedBaseUnits: 30_000_000n }),
    ).toBe(26_730_000n);
  });

  it('is what arrived less its floor commission once paid', () => {
    // 28.000001 USDC: commission floor(280000.01) = 280000, the merchant 27.720001.
    const paid: StatusFields = {
      status: 'paid',
      amountReceivedBaseUnits: 28_000_001n,
      paidAt: PAID_AT,
      late: false,
    };
    expect(payoutBaseUnits(payment(), paid)).toBe(27_720_001n);
  });

  it('is the share of what arrives home once paid from another chain: less the CCTP fee taken and the most still pending', () => {
    const paid: StatusFields = {
      status: 'paid',
      amountReceivedBaseUnits: 28_000_000n,
      paidAt: PAID_AT,
      late: false,
    };
    const bridged = (fee: bigint, bound: bigint) =>
      payment({ payout: { ...NO_PAYOUT_YET, bridgeFeeBaseUnits: fee, bridgeFeeBoundBaseUnits: bound } });
    // Free (standard): the whole 28.00, 27.72 to the merchant.
    expect(payoutBaseUnits(bridged(0n, 0n), paid)).toBe(27_720_000n);
    // Burnt fast with a bound of 0.002800 (1 bp): 27.9972 may arrive, commission 0.279972, merchant 27.717228.
    expect(payoutBaseUnits(bridged(0n, 2_800n), paid)).toBe(27_717_228n);
    // Minted, CCTP kept 0.002800: the same, now exact.
    expect(payoutBaseUnits(bridged(2_800n, 0n), paid)).toBe(27_717_228n);
    // Minted with less than the bound: the merchant's share is of what did arrive.
    expect(payoutBaseUnits(bridged(1_000n, 0n), paid)).toBe(27_719_010n);
  });
});

describe('cctpFeeFields', () => {
  it('is absent for a payment CCTP took nothing of, and states taken, pending bound and who bears it otherwise', () => {
    expect(cctpFeeFields(payment())).toEqual({});
    // Decision 0035 adds the quote's allowance of what was burnt and whether a burn went above it.
    expect(
      cctpFeeFields(
        payment({
          payout: {
            ...NO_PAYOUT_YET,
            bridgeFeeBaseUnits: 1_000n,
            bridgeFeeBoundBaseUnits: 2_800n,
            bridgeFeeQuotedBaseUnits: 38_000n,
          },
        }),
      ),
    ).toEqual({
      cctp_fee: {
        taken: '0.001',
        pending_max: '0.0028',
        borne_by: 'merchant_share',
        quoted_max: '0.038',
        above_quote: false,
      },
    });
  });

  it('says a burn went above the quote: a standard transfer quoted free that had to offer a minimum fee', () => {
    const above = (burns: number) =>
      cctpFeeFields(
        payment({
          payout: { ...NO_PAYOUT_YET, bridgeFeeBoundBaseUnits: 2_800n, bridgeBurnsAboveQuote: burns },
        }),
      ).cctp_fee;
    expect(above(1)).toEqual({
      taken: '0.00',
      pending_max: '0.0028',
      borne_by: 'merchant_share',
      quoted_max: '0.00',
      above_quote: true,
    });
    expect(above(0)?.above_quote).toBe(false);
  });
});

describe('webhookEventBody', () => {
  it('describes a paid, overpaid live payment in the fields integrations read', () => {
    const paid = payment({
      txid: TX,
      txidChainId: CHAIN_ID,
      paidWith: { address: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174', symbol: 'USDC.e' },
      payout: { ...NO_PAYOUT_YET, merchantPaidBaseUnits: 27_720_000n, txHash: PAYOUT_TX, sentAt: NOW },
      successUrl: 'https://shop.example/thanks?order=42',
      cancelUrl: 'https://shop.example/cart',
      metadata: { cart: 'c-9' },
      linkId: '00000000-0000-4000-8000-0000000000aa',
      customerLanguage: 'fr',
    });
    const state: StatusFields = {
      status: 'paid',
      amountReceivedBaseUnits: 28_000_000n,
      paidAt: PAID_AT,
      late: true,
    };
    const payout: PayoutState = { status: 'sent', delayedReason: null, merchantOwedBaseUnits: 0n };
    expect(webhookEventBody(EVENT_ID, 'payment.paid', paid, state, payout, NOW)).toEqual({
      id: EVENT_ID,
      event: 'payment.paid',
      created_at: '2026-01-01T00:06:00.000Z',
      payment_id: '00000000-0000-4000-8000-000000000001',
      merchant_order_id: 'order-42',
      order_id: 'order-42',
      status: 'paid',
      amount: '25.00',
      currency: 'EUR',
      usdc_amount: '27.00',
      amount_received: '28.00',
      amount_overpaid: '1.00',
      payout_amount: '27.72 USDC',
      coin_type: 'polygon_usdc',
      token_address: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
      token_symbol: 'USDC.e',
      txid: TX,
      paid_at: '2026-01-01T00:05:00.000Z',
      late: true,
      payout_status: 'sent',
      payout_txid: PAYOUT_TX,
      payout_delayed_reason: null,
      livemode: true,
      success_url: 'https://shop.example/thanks?order=42&payment_id=00000000-0000-4000-8000-000000000001',
      cancel_url: 'https://shop.example/cart?payment_id=00000000-0000-4000-8000-000000000001',
      metadata: { cart: 'c-9' },
      link_id: '00000000-0000-4000-8000-0000000000aa',
      customer_language: 'fr',
    });
  });

  it('gives nulls, not empty strings, for what a pending test payment without a deposit address lacks', () => {
    const body = webhookEventBody(
      EVENT_ID,
      'payment.expired',
      payment({ mode: 'test', orderId: null, deposit: null }),
      { ...PENDING, status: 'expired' },
      NO_PAYOUT,
      NOW,
    );
    expect(body).toMatchObject({
      status: 'expired',
      merchant_order_id: null,
      order_id: null,
      amount_received: '0.00',
      amount_overpaid: '0.00',
      payout_amount: '26.73 USDC',
      token_address: null,
      token_symbol: null,
      txid: null,
      paid_at: null,
      late: false,
      payout_status: null,
      payout_txid: null,
      livemode: false,
      customer_language: null,
    });
  });

  it("pairs no source chain's transaction or token with the home chain: those are named per transfer, with their chain", () => {
    const BASE_USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
    const paidOnBase = payment({
      txid: TX,
      txidChainId: 8453,
      paidWith: { address: BASE_USDC, symbol: 'USDC' },
    });
    const onBase = testTransfer(paidOnBase, 1, {
      chainId: 8453,
      txHash: TX,
      tokenAddress: BASE_USDC,
      amountBaseUnits: 27_000_000n,
    });
    const state: StatusFields = {
      status: 'paid',
      amountReceivedBaseUnits: 27_000_000n,
      paidAt: PAID_AT,
      late: false,
    };
    const sent: PayoutState = { status: 'sent', delayedReason: null, merchantOwedBaseUnits: 0n };
    const paid = webhookEventBody(EVENT_ID, 'payment.paid', paidOnBase, state, sent, NOW, [onBase]);
    expect(paid).toMatchObject({
      coin_type: 'polygon_usdc',
      token_address: getAddress(USDC),
      token_symbol: 'USDC',
      txid: null,
      transfers: [
        { chain_id: 8453, txid: TX, token_address: getAddress(BASE_USDC), token_symbol: 'USDC', final: true },
      ],
    });
    // The payout events carry no transfers: their txid and token are the home chain's all the same.
    const payoutSent = webhookEventBody(EVENT_ID, 'payment.payout_sent', paidOnBase, paidOnBase, sent, NOW);
    expect(payoutSent).toMatchObject({ token_address: getAddress(USDC), txid: null });
    expect(payoutSent).not.toHaveProperty('transfers');
  });

  it('passes on why a payout is delayed', () => {
    const delayed: PayoutState = {
      status: 'delayed',
      delayedReason: 'blacklisted',
      merchantOwedBaseUnits: 1n,
    };
    const body = webhookEventBody(EVENT_ID, 'payment.payout_delayed', payment(), PENDING, delayed, NOW);
    expect(body.payout_status).toBe('delayed');
    expect(body.payout_delayed_reason).toBe('blacklisted');
  });
});

describe('cctpFeeFields of a minted transfer', () => {
  it('is present once CCTP took a fee, with no bound left pending', () => {
    expect(
      cctpFeeFields(payment({ payout: { ...NO_PAYOUT_YET, bridgeFeeBaseUnits: 1_000n } })).cctp_fee,
    ).toMatchObject({ taken: '0.001', pending_max: '0.00' });
  });
});
