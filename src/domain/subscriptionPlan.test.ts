import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { parsePlanInput } from './subscriptionPlan.ts';

const valid = { name: 'Pro', amount: '9.90', currency: 'EUR', intervalUnit: 'month' };

function fieldsAtFault(input: Parameters<typeof parsePlanInput>[0]): string[] {
  try {
    parsePlanInput(input);
  } catch (error) {
    if (error instanceof ValidationError) return error.details.map((d) => d.field);
    throw error;
  }
  return [];
}

describe('a plan’s terms', () => {
  it('defaults: one interval, no trial, three days of grace, open-ended', () => {
    const terms = parsePlanInput(valid);
    expect(terms.price.minorUnits).toBe(990n);
    expect(terms).toMatchObject({
      interval: { unit: 'month', count: 1 },
      trialDays: 0,
      graceDays: 3,
      periods: null,
    });
  });

  it('takes USDC to six places and every bound given', () => {
    const terms = parsePlanInput({
      ...valid,
      amount: '0.000001',
      currency: 'USDC',
      intervalUnit: 'year',
      intervalCount: '3',
      trialDays: '365',
      graceDays: '0',
      periods: '1000',
    });
    expect(terms).toMatchObject({
      interval: { unit: 'year', count: 3 },
      trialDays: 365,
      graceDays: 0,
      periods: 1000,
    });
    expect(terms.price.minorUnits).toBe(1n);
  });

  it.each([
    [{ ...valid, name: '  ' }, ['name']],
    [{ ...valid, amount: '0' }, ['amount']],
    [{ ...valid, amount: '1.001' }, ['amount']],
    [{ ...valid, currency: 'XXX' }, ['currency']],
    [{ ...valid, intervalUnit: 'fortnight' }, ['interval']],
    [{ ...valid, intervalCount: '0' }, ['interval_count']],
    [{ ...valid, intervalUnit: 'year', intervalCount: '4' }, ['interval_count']],
    [{ ...valid, intervalUnit: 'month', intervalCount: '36' }, []],
    [{ ...valid, trialDays: '366' }, ['trial_days']],
    [{ ...valid, graceDays: '61' }, ['grace_days']],
    [{ ...valid, graceDays: '-1' }, ['grace_days']],
    [{ ...valid, periods: '0' }, ['periods']],
    [{ ...valid, periods: '1.5' }, ['periods']],
    [{ currency: 'EUR' }, ['name', 'amount', 'interval']],
  ])('%o is refused naming %o', (input, fields) => {
    expect(fieldsAtFault(input)).toEqual(fields);
  });
});
