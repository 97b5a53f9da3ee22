import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { exportRange } from '../../../app/payments/exportPayments.ts';
import { cancelRefund } from '../../../app/refunds/cancelRefund.ts';
import { createRefund } from '../../../app/refunds/createRefund.ts';
import { exportRefundsCsv } from '../../../app/refunds/exportRefunds.ts';
import { getRefund, listRefunds } from '../../../app/refunds/listRefunds.ts';
import type { RefundStore } from '../../../app/refunds/ports.ts';
import { customerEmails } from '../../email/customerEmails.ts';
import { ExportRangeQuery, sendCsv } from '../../web/csvDownload.ts';
import { refundResponse } from '../../web/refundPresenter.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { authenticated, keyModeOf } from '../merchantAuth.ts';
import { merchantPlugin, merchantSchema, pageOf, type ZodApp } from '../merchantRoutes.ts';
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
  return merchantPlugin(deps, createRoute, listRoutes, refundRoutes);
}

type RefundApiDeps = ApiDeps & { readonly refunds: RefundStore };

/** A refund as the API answers it, its status derived now. */
function responder(deps: RefundApiDeps) {
  return (record: Parameters<typeof refundResponse>[0]) =>
    refundResponse(record, deps.clock.now(), deps.config.checkoutUrl);
}

/** `POST /payments/api/refunds/`. */
function createRoute(app: ZodApp, deps: RefundApiDeps): void {
  const respond = responder(deps);
  app.post(
    '/payments/api/refunds/',
    {
      schema: merchantSchema('refunds', 'Refund a payment, fully or in part', {
        body: CreateRefundBody,
        headers: z.object({
          'idempotency-key': z.string().optional().meta({
            description: 'Makes the request safe to retry: the same key and body return the same refund',
          }),
        }),
        response: { 201: RefundResponse, 409: ErrorBody, 415: ErrorBody, 422: ErrorBody },
      }),
    },
    async (request, reply) => {
      const body = request.body;
      const key = request.headers['idempotency-key'];
      const { record, replayed } = await createRefund(
        {
          ...deps,
          refundClaimTtlMs: deps.config.refundClaimTtlMs,
          refundNotices: customerEmails(deps.config, (chainId) => deps.explorers?.get(chainId))
            ?.refundNotices,
        },
        authenticated(request).id,
        keyModeOf(request),
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
function listRoutes(app: ZodApp, deps: RefundApiDeps): void {
  const respond = responder(deps);
  app.get(
    '/payments/api/refunds/',
    {
      schema: merchantSchema('refunds', 'List refunds', {
        querystring: ListRefundsQuery,
        response: { 200: RefundList },
      }),
    },
    async (request) => {
      const { records, nextCursor } = await listRefunds(deps, authenticated(request).id, keyModeOf(request), {
        paymentId: request.query.payment_id,
        ...pageOf(request.query),
      });
      return { refunds: records.map(respond), next_cursor: nextCursor };
    },
  );

  app.get(
    '/payments/api/refunds/export/',
    {
      schema: merchantSchema('refunds', 'Export refunds as CSV', {
        description:
          'Refunds created from `from` (inclusive) to `to` (exclusive), newest first, as RFC 4180 CSV with exact ' +
          'decimal amounts, streamed, like the payments export.',
        querystring: ExportRangeQuery,
        response: {
          200: z.string().meta({ description: 'text/csv: a header line, then one line per refund' }),
        },
      }),
    },
    async (request, reply) => {
      const range = exportRange(request.query.from, request.query.to);
      return sendCsv(
        reply,
        'refunds.csv',
        exportRefundsCsv(deps, authenticated(request).id, keyModeOf(request), range),
      );
    },
  );
}

/** One refund: read, or canceled. */
function refundRoutes(app: ZodApp, deps: RefundApiDeps): void {
  const respond = responder(deps);
  app.get(
    '/payments/api/refunds/:refund_id/',
    {
      schema: merchantSchema('refunds', 'Get a refund', {
        params: RefundParams,
        response: { 200: RefundResponse },
      }),
    },
    async (request) =>
      respond(await getRefund(deps, authenticated(request).id, keyModeOf(request), request.params.refund_id)),
  );

  app.post(
    '/payments/api/refunds/:refund_id/cancel/',
    {
      schema: merchantSchema('refunds', 'Cancel a refund not yet funded', {
        params: RefundParams,
        response: { 200: RefundResponse, 409: ErrorBody },
      }),
    },
    async (request) => {
      const merchantId = authenticated(request).id;
      const mode = keyModeOf(request);
      const { refund } = await getRefund(deps, merchantId, mode, request.params.refund_id);
      return respond(await cancelRefund(deps, merchantId, mode, refund.id));
    },
  );
}
