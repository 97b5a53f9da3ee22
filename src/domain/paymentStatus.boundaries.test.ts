/**
 * Each money and time boundary of a payment's status, to the base unit and the millisecond, with a case on each
 * side: a comparison or a rounding turned the other way fails one of them (docs/testing.md, "Mutation testing").
 */
import { describe, expect, it } from 'vitest';
import {
  derivePaymentState,
  type ObservedTransfer,
  type PaymentTerms,
  paidThresholdBaseUnits,
  stateHoldsUntil,
} from './paymentStatus.ts';

const expiresAt = new Date('2026-11-21T13:00:00Z');
const justAfter = new Date(expiresAt.getTime() + 1);
const justBefore = new Date(expiresAt.getTime() - 1);
const terms: PaymentTerms = { requiredBaseUnits: 100_000_000n, underpaymentToleranceBps: 0, expiresAt };

const transfer = (amount: bigint, at: Date = justBefore, final = true): ObservedTransfer => ({
  amountBaseUnits: amount,
  blockNumber: 1n,
  logIndex: 0,
  blockTimestamp: at,
  final,
  orphaned: false,
});

describe('the underpayment tolerance, rounded in the merchant’s favour', () => {
  it.each([
    // required, tolerance bps, the least that pays: required − floor(required × bps / 10 000)
    [1_000_001n, 100, 990_001n], // 1 % of 1.000001 is 0.01000001: 10 000 units forgiven, not 10 001
    [100_000_000n, 100, 99_000_000n], // exact: 1 000 000 forgiven
    [9_999n, 1, 9_999n], // 0.9999 of a unit: nothing forgiven
    [10_000n, 1, 9_999n], // exactly one unit forgiven
    [27_000_000n, 0, 27_000_000n], // no tolerance: the whole price
    [1n, 10_000, 0n], // the whole price forgiven: the most a policy allows
  ])('of %s at %s bps is paid from %s base units', (required, bps, least) => {
    const tolerant = { ...terms, requiredBaseUnits: required, underpaymentToleranceBps: bps };
    expect(paidThresholdBaseUnits(tolerant)).toBe(least);
    if (least > 0n) {
      expect(derivePaymentState(tolerant, [transfer(least)], justBefore).status).toBe('paid');
      expect(derivePaymentState(tolerant, [transfer(least - 1n)], justBefore).status).toBe('processing');
    }
  });

  it('counts only final transfers towards it: one unit short while the last is not final', () => {
    const tolerant = { ...terms, requiredBaseUnits: 1_000_001n, underpaymentToleranceBps: 100 };
    const state = derivePaymentState(
      tolerant,
      [transfer(990_000n), { ...transfer(1n), blockNumber: 2n, final: false }],
      justBefore,
    );
    expect(state).toMatchObject({
      status: 'processing',
      amountReceivedBaseUnits: 990_000n,
      amountSeenBaseUnits: 990_001n,
    });
  });
});

describe('the expiry, to the millisecond', () => {
  it('leaves a link with nothing seen pending at its expiry, expired one millisecond after', () => {
    expect(derivePaymentState(terms, [], expiresAt).status).toBe('pending');
    expect(derivePaymentState(terms, [], justAfter).status).toBe('expired');
  });

  it('fails an underpayment one millisecond after expiry, not at it', () => {
    const part = [transfer(99_999_999n)];
    expect(derivePaymentState(terms, part, expiresAt).status).toBe('processing');
    expect(derivePaymentState(terms, part, justAfter).status).toBe('failed');
  });

  it('keeps a payment processing past expiry while one base unit seen awaits finality', () => {
    const waiting = [transfer(99_999_999n), { ...transfer(1n), blockNumber: 2n, final: false }];
    expect(derivePaymentState(terms, waiting, justAfter).status).toBe('processing');
  });

  it('is late when the completing block is one millisecond past expiry, on time at it', () => {
    expect(derivePaymentState(terms, [transfer(100_000_000n, expiresAt)], justAfter).late).toBe(false);
    expect(derivePaymentState(terms, [transfer(100_000_000n, justAfter)], justAfter)).toMatchObject({
      status: 'paid',
      late: true,
      paidAt: justAfter,
    });
  });

  it('holds an unpaid state until the expiry at the expiry, and for ever one millisecond after', () => {
    expect(stateHoldsUntil(terms, derivePaymentState(terms, [], expiresAt), expiresAt)).toStrictEqual(
      expiresAt,
    );
    expect(stateHoldsUntil(terms, derivePaymentState(terms, [], justAfter), justAfter)).toBeNull();
  });
});
