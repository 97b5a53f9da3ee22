import { describe, expect, it } from 'vitest';
import {
  expectedTerms,
  type MandateTerms,
  mandateSalt,
  parseTerms,
  periodUnits,
  termsJson,
  termsMismatch,
} from './subscriptionMandate.ts';

const payees = {
  merchant: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  treasury: '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
  feeBps: 250,
  token: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
};

describe('a mandate’s terms', () => {
  it('counts days and weeks in seconds, months and years in calendar months', () => {
    expect(periodUnits({ unit: 'day', count: 3 })).toEqual({ periodSeconds: 259_200, periodMonths: 0 });
    expect(periodUnits({ unit: 'week', count: 1 })).toEqual({ periodSeconds: 604_800, periodMonths: 0 });
    expect(periodUnits({ unit: 'month', count: 3 })).toEqual({ periodSeconds: 0, periodMonths: 3 });
    expect(periodUnits({ unit: 'year', count: 2 })).toEqual({ periodSeconds: 0, periodMonths: 24 });
  });

  it('starts at the anchor rounded up to a second, its salt the subscription’s own', () => {
    const sub = { id: 'sub-1', anchor: new Date('2027-01-31T10:00:00.001Z') };
    const terms = expectedTerms(sub, { interval: { unit: 'month', count: 1 }, periods: null }, payees);
    expect(terms.start).toBe(BigInt(Date.parse('2027-01-31T10:00:01Z') / 1000));
    expect(terms.periods).toBe(0);
    expect(terms.salt).toBe(mandateSalt('sub-1'));
    expect(mandateSalt('sub-2')).not.toBe(terms.salt);
  });

  it('names each field that differs, addresses compared whatever their case', () => {
    const expected = expectedTerms(
      { id: 's', anchor: new Date('2027-01-01T00:00:00Z') },
      { interval: { unit: 'month', count: 1 }, periods: 12 },
      payees,
    );
    const signed: MandateTerms = {
      ...expected,
      merchant: payees.merchant as `0x${string}`,
      customer: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      cap: 1n,
    };
    expect(termsMismatch(signed, expected)).toEqual([]);
    expect(termsMismatch({ ...signed, feeBps: 251, periods: 11 }, expected)).toEqual(['feeBps', 'periods']);
  });

  it('reads its JSON back exactly, and refuses a malformed or out-of-range field', () => {
    const terms = parseTerms({
      ...termsJson({
        customer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        ...expectedTerms(
          { id: 's', anchor: new Date('2027-01-01T00:00:00Z') },
          { interval: { unit: 'week', count: 1 }, periods: 4 },
          payees,
        ),
        cap: 10n ** 30n,
      } as MandateTerms),
    });
    expect(terms?.cap).toBe(10n ** 30n);
    expect(parseTerms(termsJson(terms!))).toEqual(terms);
    const json = termsJson(terms!);
    expect(parseTerms({ ...json, feeBps: 65_536 })).toBeUndefined();
    expect(parseTerms({ ...json, feeBps: 65_535 })?.feeBps).toBe(65_535);
    expect(parseTerms({ ...json, cap: '-1' })).toBeUndefined();
    expect(parseTerms({ ...json, merchant: '0x12' })).toBeUndefined();
    expect(parseTerms({ ...json, salt: '0x12' })).toBeUndefined();
    expect(parseTerms({ ...json, start: (2n ** 64n).toString() })).toBeUndefined();
  });
});
