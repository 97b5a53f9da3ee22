import { describe, expect, it } from 'vitest';
import { findCurrency } from './currencies.ts';
import { PaylinkError } from './errors.ts';
import {
  describeLineItems,
  lineItemsFromText,
  lineItemsInput,
  lineItemsText,
  lineItemsTimes,
  parseLineItems,
} from './lineItems.ts';

const EUR = findCurrency('EUR')!;
const JPY = findCurrency('JPY')!;
const eur = (minorUnits: bigint) => ({ currency: EUR, minorUnits });

const fields = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof PaylinkError) return error.details.map((d) => `${d.field}: ${d.message}`);
    throw error;
  }
  return [];
};

describe('parseLineItems', () => {
  it('takes none as null, and lines that add up exactly', () => {
    expect(parseLineItems(undefined, eur(100n))).toBeNull();
    expect(parseLineItems([], eur(100n))).toBeNull();
    const items = parseLineItems(
      [
        { name: ' Tea ', quantity: '3', unit_price: '0.10' },
        { name: 'Gift wrap', quantity: 1, unit_price: '0' },
        { name: 'Cake', quantity: '1', unit_price: '0.7' },
      ],
      eur(100n),
    );
    expect(items?.map((i) => [i.name, i.quantity, i.unitPrice.minorUnits])).toEqual([
      ['Tea', 3, 10n],
      ['Gift wrap', 1, 0n],
      ['Cake', 1, 70n],
    ]);
  });

  it('refuses a sum a cent off, and places the currency lacks', () => {
    expect(fields(() => parseLineItems([{ name: 'A', quantity: 2, unit_price: '0.5' }], eur(101n)))).toEqual([
      'line_items: must add up to the amount: the lines total 1.00 EUR, the amount is 1.01 EUR',
    ]);
    expect(
      fields(() =>
        parseLineItems([{ name: 'A', quantity: 1, unit_price: '1.5' }], { currency: JPY, minorUnits: 2n }),
      ),
    ).toEqual(['line_items[0].unit_price: JPY allows at most 0 decimal places']);
    expect(fields(() => parseLineItems([{ name: 'A', quantity: 1, unit_price: 1 }], eur(100n)))).toEqual([
      'line_items[0].unit_price: must be a decimal number',
    ]);
  });
});

describe('line items kept and shown', () => {
  const items = parseLineItems([{ name: 'Beans', quantity: 2, unit_price: '24.50' }], eur(4900n))!;

  it('round-trip through their stored text in minor units', () => {
    const text = lineItemsText(items);
    expect(JSON.parse(text!)).toEqual([{ name: 'Beans', quantity: 2, unit_minor_units: '2450' }]);
    expect(lineItemsFromText(text, EUR)).toEqual(items);
    expect(lineItemsText(null)).toBeNull();
  });

  it('are shown with each total, multiplied for n purchases, and read back from their input form', () => {
    expect(describeLineItems(lineItemsTimes(items, 3))).toEqual([
      { name: 'Beans', quantity: 6, unit_price: '24.50', total: '147.00' },
    ]);
    expect(parseLineItems(lineItemsInput(items), eur(4900n))).toEqual(items);
  });
});
