import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getRefundAsAdmin, listRefundsAsAdmin } from '../../../app/refunds/listRefunds.ts';
import type { RefundRecord, RefundStore } from '../../../app/refunds/ports.ts';
import { refundResponse } from '../../web/refundPresenter.ts';
import { requireAdminToken } from '../adminAuth.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { pageOf } from '../merchantRoutes.ts';
import { AdminListRefundsQuery, AdminRefund, AdminRefundList, RefundParams } from '../refundSchemas.ts';
import { ErrorBody } from '../schemas.ts';

const security = [{ adminToken: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

/** Refunds for administrators, by merchant or by payment: the same as `paylink refunds …`. */
export function adminRefundsApi(
  deps: ApiDeps & { readonly refunds: RefundStore },
  adminToken: string,
): FastifyPluginAsyncZod {
  const respond = (record: RefundRecord) => ({
    merchant_id: record.refund.merchantId,
    ...refundResponse(record, deps.clock.now(), deps.config.checkoutUrl),
  });
  return async (app) => {
    app.addHook('onRequest', requireAdminToken(adminToken));

    app.get(
      '/admin/api/refunds/',
      {
        schema: {
          summary: "List a merchant's refunds (in one mode), or a payment's",
          tags: ['admin'],
          security,
          querystring: AdminListRefundsQuery,
          response: { 200: AdminRefundList, ...errors },
        },
      },
      async (request) => {
        const { records, nextCursor } = await listRefundsAsAdmin(deps, {
          merchantId: request.query.merchant_id,
          paymentId: request.query.payment_id,
          mode: request.query.mode,
          ...pageOf(request.query),
        });
        return { refunds: records.map(respond), next_cursor: nextCursor };
      },
    );

    app.get(
      '/admin/api/refunds/:refund_id/',
      {
        schema: {
          summary: 'Get any refund',
          tags: ['admin'],
          security,
          params: RefundParams,
          response: { 200: AdminRefund, ...errors },
        },
      },
      async (request) => respond(await getRefundAsAdmin(deps, request.params.refund_id)),
    );
  };
}
