import type { Currency } from './currencies.ts';
import { ValidationError } from './errors.ts';
import { type Money, parseAmount, parseCurrency } from './money.ts';
import { plainText } from './text.ts';

/**
 * The point of sale (decision 0054): a merchant's small catalogue of items, and a sale rung up from it and from
 * an amount typed at the counter. Pure: the prices are exact minor units, never numbers.
 */
export interface CatalogueItem {
  readonly id: string;
  readonly merchantId: string;
  readonly name: string;
  readonly unitPrice: Money;
  readonly createdAt: Date;
}

/** A counter's screen holds this many buttons well; a shop with more sells through links or its own system. */
export const MAX_CATALOGUE_ITEMS = 40;
export const MAX_ITEM_NAME_LENGTH = 60;
/** More of one item than anyone buys at a counter: a typo (a quantity typed into the amount, say). */
export const MAX_QUANTITY = 999;

/** A new item as the merchant typed it: a name of plain text and a positive price in the currency's precision. */
export function parseCatalogueItem(input: {
  readonly name: string;
  readonly unitPrice: string;
  readonly currency: string;
}): { readonly name: string; readonly unitPrice: Money } {
  const name = plainText('name', input.name.trim());
  if (name === '') throw new ValidationError('name', 'must not be empty');
  if ([...name].length > MAX_ITEM_NAME_LENGTH)
    throw new ValidationError('name', `must be at most ${MAX_ITEM_NAME_LENGTH} characters`);
  const currency = parseCurrency('currency', input.currency);
  return { name, unitPrice: parseAmount('unit_price', input.unitPrice.trim(), currency) };
}

/** One line of a sale: an item of the catalogue times its quantity, or the amount typed (name null). */
export interface SaleLine {
  readonly name: string | null;
  readonly quantity: number;
  readonly unitPrice: Money;
}

export interface Sale {
  readonly lines: readonly SaleLine[];
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
  const lines: SaleLine[] = [];
  for (const item of input.catalogue) {
    if (item.unitPrice.currency.code !== input.currency.code) continue;
    const quantity = quantityOf(input.quantities[item.id]);
    if (quantity > 0) lines.push({ name: item.name, quantity, unitPrice: item.unitPrice });
  }
  if (input.amount !== '')
    lines.push({ name: null, quantity: 1, unitPrice: parseAmount('amount', input.amount, input.currency) });
  if (lines.length === 0) throw new ValidationError('amount', 'type an amount or pick an item');
  const minorUnits = lines.reduce((sum, line) => sum + line.unitPrice.minorUnits * BigInt(line.quantity), 0n);
  return { lines, total: { currency: input.currency, minorUnits } };
}

function quantityOf(text: string | undefined): number {
  const typed = (text ?? '').trim();
  if (typed === '') return 0;
  if (!/^[0-9]{1,4}$/.test(typed) || Number(typed) > MAX_QUANTITY)
    throw new ValidationError('quantity', `must be a whole number from 0 to ${MAX_QUANTITY}`);
  return Number(typed);
}

/**
 * What a sale sells, as the payment's title (decision 0051's, which the checkout and receipt show): the names of
 * the catalogue's items in it, in words of no language ("Coffee, Bun"), within `maxLength`; null when only an
 * amount was typed.
 */
export function saleTitle(sale: Sale, maxLength: number): string | null {
  const names = sale.lines.flatMap((line) => (line.name === null ? [] : [line.name]));
  if (names.length === 0) return null;
  const text = names.join(', ');
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}

/** The metadata key and value that mark a payment as rung up at the point of sale: its screens show only those. */
export const POS_CHANNEL = { key: 'channel', value: 'pos' } as const;

export function isPosSale(payment: { readonly metadata: Readonly<Record<string, string>> | null }): boolean {
  return payment.metadata?.[POS_CHANNEL.key] === POS_CHANNEL.value;
}
