import { z } from 'zod';
import { JsonNumber } from './losslessJson.ts';

/** The schemas of what a payment or a link sells, line by line (decision 0051). */

/** A JSON number in a line's fields read as its exact text, as every amount is. */
const numbersAsText = (value: unknown): unknown =>
  value instanceof JsonNumber
    ? value.text
    : Array.isArray(value)
      ? value.map(numbersAsText)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, numbersAsText(inner)]))
        : value;

/**
 * `line_items` in a request: any JSON here (numbers as their text), checked by the use case
 * (domain/lineItems.ts) to name each fault of each line (`line_items[1].quantity`) and the sum.
 */
export const LineItemsInput = z
  .unknown()
  .optional()
  .transform(numbersAsText)
  .meta({
    description:
      'What is sold, line by line, shown to the customer on the checkout, the receipt, its e-mail and PDF: at most 100 lines of `name` (1 to 200 characters), `quantity` (an integer from 1 to 1,000,000) and `unit_price` (a decimal in `currency`, 0 or more, as a string or a number). quantity × unit_price summed over the lines must equal `amount` exactly',
    type: 'array',
    maxItems: 100,
    items: {
      type: 'object',
      required: ['name', 'quantity', 'unit_price'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', maxLength: 200 },
        quantity: { type: 'integer', minimum: 1, maximum: 1_000_000 },
        unit_price: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      },
    },
    example: [
      { name: 'Espresso beans 1 kg', quantity: 2, unit_price: '24.50' },
      { name: 'Shipping', quantity: 1, unit_price: '5.00' },
    ],
  });

/** `line_items` in a response: each line with its total, exact decimals in the price's currency. */
export const LineItemsOutput = z
  .array(
    z.object({
      name: z.string(),
      quantity: z.number().int(),
      unit_price: z.string().meta({ description: 'Exact decimal in the currency', example: '24.50' }),
      total: z.string().meta({ description: 'quantity × unit_price, exact', example: '49.00' }),
    }),
  )
  .meta({ description: 'What is sold, line by line; the totals add up to the amount' });
