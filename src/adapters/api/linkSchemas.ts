import { z } from 'zod';
import { LineItemsInput, LineItemsOutput } from './lineItemSchemas.ts';
import { DecimalInput, MetadataInput, MetadataOutput, optionalString, PageLimitQuery } from './schemas.ts';

/** The reusable links' request and response schemas (validated, serialized, and in /openapi.json). */

/** A decimal or an integer, as a JSON number (read losslessly) or a string, optional; its exact text. */
const optionalNumber = (description: string) =>
  DecimalInput.nullish()
    .transform((value) => value ?? undefined)
    .meta({ description });

export const CreateLinkBody = z.object(
  {
    title: optionalString('Shown to the payer as the page heading (required, at most 200 characters)', 200),
    description: optionalString('Shown to the payer under the title', 2000),
    image_url: optionalString('https URL of an image shown on the page; validated, never fetched', 2048),
    price_type: z.enum(['fixed', 'open'], { error: 'must be fixed or open' }).meta({
      description: 'fixed: a set price (optionally times a quantity); open: the payer types the amount',
    }),
    currency: optionalString(
      'ISO 4217 code (EUR, USD, …) or USDC: the currency of every amount of the link',
      8,
    ),
    amount: optionalNumber('price_type fixed: the price of one'),
    max_quantity: optionalNumber(
      'price_type fixed: the payer picks a quantity from 1 to this (1 to 1000; default 1, no choice)',
    ),
    min_amount: optionalNumber('price_type open: the least the payer may type (included)'),
    max_amount: optionalNumber('price_type open: the most the payer may type (included)'),
    suggested_amounts: z
      .array(z.union([DecimalInput, z.string()]), { error: 'must be an array of amounts' })
      .optional()
      .transform((values) => values?.map((value) => (typeof value === 'string' ? value : String(value))))
      .meta({ description: 'price_type open: at most 6 amounts offered as buttons, each within the bounds' }),
    max_uses: optionalNumber(
      'Payments the link takes at most (1 to 1,000,000): paid ones and those still open; an abandoned one frees its place when it expires',
    ),
    ends_at: optionalString('ISO 8601 date-time from which the link takes no payment', 40),
    success_url: optionalString(
      'https URL (http on the sandbox) where payers go once paid, `payment_id=<id>` appended',
      2048,
    ),
    cancel_url: optionalString(
      'https URL (http on the sandbox) where payers go on giving up, `payment_id=<id>` appended',
      2048,
    ),
    metadata: MetadataInput,
    line_items: LineItemsInput.meta({
      description:
        "price_type fixed only: what one purchase holds, line by line (as a payment's `line_items`), adding up to `amount` exactly; a payment for n of them holds each line n times over",
    }),
  },
  { error: 'must be a JSON object' },
);

const decimalString = z
  .string()
  .meta({ description: 'Exact decimal in the link currency', example: '10.00' });
const timestamp = z.string().meta({ description: 'ISO 8601 UTC timestamp', format: 'date-time' });

export const LinkResponse = z
  .object({
    link_id: z.uuid(),
    url: z.string().meta({ description: 'The public page payers open (on the checkout origin)' }),
    title: z.string(),
    description: z.string().nullable(),
    image_url: z.string().nullable(),
    merchant_name: z.string().meta({ description: 'Shown to the payer' }),
    price_type: z.enum(['fixed', 'open']),
    currency: z.string(),
    amount: decimalString.nullable().meta({ description: 'price_type fixed: the price of one; else null' }),
    max_quantity: z.number().int().nullable().meta({ description: 'price_type fixed; else null' }),
    min_amount: decimalString.nullable().meta({ description: 'price_type open; else null' }),
    max_amount: decimalString.nullable().meta({ description: 'price_type open; else null' }),
    suggested_amounts: z.array(decimalString).meta({ description: 'price_type open; else empty' }),
    active: z.boolean().meta({ description: 'False once deactivated (ended or used up links stay active)' }),
    deactivated_at: timestamp.nullable(),
    max_uses: z.number().int().nullable(),
    ends_at: timestamp.nullable(),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    metadata: MetadataOutput,
    line_items: LineItemsOutput.nullable().meta({
      description: 'What one purchase holds, line by line (price_type fixed); null when not itemized',
    }),
    livemode: z.boolean(),
    created_at: timestamp,
    payments_paid: z
      .number()
      .int()
      .optional()
      .meta({ description: 'Show only: how many payments made through the link are paid' }),
    amount_paid: z
      .string()
      .optional()
      .meta({ description: 'Show only: USDC those payments received, exact decimal', example: '120.50' }),
  })
  .meta({ id: 'PaymentLink' });

export const LinkParams = z.object({ link_id: z.string().max(64) });

export const ListLinksQuery = z.object({
  limit: PageLimitQuery,
  cursor: z
    .string({ error: 'must be a string' })
    .max(256, { error: 'is not a cursor returned for this query' })
    .optional()
    .meta({ description: '`next_cursor` of the previous page' }),
});

export const LinkList = z
  .object({
    links: z.array(LinkResponse).meta({ description: 'Newest first' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null on the last' }),
  })
  .meta({ id: 'PaymentLinkList' });

export const PayLinkBody = z.object(
  {
    quantity: optionalNumber('price_type fixed: how many (1 to the link max_quantity; default 1)'),
    amount: optionalNumber('price_type open: the amount the payer chose, in the link currency'),
    customer_email: optionalString('The payer e-mail address', 254),
  },
  { error: 'must be a JSON object' },
);
