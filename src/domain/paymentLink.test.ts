import { describe, expect, it } from 'vitest';
import { findCurrency } from './currencies.ts';
import { PaylinkError } from './errors.ts';
import {
  assertLinkAvailable,
  chooseLinkAmount,
  type LinkPrice,
  linkUnavailable,
  type PaymentLink,
} from './paymentLink.ts';

const EUR = findCurrency('EUR')!;
const JPY = findCurrency('JPY')!;
const NOW = new Date('2026-11-27T12:00:00.000Z');
const eur = (minorUnits: bigint) => ({ currency: EUR, minorUnits });
const fixed: LinkPrice = { type: 'fixed', unit: eur(450n), maxQuantity: 3 };
const open: LinkPrice = { type: 'open', currency: EUR, min: eur(500n), max: eur(1000n), suggested: [] };

const link = (overrides: Partial<PaymentLink> = {}): PaymentLink => ({
  id: 'l',
  merchantId: 'm',
  mode: 'live',
  title: 'T',
  description: null,
  imageUrl: null,
  price: fixed,
  deactivatedAt: null,
  maxUses: null,
  endsAt: null,
  successUrl: null,
  cancelUrl: null,
  metadata: null,
  lineItems: null,
  createdAt: NOW,
  updatedAt: NOW,
  ...overrides,
});

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof PaylinkError) return error.details[0];
    throw error;
  }
  return undefined;
};

describe('chooseLinkAmount', () => {
  it('multiplies a fixed price by a quantity from 1 to the maximum', () => {
    expect(chooseLinkAmount(fixed, {})).toEqual(eur(450n));
    expect(chooseLinkAmount(fixed, { quantity: '1' })).toEqual(eur(450n));
    expect(chooseLinkAmount(fixed, { quantity: '3' })).toEqual(eur(1350n));
    for (const quantity of ['0', '4', '1.5', '-1', 'two', '']) {
      expect(refusal(() => chooseLinkAmount(fixed, { quantity }))?.field).toBe('quantity');
    }
    expect(refusal(() => chooseLinkAmount(fixed, { amount: '4.50' }))?.field).toBe('amount');
  });

  it('takes an open amount exactly at its bounds and refuses one minor unit outside', () => {
    expect(chooseLinkAmount(open, { amount: '5.00' })).toEqual(eur(500n));
    expect(chooseLinkAmount(open, { amount: '10' })).toEqual(eur(1000n));
    expect(refusal(() => chooseLinkAmount(open, { amount: '4.99' }))).toEqual({
      field: 'amount',
      message: 'must be from 5.00 to 10.00 EUR',
    });
    expect(refusal(() => chooseLinkAmount(open, { amount: '10.01' }))?.field).toBe('amount');
    expect(refusal(() => chooseLinkAmount(open, { amount: '5.001' }))?.message).toBe(
      'EUR allows at most 2 decimal places',
    );
    expect(refusal(() => chooseLinkAmount(open, {}))?.message).toBe('is required');
    expect(refusal(() => chooseLinkAmount(open, { amount: '6', quantity: '1' }))?.field).toBe('quantity');
  });

  it('reads amounts in the link currency precision', () => {
    const yen: LinkPrice = {
      type: 'open',
      currency: JPY,
      min: { currency: JPY, minorUnits: 100n },
      max: { currency: JPY, minorUnits: 5000n },
      suggested: [],
    };
    expect(chooseLinkAmount(yen, { amount: '5000' })).toEqual({ currency: JPY, minorUnits: 5000n });
    expect(refusal(() => chooseLinkAmount(yen, { amount: '100.5' }))?.field).toBe('amount');
  });
});

describe('linkUnavailable', () => {
  const none = { paid: 0, open: 0 };
  it('is available while active, before its end, and with uses left', () => {
    expect(linkUnavailable(link(), none, NOW)).toBeUndefined();
    expect(linkUnavailable(link({ maxUses: 2 }), { paid: 1, open: 0 }, NOW)).toBeUndefined();
    expect(linkUnavailable(link({ endsAt: new Date(NOW.getTime() + 1) }), none, NOW)).toBeUndefined();
  });

  it('is not once deactivated, from its end on, or with every use taken by paid and open payments', () => {
    expect(linkUnavailable(link({ deactivatedAt: NOW }), none, NOW)).toBe(
      'This payment link has been deactivated',
    );
    expect(linkUnavailable(link({ endsAt: NOW }), none, NOW)).toBe('This payment link has ended');
    const full = 'This payment link has reached its limit of uses';
    expect(linkUnavailable(link({ maxUses: 2 }), { paid: 1, open: 1 }, NOW)).toBe(full);
    expect(linkUnavailable(link({ maxUses: 2 }), { paid: 0, open: 2 }, NOW)).toBe(full);
    // Every use paid: sold out for good, not "full for now".
    const soldOut = 'This payment link is sold out: every use has been paid';
    expect(linkUnavailable(link({ maxUses: 2 }), { paid: 2, open: 0 }, NOW)).toBe(soldOut);
    expect(linkUnavailable(link({ maxUses: 2 }), { paid: 3, open: 1 }, NOW)).toBe(soldOut);
  });
});

describe('chooseLinkAmount, its messages', () => {
  it('says why a choice is refused', () => {
    expect(refusal(() => chooseLinkAmount(fixed, { amount: '4.50' }))).toEqual({
      field: 'amount',
      message: 'must not be given: this link has a fixed price',
    });
    expect(refusal(() => chooseLinkAmount(open, { amount: '6', quantity: '1' }))).toEqual({
      field: 'quantity',
      message: 'must not be given: this link has an open amount',
    });
    expect(refusal(() => chooseLinkAmount(open, {}))).toEqual({ field: 'amount', message: 'is required' });
    expect(refusal(() => chooseLinkAmount(fixed, { quantity: '4' }))).toEqual({
      field: 'quantity',
      message: 'must be an integer from 1 to 3',
    });
  });

  it('reads a quantity of several digits, with spaces around it', () => {
    const many: LinkPrice = { type: 'fixed', unit: eur(1n), maxQuantity: 1_000 };
    expect(chooseLinkAmount(many, { quantity: ' 12 ' })).toEqual(eur(12n));
    expect(chooseLinkAmount(many, { quantity: '1000' })).toEqual(eur(1000n));
  });
});

describe('assertLinkAvailable', () => {
  it('throws LINK_UNAVAILABLE with the reason, and nothing while the link takes payments', () => {
    expect(() => assertLinkAvailable(link(), { paid: 0, open: 0 }, NOW)).not.toThrow();
    try {
      assertLinkAvailable(link({ endsAt: NOW }), { paid: 0, open: 0 }, NOW);
      expect.unreachable('an ended link is unavailable');
    } catch (error) {
      expect(error).toBeInstanceOf(PaylinkError);
      expect(error).toMatchObject({ code: 'LINK_UNAVAILABLE', message: 'This payment link has ended' });
    }
  });
});
