import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { exportRange } from '../../../app/payments/exportPayments.ts';
import { cancelRefund } from '../../../app/refunds/cancelRefund.ts';
import { createRefund } from '../../../app/refunds/createRefund.ts';
import { exportRefundsCsv } from '../../../app/refunds/exportRefunds.ts';
import { getRefund, listRefunds } from '../../../app/refunds/listRefunds.ts';
import type { RefundRecord, RefundStore } from '../../../app/refunds/ports.ts';
import { customerEmails } from '../../email/customerEmails.ts';
import { ExportRangeQuery, sendCsv } from '../../web/csvDownload.ts';
import { refundResponse } from '../../web/refundPresenter.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { merchantPlugin, merchantRoutes, PAGED_LISTING, pageOf } from '../merchantRoutes.ts';
import {
  CreateRefundBody,
  ListRefundsQuery,
  RefundList,
  RefundParams,
  RefundResponse,
} from '../refundSchemas.ts';
import { ErrorBody } from '../schemas.ts';

/** Refunds (docs/decisions/0013-refunds.md): create, read, list, cancel; same auth and errors as payments. */
export function refundApi(deps: RefundApiDeps): FastifyPluginAsyncZod {
  return merchantPlugin(deps, (app) => {
    const refunds = merchantRoutes(app, 'refunds');
    // A refund as the API answers it, its status derived now.
    const respond = (record: RefundRecord) =>
      refundResponse(record, deps.clock.now(), deps.config.checkoutUrl);
    createRoute(refunds, deps, respond);
    listRoutes(refunds, deps, respond);
    refundRoutes(refunds, deps, respond);
  });
}

type RefundApiDeps = ApiDeps & { readonly refunds: RefundStore };
type RefundRoutes = ReturnType<typeof merchantRoutes>;
type Respond = (record: RefundRecord) => ReturnType<typeof refundResponse>;

/** `POST /payments/api/refunds/`. */
function createRoute(refunds: RefundRoutes, deps: RefundApiDeps, respond: Respond): void {
  refunds.post(
    '/payments/api/refunds/',
    'refunds:write',
    'Refund a payment, fully or in part',
    {
      body: CreateRefundBody,
      headers: z.object({
        'idempotency-key': z.string().optional().meta({
          description: 'Makes the request safe to retry: the same key and body return the same refund',
        }),
      }),
      response: { 201: RefundResponse, 409: ErrorBody, 415: ErrorBody, 422: ErrorBody },
    },
    async (request, { merchant, mode }, reply) => {
      const body = request.body;
      const key = request.headers['idempotency-key'];
      const { record, replayed } = await createRefund(
        {
          ...deps,
          refundClaimTtlMs: deps.config.refundClaimTtlMs,
          refundNotices: customerEmails(deps.config, (chainId) => deps.explorers?.get(chainId))
            ?.refundNotices,
        },
        merchant.id,
        mode,
        {
          paymentId: body.payment_id,
          amount: body.amount,
          currency: body.currency,
          reason: body.reason,
          address: body.address,
        },
        key === undefined
          ? undefined
          : { key: Array.isArray(key) ? key.join(',') : key, requestHash: request.bodySha256 ?? '' },
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      else request.log.info({ refund: record.refund.id, payment: record.refund.paymentId }, 'refund created');
      return reply.status(201).send(respond(record));
    },
  );
}

/** A merchant's refunds: one page of them, or all of a range as CSV. */
function listRoutes(refunds: RefundRoutes, deps: RefundApiDeps, respond: Respond): void {
  refunds.get(
    '/payments/api/refunds/',
    'refunds:read',
    'List refunds',
    { description: PAGED_LISTING, querystring: ListRefundsQuery, response: { 200: RefundList } },
    async ({ query }, { merchant, mode }) => {
      const page = await listRefunds(deps, merchant.id, mode, {
        paymentId: query.payment_id,
        ...pageOf(query),
      });
      return { refunds: page.records.map(respond), next_cursor: page.nextCursor };
    },
  );
  refunds.get(
    '/payments/api/refunds/export/',
    'refunds:read',
    'Export refunds as CSV',
    {
      description:
        'Refunds created from `from` (inclusive) to `to` (exclusive), newest first, as RFC 4180 CSV with exact ' +
        'decimal amounts, streamed, like the payments export.',
      querystring: ExportRangeQuery,
      response: {
        200: z.string().meta({ description: 'text/csv: a header line, then one line per refund' }),
      },
    },
    async ({ query }, { merchant, mode }, reply) =>
      sendCsv(
        reply,
        'refunds.csv',
        exportRefundsCsv(deps, merchant.id, mode, exportRange(query.from, query.to)),
      ),
  );
}

/** One refund: read, or canceled. */
function refundRoutes(refunds: RefundRoutes, deps: RefundApiDeps, respond: Respond): void {
  refunds.get(
    '/payments/api/refunds/:refund_id/',
    'refunds:read',
    'Get a refund',
    { params: RefundParams, response: { 200: RefundResponse } },
    async ({ params }, { merchant, mode }) =>
      respond(await getRefund(deps, merchant.id, mode, params.refund_id)),
  );
  refunds.post(
    '/payments/api/refunds/:refund_id/cancel/',
    'refunds:write',
    'Cancel a refund not yet funded',
    { params: RefundParams, response: { 200: RefundResponse, 409: ErrorBody } },
    async ({ params }, { merchant, mode }) => {
      const { refund } = await getRefund(deps, merchant.id, mode, params.refund_id);
      return respond(await cancelRefund(deps, merchant.id, mode, refund.id));
    },
  );
}
