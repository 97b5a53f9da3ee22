import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rememberingConversions } from '../../../app/payments/convertAmount.ts';
import { createPayment } from '../../../app/payments/createPayment.ts';
import { createPaymentOnce } from '../../../app/payments/createPaymentOnce.ts';
import { getPaymentStatus } from '../../../app/payments/getPaymentStatus.ts';
import { mustWait } from '../../../app/shared/valueOrPromise.ts';
import { formatMoney, formatUsdc } from '../../../domain/money.ts';
import { type Payment, paymentTerms, payoutStateOf } from '../../../domain/payment.ts';
import { stateHoldsUntil } from '../../../domain/paymentStatus.ts';
import { payoutStateHoldsUntil } from '../../../domain/payout.ts';
import { formatRate } from '../../../domain/quote.ts';
import { customerEmails } from '../../email/customerEmails.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { merchantPlugin, merchantRoutes, type ZodApp } from '../merchantRoutes.ts';
import { createdPaymentResponse, paymentStatusResponse } from '../presenters.ts';
import {
  ConvertQuery,
  ConvertResponse,
  CreatePaymentBody,
  CreatePaymentResponse,
  ErrorBody,
  PaymentStatusParams,
  PaymentStatusResponse,
} from '../schemas.ts';
import { statusReadCache } from '../statusReadCache.ts';

/** The three merchant endpoints of the spec, paths exactly as written there. */
export function merchantApi(deps: ApiDeps): FastifyPluginAsyncZod {
  return merchantPlugin(deps, createRoute, statusRoute, convertRoute);
}

/** `POST /payments/api/create/`. */
function createRoute(app: ZodApp, deps: ApiDeps): void {
  // Made once: copying every dependency on each create cost a measurable share of one (docs/performance.md).
  const createDeps = {
    ...deps,
    paymentTtlMs: deps.config.paymentTtlMs,
    maxAmountBaseUnits: deps.config.maxAmountBaseUnits,
    minAmountBaseUnits: deps.config.minAmountBaseUnits,
    webhookAllowPrivate: deps.config.webhookAllowPrivate,
    paymentRequests: customerEmails(deps.config, (chainId) => deps.explorers?.get(chainId))?.paymentRequests,
  };
  merchantRoutes(app, 'payments').post(
    '/payments/api/create/',
    'payments:write',
    'Create a payment link',
    {
      body: CreatePaymentBody,
      headers: z.object({
        'idempotency-key': z.string().optional().meta({
          description:
            'Makes the request safe to retry: the same key and body return the same payment (24 h)',
        }),
      }),
      response: {
        201: CreatePaymentResponse,
        409: ErrorBody,
        415: ErrorBody,
        422: ErrorBody,
        503: ErrorBody,
      },
    },
    async (request, { merchant, mode }, reply) => {
      const body = request.body;
      const input = {
        amount: body.amount,
        currency: body.currency,
        customerEmail: body.customer_email,
        customerLanguage: body.customer_language,
        sendEmail: body.send_email,
        expiresIn: body.expires_in,
        webhookUrl: body.webhook_url,
        orderId: body.order_id,
        returnUrl: body.return_url,
        successUrl: body.success_url,
        cancelUrl: body.cancel_url,
        metadata: body.metadata,
        title: body.title,
        description: body.description,
        lineItems: body.line_items,
      };
      const idempotencyKey = request.headers['idempotency-key'];
      let payment: Payment;
      if (idempotencyKey === undefined) {
        payment = await createPayment(createDeps, merchant, input, { mode });
      } else {
        const once = await createPaymentOnce(
          createDeps,
          merchant,
          input,
          {
            key: Array.isArray(idempotencyKey) ? idempotencyKey.join(',') : idempotencyKey,
            requestHash: request.bodySha256 ?? '',
          },
          mode,
        );
        payment = once.payment;
        if (once.replayed) reply.header('idempotent-replayed', 'true');
      }
      request.log.info({ payment: payment.id }, 'payment created');
      return reply.status(201).send(createdPaymentResponse(payment, deps));
    },
  );
}

/** `GET /payments/api/status/:payment_id/`, read through the status cache where there is one. */
function statusRoute(app: ZodApp, deps: ApiDeps): void {
  const statusReads =
    deps.paymentChanges && deps.config.statusCacheEntries > 0
      ? statusReadCache(deps.paymentChanges, deps.config.statusCacheEntries)
      : undefined;
  merchantRoutes(app, 'payments').get(
    '/payments/api/status/:payment_id/',
    'payments:read',
    'Check payment status',
    { params: PaymentStatusParams, response: { 200: PaymentStatusResponse, 503: ErrorBody } },
    async (request, { merchant, mode }, reply) => {
      const merchantId = merchant.id;
      const paymentId = request.params.payment_id.toLowerCase();
      reply.type('application/json; charset=utf-8');
      // A serialized body is sent as it is; the route's types only know the unserialized response.
      const cached = statusReads?.lookup(paymentId, merchantId, mode, deps.clock.now());
      if (cached !== undefined) return reply.send(cached as never);

      const mark = statusReads?.mark(paymentId) ?? null;
      const { payment, state, unaccepted, transfers } = await getPaymentStatus(
        deps,
        merchantId,
        paymentId,
        mode,
      );
      const refunds = deps.refunds ? await deps.refunds.listForPayment(payment.id) : undefined;
      const now = deps.clock.now();
      const policy = deps.config.payoutPolicy;
      const payout = payoutStateOf(payment, state, policy, now);
      // Serialized by the route's schema here rather than by Fastify after return, so the cache keeps it.
      const body = String(
        reply.serialize(
          paymentStatusResponse(payment, state, payout, {
            transfers,
            unaccepted,
            refunds: refunds && { records: refunds, now },
          }),
        ),
      );
      statusReads?.remember(paymentId, mark, {
        merchantId,
        mode,
        body,
        // Until the clock alone would change it: the link expiring, or a failing payout becoming delayed.
        holdsUntil: earliest(
          stateHoldsUntil(paymentTerms(payment), state, now),
          payoutStateHoldsUntil(payment.payout, policy, now),
        ),
      });
      return reply.send(body as never);
    },
  );
}

/** `GET /payments/api/convert/`. */
function convertRoute(app: ZodApp, deps: ApiDeps): void {
  // Convert answers are made once per amount, currency and agreed rate, checked against the route's schema.
  const conversions = rememberingConversions(
    { ...deps, maxAmountBaseUnits: deps.config.maxAmountBaseUnits },
    ({ quote }) =>
      JSON.stringify(
        ConvertResponse.parse({
          amount: formatMoney(quote.amount),
          currency: quote.amount.currency.code,
          usdc_amount: formatUsdc(quote.usdcBaseUnits),
          exchange_rate: formatRate(quote.rate),
        }),
      ),
  );
  merchantRoutes(app, 'payments').get(
    '/payments/api/convert/',
    'payments:read',
    'Convert an amount to USDC',
    { querystring: ConvertQuery, response: { 200: ConvertResponse, 503: ErrorBody } },
    (request, _caller, reply) => {
      reply.type('application/json; charset=utf-8');
      // A serialized body is sent as it is; the route's types only know the unserialized response. Sent at
      // once while the rate is at hand: a promise per request was a measurable share of a conversion.
      const answer = conversions(request.query);
      if (mustWait(answer)) {
        return answer.then((body) => {
          reply.send(body as never);
        });
      }
      reply.send(answer as never);
    },
  );
}

function earliest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.getTime() <= b.getTime() ? a : b;
}
