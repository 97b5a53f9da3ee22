import { z } from 'zod';
import { REFUND_STATUSES } from '../../domain/refund.ts';
import { DecimalInput, optionalString, PageLimitQuery } from './schemas.ts';

/** The refund endpoints' request and response schemas (validated, serialized, and in /openapi.json). */

export const CreateRefundBody = z.object(
  {
    payment_id: z
      .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
      .max(64, { error: 'must be a payment id (UUID)' })
      .meta({ description: 'The payment to refund' }),
    amount: DecimalInput.meta({
      description:
        'USDC to send back, or an amount in the payment\'s own currency (with `currency`), or "overpaid" for exactly what the customer sent beyond the price',
      example: '10.00',
    }),
    currency: optionalString("USDC (default) or the payment's own currency, converted at its locked rate", 8),
    reason: optionalString('Shown to the customer on the claim page and kept with the refund', 500),
    address: optionalString(
      "The customer's address, when you know it; otherwise the customer gives it on the claim page",
      64,
    ),
  },
  { error: 'must be a JSON object' },
);

const decimalString = z.string().meta({ description: 'Exact decimal', example: '10.00' });
const timestamp = z.string().meta({ description: 'ISO 8601 UTC timestamp', format: 'date-time' });

export const RefundResponse = z
  .object({
    refund_id: z.uuid(),
    payment_id: z.uuid(),
    status: z.enum(REFUND_STATUSES),
    amount: decimalString.meta({ description: 'USDC the customer receives' }),
    currency: z.literal('USDC'),
    requested_amount: z.string(),
    requested_currency: z.string(),
    reason: z.string().nullable(),
    address: z.string().nullable().meta({ description: "The customer's address, once given" }),
    address_source: z.enum(['merchant', 'customer']).nullable(),
    amount_funded: decimalString.meta({
      description: 'USDC your funding brought in (final); more than `amount` is sent on to the customer too',
    }),
    amount_sent: decimalString.meta({ description: 'USDC that reached the customer' }),
    txid: z.string().nullable().meta({ description: 'The transaction that paid the customer' }),
    payout_delayed_reason: z.string().nullable(),
    created_at: timestamp,
    livemode: z.boolean(),
    claim_url: z.string().optional().meta({
      description:
        'While the address is unknown: send this link to the customer, who gives the address there',
    }),
    claim_expires_at: timestamp.optional().meta({ description: 'While the address is unknown' }),
    deposit_address: z.string().optional().meta({
      description: 'Once the address is known: send exactly `amount` USDC here, from any wallet or exchange',
    }),
    chain_id: z.number().int().optional(),
    token_address: z.string().optional(),
    funding_uri: z
      .string()
      .optional()
      .meta({ description: 'EIP-681 request of that transfer (for a QR code)' }),
    funding_qr_url: z.string().optional().meta({ description: 'That request as a QR code (SVG)' }),
  })
  .meta({ id: 'Refund' });

export const RefundParams = z.object({ refund_id: z.string().max(64) });

export const ListRefundsQuery = z.object({
  payment_id: z.string({ error: 'must be a string' }).max(64).optional(),
  limit: PageLimitQuery,
  cursor: z
    .string({ error: 'must be a string' })
    .max(256, { error: 'is not a cursor returned for this query' })
    .optional(),
});

export const RefundList = z
  .object({
    refunds: z.array(RefundResponse).meta({ description: 'Newest first' }),
    next_cursor: z.string().nullable(),
  })
  .meta({ id: 'RefundList' });

/** A refund as an administrator sees it: the merchant's view, with whose it is. */
export const AdminRefund = RefundResponse.extend({ merchant_id: z.string() }).meta({ id: 'AdminRefund' });

export const AdminListRefundsQuery = ListRefundsQuery.extend({
  merchant_id: z.string({ error: 'must be a string' }).max(64).optional(),
  mode: z.enum(['live', 'test'], { error: 'must be live or test' }).optional(),
});

export const AdminRefundList = z
  .object({
    refunds: z.array(AdminRefund).meta({ description: 'Newest first' }),
    next_cursor: z.string().nullable(),
  })
  .meta({ id: 'AdminRefundList' });
