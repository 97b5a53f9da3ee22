import { describe, expect, it } from 'vitest';
import { findCurrency } from './currencies.ts';
import type { PaylinkError } from './errors.ts';
import type { Payment } from './payment.ts';
import { NO_PAYOUT_YET } from './payout.ts';
import { quote } from './quote.ts';
import {
  assertWithinReceived,
  cancelable,
  countsAgainstPayment,
  deriveRefundStatus,
  NO_FUNDING,
  parseRefundAddress,
  REFUND_STATUSES,
  type Refund,
  type RefundAddressError,
  type RefundFunding,
  refundAmountBaseUnits,
  refundDepositPayment,
  refundEventsBetween,
  refundFundingOf,
} from './refund.ts';

const NOW = new Date('2026-11-24T12:00:00.000Z');
const CLAIM_BY = new Date('2026-12-24T12:00:00.000Z');
const CUSTOMER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

function refund(overrides: Partial<Refund> = {}): Refund {
  return {
    id: 'b7a0c4de-0f4e-4c36-9a57-1b2c3d4e5f60',
    merchantId: 'mch_1',
    mode: 'live',
    paymentId: '7d1c3c0e-4b8e-4a53-9d43-0c1f1c2b3a4d',
    amountBaseUnits: 10_000_000n,
    requestedAmount: '10',
    requestedCurrency: 'USDC',
    reason: null,
    address: null,
    addressSource: null,
    addressGivenAt: null,
    claimExpiresAt: CLAIM_BY,
    canceledAt: null,
    announcedStatus: 'awaiting_address',
    createdAt: NOW,
    updatedAt: NOW,
    ...overrides,
  };
}

const funded = (fundedBaseUnits: bigint, sentBaseUnits = 0n): RefundFunding => ({
  ...NO_FUNDING,
  fundedBaseUnits,
  seenBaseUnits: fundedBaseUnits > 0n,
  sentBaseUnits,
});

function payment(currency: string, minorUnits: bigint, rate: string, received: bigint): Payment {
  const [whole, fraction = ''] = rate.split('.');
  const base = refundDepositPayment(
    refund(),
    CUSTOMER,
    {
      chainId: 137,
      tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      treasuryAddress: CUSTOMER,
      depositAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    },
    NOW,
  );
  return {
    ...base,
    kind: 'payment',
    quote: quote(
      { currency: findCurrency(currency)!, minorUnits },
      { units: BigInt(whole! + fraction), scale: fraction.length },
      100,
    ),
    amountReceivedBaseUnits: received,
  };
}

describe('refund status', () => {
  it('awaits the address until the claim expires, exactly at claim_expires_at', () => {
    expect(deriveRefundStatus(refund(), NO_FUNDING, new Date(CLAIM_BY.getTime() - 1))).toBe(
      'awaiting_address',
    );
    expect(deriveRefundStatus(refund(), NO_FUNDING, CLAIM_BY)).toBe('expired');
    // An address given in time: the clock no longer matters.
    expect(deriveRefundStatus(refund({ address: CUSTOMER }), NO_FUNDING, CLAIM_BY)).toBe('awaiting_funds');
  });

  it('is funded only once the final funding reaches the amount, and refunded once all of it went on', () => {
    const r = refund({ address: CUSTOMER });
    expect(deriveRefundStatus(r, funded(9_999_999n), NOW)).toBe('awaiting_funds');
    expect(deriveRefundStatus(r, funded(10_000_000n), NOW)).toBe('processing');
    expect(deriveRefundStatus(r, funded(10_000_000n, 9_999_999n), NOW)).toBe('processing');
    expect(deriveRefundStatus(r, funded(10_000_000n, 10_000_000n), NOW)).toBe('refunded');
    // Overfunded: refunded only when the excess went on too.
    expect(deriveRefundStatus(r, funded(12_000_000n, 10_000_000n), NOW)).toBe('processing');
    expect(deriveRefundStatus(r, funded(12_000_000n, 12_000_000n), NOW)).toBe('refunded');
  });

  it('shows funding over a cancel: the address can only pay the customer', () => {
    const r = refund({ address: CUSTOMER, canceledAt: NOW });
    expect(deriveRefundStatus(r, NO_FUNDING, NOW)).toBe('canceled');
    expect(deriveRefundStatus(r, funded(10_000_000n, 10_000_000n), NOW)).toBe('refunded');
    expect(deriveRefundStatus(refund({ canceledAt: NOW }), NO_FUNDING, CLAIM_BY)).toBe('canceled');
  });

  it('cancels only what nobody sent money to', () => {
    expect(cancelable('awaiting_address', NO_FUNDING)).toBe(true);
    expect(cancelable('awaiting_funds', NO_FUNDING)).toBe(true);
    expect(cancelable('awaiting_funds', { ...NO_FUNDING, seenBaseUnits: true })).toBe(false);
    for (const status of ['processing', 'refunded', 'canceled', 'expired'] as const)
      expect(cancelable(status, NO_FUNDING)).toBe(false);
  });

  it('owes each event once, in order, whatever a pass skipped', () => {
    expect(refundEventsBetween('awaiting_funds', 'refunded')).toEqual(['refund.funded', 'refund.refunded']);
    expect(refundEventsBetween('processing', 'refunded')).toEqual(['refund.refunded']);
    expect(refundEventsBetween('awaiting_funds', 'processing')).toEqual(['refund.funded']);
    expect(refundEventsBetween('canceled', 'processing')).toEqual(['refund.funded']);
    expect(refundEventsBetween('awaiting_address', 'expired')).toEqual(['refund.expired']);
    expect(refundEventsBetween('refunded', 'processing')).toEqual([]);
    expect(refundEventsBetween('processing', 'processing')).toEqual([]);
    expect(refundEventsBetween('awaiting_address', 'awaiting_funds')).toEqual([]);
  });

  it("reads the deposit row's funding: final received, sent to the customer, the reason it waits", () => {
    expect(refundFundingOf(undefined)).toEqual(NO_FUNDING);
    const deposit = payment('USDC', 10_000_000n, '1', 0n);
    expect(refundFundingOf(deposit).seenBaseUnits).toBe(false);
    expect(refundFundingOf({ ...deposit, status: 'processing' }).seenBaseUnits).toBe(true);
    // Still `pending` as last stored, but something final already arrived: seen.
    expect(refundFundingOf({ ...deposit, amountReceivedBaseUnits: 1n }).seenBaseUnits).toBe(true);
    expect(
      refundFundingOf({
        ...deposit,
        status: 'paid',
        amountReceivedBaseUnits: 5n,
        payout: { ...NO_PAYOUT_YET, merchantPaidBaseUnits: 4n, txHash: '0xabc', blockedReason: 'paused' },
      }),
    ).toEqual({
      fundedBaseUnits: 5n,
      seenBaseUnits: true,
      sentBaseUnits: 4n,
      txid: '0xabc',
      delayedReason: 'paused',
    });
  });
});

describe('what counts against a payment', () => {
  it('every refund but a canceled or an expired one', () => {
    expect(REFUND_STATUSES.filter(countsAgainstPayment)).toEqual([
      'awaiting_address',
      'awaiting_funds',
      'processing',
      'refunded',
    ]);
  });
});

describe('refund amounts', () => {
  it('reads its input trimmed, and names the field at fault', () => {
    const eur = payment('EUR', 1_000n, '1.08', 20_000_000n);
    expect(refundAmountBaseUnits(eur, { amount: ' 2.5 ' })).toBe(2_500_000n);
    expect(refundAmountBaseUnits(eur, { amount: ' 1 ', currency: ' eur ' })).toBe(1_080_000n);
    expect(refundAmountBaseUnits(eur, { amount: ' overpaid ', currency: ' Eur ' })).toBe(9_200_000n);
    const fieldOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return { field: (error as PaylinkError).field, message: (error as PaylinkError).message };
      }
      throw new Error('did not throw');
    };
    expect(fieldOf(() => refundAmountBaseUnits(eur, { amount: 'ten' }))).toEqual({
      field: 'amount',
      message: 'amount: must be a USDC amount with at most 6 decimals, or "overpaid"',
    });
    expect(fieldOf(() => refundAmountBaseUnits(eur, { amount: '0' }))).toEqual({
      field: 'amount',
      message: 'amount: must be greater than zero',
    });
    expect(fieldOf(() => refundAmountBaseUnits(eur, { amount: 'ten', currency: 'EUR' })).field).toBe(
      'amount',
    );
    expect(fieldOf(() => refundAmountBaseUnits(eur, { amount: '1', currency: 'GBP' }))).toEqual({
      field: 'currency',
      message: 'currency: must be USDC or EUR',
    });
    expect(fieldOf(() => refundAmountBaseUnits(eur, { amount: 'overpaid', currency: 'GBP' }))).toEqual({
      field: 'currency',
      message: 'currency: must be USDC or EUR',
    });
    const exact = payment('USDC', 5_000_000n, '1', 5_000_000n);
    expect(fieldOf(() => refundAmountBaseUnits(exact, { amount: 'overpaid' }))).toEqual({
      field: 'amount',
      message: 'The payment did not receive more than its price, or its refunds already cover what it did',
    });
  });

  it('takes USDC, or the payment currency at its locked rate rounded up to the cent', () => {
    const eur = payment('EUR', 1_000n, '1.08', 10_800_000n);
    expect(refundAmountBaseUnits(eur, { amount: '10.8' })).toBe(10_800_000n);
    expect(refundAmountBaseUnits(eur, { amount: '3.33', currency: 'EUR' })).toBe(3_600_000n);
    expect(refundAmountBaseUnits(eur, { amount: '0.01', currency: 'eur' })).toBe(20_000n);
    expect(() => refundAmountBaseUnits(eur, { amount: '1', currency: 'USD' })).toThrow(/currency/);
    expect(() => refundAmountBaseUnits(eur, { amount: '0' })).toThrow(/greater than zero/);
    expect(() => refundAmountBaseUnits(eur, { amount: '0.0000001' })).toThrow(/6 decimals/);
    expect(() => refundAmountBaseUnits(eur, { amount: 'overpaid' })).toThrow(
      expect.objectContaining({ code: 'PAYMENT_NOT_OVERPAID' }),
    );
  });

  it('"overpaid" is what arrived beyond the price, less refunds already counted', () => {
    const over = payment('USDC', 27_000_000n, '1', 37_000_000n);
    expect(refundAmountBaseUnits(over, { amount: 'overpaid' })).toBe(10_000_000n);
    expect(refundAmountBaseUnits(over, { amount: 'overpaid' }, 9_999_999n)).toBe(1n);
    expect(() => refundAmountBaseUnits(over, { amount: 'overpaid' }, 10_000_000n)).toThrow(
      expect.objectContaining({ code: 'PAYMENT_NOT_OVERPAID' }),
    );
  });

  it('never lets refunds exceed what was received', () => {
    const paid = payment('USDC', 20_000_000n, '1', 20_000_000n);
    expect(() => assertWithinReceived(paid, 20_000_000n, [])).not.toThrow();
    expect(() => assertWithinReceived(paid, 7_500_000n, [12_500_000n])).not.toThrow();
    expect(() => assertWithinReceived(paid, 1n, [12_500_000n, 7_500_000n])).toThrow(
      expect.objectContaining({ code: 'REFUND_EXCEEDS_PAYMENT' }),
    );
    expect(() => assertWithinReceived({ ...paid, amountReceivedBaseUnits: 0n }, 1n, [])).toThrow(
      expect.objectContaining({
        code: 'PAYMENT_NOT_REFUNDABLE',
        message: 'The payment has received nothing to refund',
      }),
    );
    expect(() => assertWithinReceived(paid, 2_000_000n, [19_000_000n])).toThrow(
      expect.objectContaining({
        field: 'amount',
        message: 'The refunds would exceed what the payment received: at most 1.00 USDC is left to refund',
      }),
    );
  });
});

describe('refund addresses', () => {
  it('accepts lower and upper case, and a right checksum; returns it checksummed', () => {
    expect(parseRefundAddress('address', CUSTOMER.toLowerCase())).toBe(CUSTOMER);
    expect(parseRefundAddress('address', `0x${CUSTOMER.slice(2).toUpperCase()}`)).toBe(CUSTOMER);
    expect(parseRefundAddress('address', ` ${CUSTOMER} `)).toBe(CUSTOMER);
  });

  it('refuses a wrong checksum, a malformed address and the zero address', () => {
    const typo = `${CUSTOMER.slice(0, 3)}${CUSTOMER[3] === 'F' ? 'f' : 'F'}${CUSTOMER.slice(4)}`;
    expect(() => parseRefundAddress('address', typo)).toThrow(/checksum/);
    expect(() => parseRefundAddress('address', CUSTOMER.slice(0, 41))).toThrow(/40 hex digits/);
    expect(() => parseRefundAddress('address', `${CUSTOMER}0`)).toThrow(/40 hex digits/);
    expect(() => parseRefundAddress('address', `0x${'0'.repeat(40)}`)).toThrow(/zero address/);
    expect(() => parseRefundAddress('address', `ab${CUSTOMER}`)).toThrow(/40 hex digits/);
  });

  it("names each problem, for the claim page to say it in the customer's language", () => {
    const problemOf = (input: string) => {
      try {
        parseRefundAddress('address', input);
      } catch (error) {
        return { problem: (error as RefundAddressError).problem, field: (error as RefundAddressError).field };
      }
      return undefined;
    };
    const typo = `${CUSTOMER.slice(0, 3)}${CUSTOMER[3] === 'F' ? 'f' : 'F'}${CUSTOMER.slice(4)}`;
    expect(problemOf(typo)).toEqual({ problem: 'checksum', field: 'address' });
    expect(problemOf('0x12')).toEqual({ problem: 'format', field: 'address' });
    expect(problemOf(`0x${'0'.repeat(40)}`)).toEqual({ problem: 'zero', field: 'address' });
    // Letters in one case only carry no checksum: accepted as they are, lower or upper.
    expect(problemOf(`0x${'ab'.repeat(20)}`)).toBeUndefined();
    expect(problemOf(`0x${'AB'.repeat(20)}`)).toBeUndefined();
    // A checksum valid only when the 0x prefix is read case-insensitively is still refused.
    expect(problemOf(`0X${CUSTOMER.slice(2)}`)).toEqual({ problem: 'format', field: 'address' });
  });
});

describe('a refund deposit', () => {
  it('asks exactly the amount, with no commission, and pays only the customer', () => {
    const deposit = payment('USDC', 1n, '1', 0n);
    const row = refundDepositPayment(
      refund({ amountBaseUnits: 4_000_001n }),
      CUSTOMER,
      deposit.deposit!,
      NOW,
    );
    expect(row).toMatchObject({
      kind: 'refund',
      payoutAddress: CUSTOMER,
      underpaymentToleranceBps: 0,
      rateSource: 'refund',
      status: 'pending',
      announcedStatus: 'pending',
      late: false,
    });
    expect(row.quote).toMatchObject({
      usdcBaseUnits: 4_000_001n,
      commissionBaseUnits: 0n,
      merchantShareBaseUnits: 4_000_001n,
    });
  });
});
