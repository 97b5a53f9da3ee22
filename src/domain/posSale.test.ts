import { describe, expect, it } from 'vitest';
import { findCurrency } from './currencies.ts';
import { ValidationError } from './errors.ts';
import {
  CATALOGUE_LIMITS,
  type CatalogueItem,
  isPosSale,
  parseCatalogueItem,
  saleOf,
  saleTitle,
} from './posSale.ts';

const EUR = findCurrency('EUR')!;
const JPY = findCurrency('JPY')!;
const item = (id: string, name: string, minorUnits: bigint, currency = EUR): CatalogueItem => ({
  id,
  merchantId: 'mch_1',
  name,
  unitPrice: { currency, minorUnits },
  createdAt: new Date(0),
});
const CATALOGUE = [item('a', 'Coffee', 250n), item('b', 'Bun', 120n), item('c', 'Onigiri', 300n, JPY)];

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.details[0];
    throw error;
  }
  return undefined;
};

describe('a sale at the counter', () => {
  it('adds the items picked at their quantities and the amount typed, exactly', () => {
    const sale = saleOf({
      currency: EUR,
      catalogue: CATALOGUE,
      quantities: { a: '3', b: '0' },
      amount: '0.15',
    });
    expect(sale.items).toEqual([
      { name: 'Coffee', quantity: 3, unitPrice: { currency: EUR, minorUnits: 250n } },
    ]);
    expect(sale.typed).toEqual({ currency: EUR, minorUnits: 15n });
    expect(sale.total).toEqual({ currency: EUR, minorUnits: 765n });
  });

  it('offers only the items of the sale’s currency', () => {
    const sale = saleOf({ currency: EUR, catalogue: CATALOGUE, quantities: { c: '2', b: '1' }, amount: '' });
    expect(sale.items.map((line) => line.name)).toEqual(['Bun']);
    expect(sale.total.minorUnits).toBe(120n);
  });

  it('refuses nothing to charge, naming the amount', () => {
    expect(
      refusal(() => saleOf({ currency: EUR, catalogue: CATALOGUE, quantities: {}, amount: '' })),
    ).toEqual({
      field: 'amount',
      message: 'type an amount or pick an item',
    });
  });

  it('refuses a quantity that is not a whole number up to the bound', () => {
    for (const typed of ['-1', '1.5', 'two', String(CATALOGUE_LIMITS.quantity + 1)])
      expect(
        refusal(() => saleOf({ currency: EUR, catalogue: CATALOGUE, quantities: { a: typed }, amount: '' }))
          ?.field,
      ).toBe('quantity');
    expect(
      saleOf({
        currency: EUR,
        catalogue: CATALOGUE,
        quantities: { a: String(CATALOGUE_LIMITS.quantity) },
        amount: '',
      }).total.minorUnits,
    ).toBe(250n * BigInt(CATALOGUE_LIMITS.quantity));
  });

  it('refuses an amount more precise than its currency', () => {
    expect(
      refusal(() => saleOf({ currency: EUR, catalogue: [], quantities: {}, amount: '10.505' }))?.field,
    ).toBe('amount');
    expect(
      refusal(() => saleOf({ currency: JPY, catalogue: [], quantities: {}, amount: '5.5' }))?.field,
    ).toBe('amount');
  });

  it('titles a sale by its items’ names, bounded, and an amount alone not at all', () => {
    const sale = saleOf({ currency: EUR, catalogue: CATALOGUE, quantities: { a: '1', b: '2' }, amount: '1' });
    expect(saleTitle(sale, 200)).toBe('Coffee, Bun');
    expect(saleTitle(sale, 8)).toBe('Coffee,…');
    expect(saleTitle(saleOf({ currency: EUR, catalogue: [], quantities: {}, amount: '1' }), 200)).toBeNull();
  });
});

describe('a catalogue item', () => {
  it('takes a name and a price in its currency’s precision', () => {
    expect(parseCatalogueItem({ name: '  Coffee ', unitPrice: '2.50', currency: 'eur' })).toEqual({
      name: 'Coffee',
      unitPrice: { currency: EUR, minorUnits: 250n },
    });
  });

  it('refuses each bad field by name', () => {
    expect(refusal(() => parseCatalogueItem({ name: ' ', unitPrice: '1', currency: 'EUR' }))?.field).toBe(
      'name',
    );
    expect(
      refusal(() =>
        parseCatalogueItem({
          name: 'x'.repeat(CATALOGUE_LIMITS.nameLength + 1),
          unitPrice: '1',
          currency: 'EUR',
        }),
      )?.field,
    ).toBe('name');
    expect(
      refusal(() => parseCatalogueItem({ name: 'Tea\u0000', unitPrice: '1', currency: 'EUR' }))?.field,
    ).toBe('name');
    expect(refusal(() => parseCatalogueItem({ name: 'Tea', unitPrice: '0', currency: 'EUR' }))?.field).toBe(
      'unit_price',
    );
    expect(refusal(() => parseCatalogueItem({ name: 'Tea', unitPrice: '1', currency: 'XYZ' }))?.field).toBe(
      'currency',
    );
  });
});

describe('a sale’s mark', () => {
  it('tells the point of sale’s payments from the others', () => {
    expect(isPosSale({ metadata: { channel: 'pos' } })).toBe(true);
    expect(isPosSale({ metadata: { channel: 'web' } })).toBe(false);
    expect(isPosSale({ metadata: null })).toBe(false);
  });
});
