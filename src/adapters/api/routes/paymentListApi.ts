import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { exportPaymentsCsv, exportRange } from '../../../app/payments/exportPayments.ts';
import { listPayments, MAX_LIST_LIMIT } from '../../../app/payments/listPayments.ts';
import { payoutStateOf } from '../../../domain/payment.ts';
import { PAYMENT_STATUSES } from '../../../domain/paymentStatus.ts';
import { ExportRangeQuery, sendCsv } from '../../web/csvDownload.ts';
import type { ApiDeps } from '../apiDeps.ts';
import {
  DEFAULT_PAGE_LIMIT,
  merchantPlugin,
  merchantRoutes,
  PAGED_LISTING,
  pageOf,
} from '../merchantRoutes.ts';
import { paymentStatusResponse } from '../presenters.ts';
import { PaymentStatusResponse } from '../schemas.ts';

const ListPaymentsQuery = z.object({
  status: z
    .enum(PAYMENT_STATUSES, { error: `must be one of ${PAYMENT_STATUSES.join(', ')}` })
    .optional()
    .meta({ description: 'Only payments with this status (as the status endpoint would report it now)' }),
  order_id: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(255, { error: 'must be at most 255 characters' })
    .optional()
    .meta({ description: 'Only payments created with this order_id' }),
  link_id: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(64, { error: 'must be a link id' })
    .optional()
    .meta({ description: 'Only payments made through this reusable link' }),
  created_after: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z' })
    .optional()
    .meta({ description: 'Only payments created strictly after this moment' }),
  limit: z
    .string({ error: 'must be a string' })
    .regex(/^\d{1,3}$/, { error: `must be an integer from 1 to ${MAX_LIST_LIMIT}` })
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_LIST_LIMIT, { error: `must be an integer from 1 to ${MAX_LIST_LIMIT}` })
    .optional()
    .meta({ description: `Page size (default ${DEFAULT_PAGE_LIMIT}, at most ${MAX_LIST_LIMIT})` }),
  cursor: z
    .string({ error: 'must be a string' })
    .max(256, { error: 'is not a cursor returned for this query' })
    .optional()
    .meta({ description: '`next_cursor` of the previous page, with the same filters' }),
});

const PaymentList = z
  .object({
    payments: z.array(PaymentStatusResponse).meta({ description: 'Newest first' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
  })
  .meta({ id: 'PaymentList' });

/** `GET /payments/api/payments/`: the caller's payments, newest first, with cursor pagination. */
export function paymentListApi(deps: ApiDeps): FastifyPluginAsyncZod {
  return merchantPlugin(deps, (app) => {
    const routes = merchantRoutes(app, 'payments');
    routes.get(
      '/payments/api/payments/',
      'payments:read',
      'List payments',
      { description: PAGED_LISTING, querystring: ListPaymentsQuery, response: { 200: PaymentList } },
      async ({ query }, { merchant, mode }) => {
        const { payments, nextCursor } = await listPayments(deps, merchant.id, {
          status: query.status,
          orderId: query.order_id,
          linkId: query.link_id?.toLowerCase(),
          createdAfter: query.created_after === undefined ? undefined : new Date(query.created_after),
          ...pageOf(query),
          mode,
        });
        const now = deps.clock.now();
        return {
          payments: payments.map(({ payment, state }) =>
            paymentStatusResponse(
              payment,
              state,
              payoutStateOf(payment, state, deps.config.payoutPolicy, now),
            ),
          ),
          next_cursor: nextCursor,
        };
      },
    );

    routes.get(
      '/payments/api/payments/export/',
      'payments:read',
      'Export payments as CSV',
      {
        description:
          'Payments created from `from` (inclusive) to `to` (exclusive), newest first, as RFC 4180 CSV with exact ' +
          'decimal amounts, streamed. Text cells a spreadsheet would run as a formula begin with an apostrophe, ' +
          'and so does each piece of one after a list separator of any locale (, ; tab | ؛ ،) or a line break, ' +
          'the cell quoted.',
        querystring: ExportRangeQuery,
        response: {
          200: z.string().meta({ description: 'text/csv: a header line, then one line per payment' }),
        },
      },
      async ({ query }, { merchant, mode }, reply) => {
        const range = exportRange(query.from, query.to);
        return sendCsv(
          reply,
          'payments.csv',
          exportPaymentsCsv({ ...deps, payoutPolicy: deps.config.payoutPolicy }, merchant.id, mode, range),
        );
      },
    );
  });
}
