import type { Currency } from './currencies.ts';
import { ValidationError } from './errors.ts';
import { type LineItem, lineItemsTotal } from './lineItems.ts';
import { type Money, parseAmount, parseCurrency } from './money.ts';
import { plainText } from './text.ts';

/**
 * The point of sale (decision 0054): a merchant's small catalogue of items, and a sale rung up from it and from
 * an amount typed at the counter. Pure: the prices are exact minor units, never numbers.
 */
export interface CatalogueItem extends Pick<LineItem, 'name' | 'unitPrice'> {
  readonly id: string;
  readonly merchantId: string;
  readonly createdAt: Date;
}

/**
 * The catalogue's bounds: a counter's screen holds `items` buttons well (a shop with more sells through links or
 * its own system), a name of `nameLength` fits one; more than `quantity` of one item is a typo at a counter (a
 * price typed into a quantity, say).
 */
export const CATALOGUE_LIMITS = { items: 40, nameLength: 60, quantity: 999 } as const;

/** A new item as the merchant typed it: a name of plain text and a positive price in the currency's precision. */
export function parseCatalogueItem(input: {
  readonly name: string;
  readonly unitPrice: string;
  readonly currency: string;
}): { readonly name: string; readonly unitPrice: Money } {
  const name = plainText('name', input.name.trim());
  if (name === '') throw new ValidationError('name', 'must not be empty');
  if ([...name].length > CATALOGUE_LIMITS.nameLength)
    throw new ValidationError('name', `must be at most ${CATALOGUE_LIMITS.nameLength} characters`);
  const currency = parseCurrency('currency', input.currency);
  return { name, unitPrice: parseAmount('unit_price', input.unitPrice.trim(), currency) };
}

/** A sale: the catalogue's items picked, as line items (decision 0051), and the amount typed besides them. */
export interface Sale {
  readonly items: readonly LineItem[];
  /** The amount typed; null: none. */
  readonly typed: Money | null;
  readonly total: Money;
}

/**
 * A sale: the catalogue's items of the sale's currency at the quantities picked (a missing or empty quantity is
 * none), plus the amount typed, if any. Something must be charged: nothing picked and nothing typed is refused,
 * naming the amount.
 */
export function saleOf(input: {
  readonly currency: Currency;
  readonly catalogue: readonly CatalogueItem[];
  readonly quantities: Readonly<Record<string, string | undefined>>;
  /** As typed, its decimal mark already read as a point (web/typedAmount.ts); empty: none. */
  readonly amount: string;
}): Sale {
  const items: LineItem[] = [];
  for (const item of input.catalogue) {
    if (item.unitPrice.currency.code !== input.currency.code) continue;
    const quantity = quantityOf(input.quantities[item.id]);
    if (quantity > 0) items.push({ name: item.name, quantity, unitPrice: item.unitPrice });
  }
  const typed = input.amount === '' ? null : parseAmount('amount', input.amount, input.currency);
  if (items.length === 0 && typed === null)
    throw new ValidationError('amount', 'type an amount or pick an item');
  const minorUnits = lineItemsTotal(items) + (typed?.minorUnits ?? 0n);
  return { items, typed, total: { currency: input.currency, minorUnits } };
}

function quantityOf(text: string | undefined): number {
  const typed = (text ?? '').trim();
  if (typed === '') return 0;
  if (!/^[0-9]{1,4}$/.test(typed) || Number(typed) > CATALOGUE_LIMITS.quantity)
    throw new ValidationError('quantity', `must be a whole number from 0 to ${CATALOGUE_LIMITS.quantity}`);
  return Number(typed);
}

/**
 * What a sale sells, as the payment's title (decision 0051's, which the checkout and receipt show): the names of
 * the catalogue's items in it, in words of no language ("Coffee, Bun"), within `maxLength`; null when only an
 * amount was typed.
 */
export function saleTitle(sale: Sale, maxLength: number): string | null {
  if (sale.items.length === 0) return null;
  const text = sale.items.map((item) => item.name).join(', ');
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}

/** The metadata key and value that mark a payment as rung up at the point of sale: its screens show only those. */
export const POS_CHANNEL = { key: 'channel', value: 'pos' } as const;

export function isPosSale(payment: { readonly metadata: Readonly<Record<string, string>> | null }): boolean {
  return payment.metadata?.[POS_CHANNEL.key] === POS_CHANNEL.value;
}
