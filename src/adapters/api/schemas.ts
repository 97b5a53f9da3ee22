import { z } from 'zod';
import { EXPIRES_IN_BOUNDS } from '../../domain/paymentInput.ts';
import { PAYMENT_STATUSES } from '../../domain/paymentStatus.ts';
import { PAYOUT_STATUSES } from '../../domain/payout.ts';
import { REFUND_STATUSES } from '../../domain/refund.ts';
import { LineItemsInput, LineItemsOutput } from './lineItemSchemas.ts';
import { JsonNumber } from './losslessJson.ts';

/** Request and response schemas. Fastify validates and serializes with them; /openapi.json is built from them. */

export const ErrorBody = z
  .object({
    error: z.string().meta({ description: 'What went wrong, for a human' }),
    code: z.string().meta({ description: 'Stable machine-readable code', example: 'VALIDATION_ERROR' }),
    field: z.string().optional().meta({
      description: 'The request field at fault, when there is one (the first, when there are several)',
    }),
    details: z
      .array(
        z.object({
          field: z
            .string()
            .meta({ description: 'A request field, as sent (`amount`; nested: `metadata.foo`)' }),
          message: z.string().meta({ description: 'What is wrong with it, for a human' }),
        }),
      )
      .optional()
      .meta({
        description:
          'Every request field at fault; present whenever code is VALIDATION_ERROR (empty when the problem is no single field’s)',
      }),
  })
  .meta({ id: 'Error' });

const requiredMessage = (expected: string) => (issue: { input: unknown }) =>
  issue.input === undefined || issue.input === null ? 'is required' : `must be ${expected}`;

/** A decimal as a JSON number (read losslessly) or a numeric string; yields its exact text. */
export const DecimalInput = z
  .custom<JsonNumber | string>((value) => value instanceof JsonNumber || typeof value === 'string', {
    error: requiredMessage('a decimal number'),
  })
  .transform((value) => (value instanceof JsonNumber ? value.text : value))
  .meta({ anyOf: [{ type: 'number' }, { type: 'string', pattern: '^-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?$' }] });

const requiredString = (description: string) =>
  z.string({ error: requiredMessage('a string') }).meta({ description });

export const optionalString = (description: string, maxLength: number) =>
  z
    .string({ error: 'must be a string' })
    .max(maxLength, { error: `must be at most ${maxLength} characters` })
    .nullish()
    .transform((value) => value ?? undefined)
    .meta({ description });

/** `metadata` in a request: any JSON here, checked by the use case (domain/metadata.ts) to name each fault. */
/** `?limit=`: a page of a listing, 1 to 100 (each listing's default is 20). */
export const PageLimitQuery = z
  .string({ error: 'must be a string' })
  .regex(/^\d{1,3}$/, { error: 'must be an integer from 1 to 100' })
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, { error: 'must be an integer from 1 to 100' })
  .optional()
  .meta({ description: 'Page size (default 20, at most 100)' });

export const MetadataInput = z
  .unknown()
  .optional()
  .meta({
    description:
      'Your own references: at most 20 keys of 1 to 40 characters of A-Z a-z 0-9 _ . -, each to a string of at most 500 characters (no control characters). Returned as sent in status, lists, exports and webhooks',
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 500 },
    maxProperties: 20,
    example: { cart_id: 'c_1234' },
  });

/** `metadata` in a response. */
export const MetadataOutput = z
  .record(z.string(), z.string())
  .meta({ description: 'Your own references, as sent', example: { cart_id: 'c_1234' } });

/** What the customer is told is sold: each present only when set. */
const soldFields = {
  title: z.string().optional().meta({ description: 'What is sold, as the customer reads it' }),
  description: z.string().optional().meta({ description: 'Shown to the customer under the title' }),
  line_items: LineItemsOutput.optional(),
};

/** Where a payment sends the customer, its metadata and its link: each present only when set. */
export const merchantPaymentFields = {
  ...soldFields,
  success_url: z.string().optional().meta({
    description: 'Where the customer goes once paid: your success_url with `payment_id=<id>` in its query',
  }),
  cancel_url: z.string().optional().meta({
    description: 'Where the customer goes on giving up: your cancel_url with `payment_id=<id>` in its query',
  }),
  metadata: MetadataOutput.optional(),
  link_id: z.uuid().optional().meta({ description: 'The reusable link the payment was made through' }),
  customer_language: z.string().optional().meta({
    description: 'The customer’s language as given on create (its language subtag: en, fr, de or es)',
  }),
};

export const CreatePaymentBody = z.object(
  {
    amount: DecimalInput.meta({ description: 'Payment amount in `currency`', example: 100.1 }),
    currency: requiredString('Currency code: ISO 4217 (USD, EUR, CAD, JPY, …) or USDC').meta({
      example: 'EUR',
    }),
    customer_email: optionalString(
      'Customer e-mail address: where the request (send_email), the receipt and refund notices go',
      254,
    ),
    customer_language: optionalString(
      'The customer’s language, a BCP-47 tag of one of en, fr, de, es (fr-CA reads as fr): the language of the e-mails written to the customer. Absent: the language the checkout showed the payer, else English',
      35,
    ).meta({ example: 'fr' }),
    send_email: z
      .boolean({ error: 'must be true or false' })
      .nullish()
      .transform((value) => value ?? undefined)
      .meta({
        description:
          'true: e-mail the payment request (merchant, amount, expiry, a button to payment_url) to customer_email, which is then required. Sent once per payment, queued with it',
      }),
    expires_in: z
      .custom<JsonNumber | null>((value) => value instanceof JsonNumber || value === null, {
        error: 'must be a whole number of seconds',
      })
      .optional()
      // Read losslessly as text: a number too large or fractional is the use case's to refuse, with the bounds.
      .transform((value) => (value instanceof JsonNumber ? Number(value.text) : undefined))
      .meta({
        type: 'integer',
        description: `How long the payment stays payable, in seconds, from ${EXPIRES_IN_BOUNDS.min} (5 minutes) to ${EXPIRES_IN_BOUNDS.max} (30 days); the quote is locked for as long. Absent: the service's default (PAYLINK_PAYMENT_TTL)`,
        example: 86_400,
      }),
    webhook_url: optionalString("Webhook URL for this payment; overrides the account's default", 2048),
    order_id: optionalString("The merchant's own order identifier", 255),
    return_url: optionalString(
      'https URL the checkout success screen links back to (kept for older integrations: prefer success_url)',
      2048,
    ),
    success_url: optionalString(
      'https URL (http on the sandbox) the customer is sent to once paid, `payment_id=<id>` added to its query; validated, never fetched',
      2048,
    ),
    cancel_url: optionalString(
      'https URL (http on the sandbox) the customer is sent to on giving up, `payment_id=<id>` added to its query',
      2048,
    ),
    metadata: MetadataInput,
    title: optionalString(
      'What is sold, shown to the customer as the heading of the checkout, the receipt and its e-mail (at most 200 characters)',
      200,
    ).meta({ example: 'Order 1042' }),
    description: optionalString('Shown to the customer under the title (at most 2000 characters)', 2000),
    line_items: LineItemsInput,
  },
  { error: 'must be a JSON object' },
);

const usdcWithUnit = z.string().meta({ description: '"<decimal> USDC"', example: '98.50 USDC' });
const decimalString = z.string().meta({ description: 'Exact decimal', example: '100.10' });
const timestamp = z.string().meta({ description: 'ISO 8601 UTC timestamp', format: 'date-time' });
const address = z
  .string()
  .meta({ description: 'Checksummed 0x address', example: '0x5FbDB2315678afecb367f032d93F642f64180aa3' });
const txHash = z.string().meta({ description: '0x transaction hash' });
const depositFields = {
  deposit_address: address
    .optional()
    .meta({ description: "This payment's own deposit address: send USDC here" }),
  chain_id: z.number().int().optional().meta({ description: 'EVM chain id (137: Polygon)' }),
  token_address: address.optional().meta({ description: 'The USDC token contract' }),
};

export const CreatePaymentResponse = z
  .object({
    success: z.literal(true),
    payment_url: z
      .string()
      .meta({ description: 'Checkout page; redirect the customer here, never in an iframe' }),
    payment_id: z.uuid(),
    message: z.string(),
    details: z.object({
      amount: decimalString,
      currency: z.string(),
      merchant_will_receive: usdcWithUnit,
      usdc_amount: decimalString.meta({ description: 'USDC the customer must send' }),
      exchange_rate: decimalString.meta({
        description: 'USDC per one unit of `currency`, locked for this payment',
      }),
      expires_at: timestamp,
      ...soldFields,
      ...depositFields,
      networks: z
        .array(
          z.object({
            chain_id: z.number().int(),
            name: z.string(),
            cctp: z
              .object({
                speed: z.enum(['fast', 'standard']),
                max_fee_bps: z.number().int().meta({
                  description:
                    'The most the CCTP fee may be, in basis points of what is sent there (0: free)',
                }),
              })
              .nullable()
              .meta({ description: 'null on the home chain (Polygon): no transfer, no fee' }),
          }),
        )
        .optional()
        .meta({
          description:
            'Where the customer may pay (the same deposit_address on each), home chain first; present only when more than the home chain is offered',
        }),
      cctp_fee_borne_by: z.literal('merchant_share').optional().meta({
        description:
          'With networks: the customer pays usdc_amount on any of them; a CCTP fee comes out of what arrives, before merchant_will_receive and the commission are computed on it',
      }),
    }),
  })
  .meta({ id: 'CreatePaymentResponse' });

export const PaymentStatusParams = z.object({ payment_id: z.string() });

export const PaymentStatusResponse = z
  .object({
    payment_id: z.uuid(),
    status: z.enum(PAYMENT_STATUSES),
    amount: decimalString,
    currency: z.string(),
    payout_amount: usdcWithUnit.meta({
      description:
        'What the merchant receives (after commission, and for a payment paid from another chain after the CCTP fee taken or the most it may still take)',
    }),
    cctp_fee: z
      .object({
        taken: decimalString.meta({
          description: 'USDC the CCTP fast transfers of this payment kept, exact',
        }),
        pending_max: decimalString.meta({
          description: 'The most CCTP may still keep of transfers not completed yet (their bound)',
        }),
        borne_by: z.literal('merchant_share').meta({
          description:
            'The fee comes out of what arrives, before the commission: the customer paid the quoted amount',
        }),
        quoted_max: decimalString.meta({
          description:
            "The most the quote's max_fee_bps let CCTP keep of what was burnt so far (0 for standard networks)",
        }),
        above_quote: z.boolean().meta({
          description:
            "true when a burn had to let CCTP keep more than quoted: Circle's minimum fee in force at the burn was above the quote's max_fee_bps for its network",
        }),
      })
      .optional()
      .meta({
        description:
          'Present only for a payment paid from another chain whose CCTP transfer has a fee taken or one still possible (a fast transfer, or a standard one under a minimum fee); absent otherwise',
      }),
    paid_at: timestamp.optional().meta({ description: 'Present only when status is paid' }),
    late: z.boolean().optional().meta({ description: 'Present only when paid: true when paid after expiry' }),
    order_id: z.string().nullable(),
    usdc_amount: decimalString,
    amount_received: decimalString.meta({
      description:
        'USDC the customer sent: until paid, every transfer seen (final or not, the same sum amount_due is reckoned from); once paid, the final transfers',
    }),
    amount_due: decimalString.meta({
      description:
        'USDC still to send: the amount less every transfer seen (final or not); 0 once paid or covered, never negative',
    }),
    amount_overpaid: decimalString.meta({
      description: 'USDC received beyond the price (final); refund it with amount "overpaid"',
    }),
    amount_refunded: decimalString
      .optional()
      .meta({ description: 'USDC that reached the customer through refunds (status endpoint only)' }),
    refunds: z
      .array(z.object({ refund_id: z.uuid(), status: z.enum(REFUND_STATUSES), amount: decimalString }))
      .optional()
      .meta({ description: "This payment's refunds, oldest first (status endpoint only)" }),
    expires_at: timestamp,
    ...depositFields,
    // The same keys as the create response's, said of a status (decision 0039): one chain, the home chain.
    chain_id: z.number().int().optional().meta({
      description:
        "The payment's home chain (137: Polygon), the chain token_address and txid are on; a transfer sent on another chain is in transfers, with its own chain_id",
    }),
    token_address: address.optional().meta({
      description:
        "On chain_id: the token of the transfer txid names (USDC, or USDC.e where accepted), else the home chain's USDC (what CCTP mints of another chain's); never another chain's token",
    }),
    token_symbol: z.string().optional().meta({
      description: "token_address's symbol: USDC, or USDC.e where the operator accepts it",
    }),
    unaccepted_transfers: z
      .array(
        z.object({
          token_address: address,
          token_symbol: z.string(),
          amount: decimalString.meta({ description: "In the token's own units" }),
          from_address: address,
          tx_hash: txHash,
        }),
      )
      .optional()
      .meta({
        description:
          'Tokens that do not pay sent to this payment by mistake (USDT, say): not counted; the operator can forward them to you',
      }),
    txid: txHash.optional().meta({
      description:
        "The customer's transfer on chain_id (the home chain) that completed the payment, or the latest seen; absent when that transfer was sent on another chain (transfers names it, with its chain_id)",
    }),
    transfers: z
      .array(
        z.object({
          chain_id: z.number().int().meta({
            description: 'EVM chain id it was sent on (137: Polygon; another chain is bridged home)',
          }),
          txid: txHash.meta({ description: 'The transaction on that chain' }),
          amount: decimalString.meta({ description: 'USDC it brought, exact' }),
          token_address: address.meta({ description: "The token's contract on that chain" }),
          token_symbol: z.string(),
          final: z.boolean().meta({
            description: "Final under that chain's finality rule; only final transfers make a payment paid",
          }),
        }),
      )
      .optional()
      .meta({
        description:
          'Every transfer counted towards this payment, on any chain, in the order they arrived, final or not (status endpoint only; [] when none)',
      }),
    payout_status: z.enum(PAYOUT_STATUSES).optional().meta({
      description:
        "Where the merchant's money is: not_due while the payment is pending or processing (there is no payout yet), then pending (due, on its way), sent, or delayed (failing for a while; see payout_delayed_reason). Absent for a payment that expired with nothing received, which has nothing to pay out",
    }),
    payout_txid: txHash
      .optional()
      .meta({ description: 'The latest transaction that forwarded funds to the merchant' }),
    payout_delayed_reason: z.string().optional().meta({
      description: "Present only when payout_status is delayed: why, in the token's own words",
      example: 'Blacklistable: account is blacklisted',
    }),
    ...merchantPaymentFields,
  })
  .meta({ id: 'PaymentStatusResponse' });

export const ConvertQuery = z.object({
  amount: requiredString('Amount to convert').meta({ example: '100.10' }),
  currency: requiredString('Currency code').meta({ example: 'EUR' }),
});

export const ConvertResponse = z
  .object({
    amount: decimalString,
    currency: z.string(),
    usdc_amount: decimalString,
    exchange_rate: decimalString,
  })
  .meta({ id: 'ConvertResponse' });
