import { type Currency, USDC } from './currencies.ts';
import { parseDecimal } from './decimal.ts';
import { ValidationError } from './errors.ts';
import { amountIn, formatMoney, type Money } from './money.ts';
import { textProblem } from './text.ts';

/**
 * One line of what a payment sells (docs/decisions/0051-line-items.md): a name, how many, and the price of one in
 * the payment's price currency. A payment's lines add up to its price exactly.
 */
export interface LineItem {
  readonly name: string;
  /** A positive integer, at most MAX_LINE_ITEM_QUANTITY. */
  readonly quantity: number;
  /** The price of one, in the payment's currency; zero for a free line (a gift), never negative. */
  readonly unitPrice: Money;
}

export const MAX_LINE_ITEMS = 100;
export const MAX_LINE_ITEM_NAME_LENGTH = 200;
export const MAX_LINE_ITEM_QUANTITY = 1_000_000;
const FIELD = 'line_items';
const ITEM_KEYS = new Set(['name', 'quantity', 'unit_price']);

/**
 * `line_items` as a client sent it (JSON parsed, numbers as their text) checked against the price: each line
 * well formed in the price's currency, and the lines adding up to the price exactly. Absent, null or empty: none.
 * Every fault of every line is named at once (`line_items[1].quantity`).
 */
export function parseLineItems(input: unknown, price: Money): readonly LineItem[] | null {
  const items = parseLineItemsIn(input, price.currency);
  if (items !== null) assertLineItemsAddUp(items, price);
  return items;
}

/**
 * Each line checked, the sum not (the price may not be known yet, or be wrong itself): the unit prices in
 * `currency`'s decimal places when it is known, as positive-or-zero decimals when it is not.
 */
export function parseLineItemsIn(input: unknown, currency: Currency | undefined): readonly LineItem[] | null {
  if (input === undefined || input === null) return null;
  if (!Array.isArray(input)) throw new ValidationError(FIELD, 'must be an array of line items');
  if (input.length === 0) return null;
  if (input.length > MAX_LINE_ITEMS)
    throw new ValidationError(FIELD, `must hold at most ${MAX_LINE_ITEMS} line items`);
  const problems: { field: string; message: string }[] = [];
  const items: LineItem[] = [];
  input.forEach((entry: unknown, index) => {
    const field = `${FIELD}[${index}]`;
    const item = parseLineItem(field, entry, currency, problems);
    if (item) items.push(item);
  });
  if (problems.length > 0) throw new ValidationError(problems);
  return items;
}

/** The line's amount: quantity × unit price, exact. */
export function lineTotal(item: LineItem): Money {
  return { currency: item.unitPrice.currency, minorUnits: item.unitPrice.minorUnits * BigInt(item.quantity) };
}

/** The lines' sum, in minor units of their currency. */
export function lineItemsTotal(items: readonly LineItem[]): bigint {
  return items.reduce((sum, item) => sum + lineTotal(item).minorUnits, 0n);
}

/** VALIDATION_ERROR on `line_items` unless the lines add up to the price exactly. */
export function assertLineItemsAddUp(items: readonly LineItem[], price: Money): void {
  const total = lineItemsTotal(items);
  if (total === price.minorUnits) return;
  const code = price.currency.code;
  const sum = formatMoney({ currency: price.currency, minorUnits: total });
  throw new ValidationError(
    FIELD,
    `must add up to the amount: the lines total ${sum} ${code}, the amount is ${formatMoney(price)} ${code}`,
  );
}

/**
 * The lines of one payment from a link bought `times` over: each line's quantity multiplied, so they add up to
 * the unit price × `times`, the payment's price.
 */
export function lineItemsTimes(items: readonly LineItem[], times: number): readonly LineItem[] {
  return items.map((item) => ({ ...item, quantity: item.quantity * times }));
}

/** The lines as a client writes them (`parseLineItems` reads them back): what a link hands its payment. */
export function lineItemsInput(items: readonly LineItem[]) {
  return items.map((item) => ({
    name: item.name,
    quantity: String(item.quantity),
    unit_price: formatMoney(item.unitPrice),
  }));
}

/** The lines as the API and the webhooks show them: exact decimal strings, each line's total beside it. */
export function describeLineItems(items: readonly LineItem[]) {
  return items.map((item) => ({
    name: item.name,
    quantity: item.quantity,
    unit_price: formatMoney(item.unitPrice),
    total: formatMoney(lineTotal(item)),
  }));
}

/** As stored: JSON text of `{name, quantity, unit_minor_units}` (money as integer text), or null for none. */
export function lineItemsText(items: readonly LineItem[] | null): string | null {
  if (items === null || items.length === 0) return null;
  return JSON.stringify(
    items.map((item) => ({
      name: item.name,
      quantity: item.quantity,
      unit_minor_units: item.unitPrice.minorUnits.toString(),
    })),
  );
}

/** Stored JSON text back to lines in `currency`, the payment's or the link's. */
export function lineItemsFromText(text: string | null, currency: Currency): readonly LineItem[] | null {
  if (text === null) return null;
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('stored line items are not an array');
  return parsed.map((entry: { name: string; quantity: number; unit_minor_units: string }) => ({
    name: entry.name,
    quantity: Number(entry.quantity),
    unitPrice: { currency, minorUnits: BigInt(entry.unit_minor_units) },
  }));
}

function parseLineItem(
  field: string,
  entry: unknown,
  currency: Currency | undefined,
  problems: { field: string; message: string }[],
): LineItem | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problems.push({ field, message: 'must be an object with name, quantity and unit_price' });
    return undefined;
  }
  const record = entry as Record<string, unknown>;
  const before = problems.length;
  const check = <T>(key: string, parse: (value: unknown) => T): T | undefined => {
    try {
      return parse(record[key]);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push({ field: `${field}.${key}`, message: error.details[0]?.message ?? error.message });
      return undefined;
    }
  };
  const name = check('name', parseName);
  const quantity = check('quantity', parseQuantity);
  // An unknown currency is refused on its own field; the lines are then read at USDC's 6 places, the finest.
  const unitPrice = check('unit_price', (value) => parseUnitPrice(value, currency ?? USDC));
  for (const key of Object.keys(record)) {
    if (!ITEM_KEYS.has(key))
      problems.push({
        field,
        message: `has no field ${JSON.stringify(key.slice(0, 40))}: name, quantity, unit_price`,
      });
  }
  if (problems.length > before || name === undefined || quantity === undefined || unitPrice === undefined)
    return undefined;
  return { name, quantity, unitPrice };
}

function parseName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ValidationError('name', 'is required');
  const name = value.trim();
  if (name.length > MAX_LINE_ITEM_NAME_LENGTH)
    throw new ValidationError('name', `must be at most ${MAX_LINE_ITEM_NAME_LENGTH} characters`);
  const problem = textProblem(name);
  if (problem) throw new ValidationError('name', problem);
  return name;
}

/** A JSON integer (as its text, or a number) or a string of digits; never a fraction, zero or a sign. */
function parseQuantity(value: unknown): number {
  const message = `must be an integer from 1 to ${MAX_LINE_ITEM_QUANTITY}`;
  if (value === undefined || value === null) throw new ValidationError('quantity', 'is required');
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,7}$/.test(text)) throw new ValidationError('quantity', message);
  const quantity = Number(text);
  if (quantity < 1 || quantity > MAX_LINE_ITEM_QUANTITY) throw new ValidationError('quantity', message);
  return quantity;
}

/** A decimal (text; JSON numbers arrive as their text) of at most the currency's places, zero or more. */
function parseUnitPrice(value: unknown, currency: Currency): Money {
  if (value === undefined || value === null) throw new ValidationError('unit_price', 'is required');
  const parsed = typeof value === 'string' ? parseDecimal(value.trim()) : 'not_a_number';
  if (parsed === 'not_a_number') throw new ValidationError('unit_price', 'must be a decimal number');
  if (parsed === 'too_many_digits') throw new ValidationError('unit_price', 'has too many digits');
  if (parsed.units < 0n) throw new ValidationError('unit_price', 'must not be negative');
  return amountIn('unit_price', parsed, currency);
}
