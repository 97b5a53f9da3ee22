import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WAITING_LIMIT } from '../../app/dashboard/merchantHome.ts';
import { WAITING_KINDS, type WaitingKind } from '../../app/dashboard/ports.ts';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { exportPaymentsCsv, exportRange } from '../../app/payments/exportPayments.ts';
import { getPaymentStatus, isPaymentId, PaymentNotFoundError } from '../../app/payments/getPaymentStatus.ts';
import { type ListedPayment, listPayments } from '../../app/payments/listPayments.ts';
import { searchPayments } from '../../app/payments/searchPayments.ts';
import { cancelRefund } from '../../app/refunds/cancelRefund.ts';
import { createRefund } from '../../app/refunds/createRefund.ts';
import { exportRefundsCsv } from '../../app/refunds/exportRefunds.ts';
import { listRefunds } from '../../app/refunds/listRefunds.ts';
import {
  getWebhookEvent,
  listMerchantWebhookEvents,
  WebhookEventNotFoundError,
} from '../../app/webhooks/listWebhookEvents.ts';
import { resendWebhookEvent } from '../../app/webhooks/resendWebhookEvent.ts';
import { type KeyMode, keyModeOf } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { payoutStateOf } from '../../domain/payment.ts';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../domain/paymentStatus.ts';
import { DEFAULT_PAYOUT_POLICY } from '../../domain/payout.ts';
import { refundFundingOf } from '../../domain/refund.ts';
import { sendCsv } from '../web/csvDownload.ts';
import { qrSvg } from '../web/qrCode.ts';
import { refundResponse } from '../web/refundPresenter.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { developerPages } from './developerPages.ts';
import { linkPages } from './linkPages.ts';
import { newPaymentPages, requestOffer } from './newPaymentPages.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { paymentsByIds, refundedOf } from './paymentReads.ts';
import { type PaymentFilters, renderPayments } from './renderMerchantPages.ts';
import { type RefundView, renderPayment } from './renderPaymentPage.ts';

const PAGE_SIZE = 50;

type ExportRange = ReturnType<typeof exportRange>;
type ListQuery = Partial<
  Record<'status' | 'from' | 'to' | 'order_id' | 'q' | 'mode' | 'cursor' | 'merchant' | 'waiting', string>
>;
type PaymentRequest = FastifyRequest<{ Params: { id: string } }>;

/**
 * A merchant's pages: its payments (list, search, filters, each payment with its timeline and refunds), the CSV
 * export, and the developer page (keys, webhook secret, test webhook, last deliveries). An operator reads the
 * payments of one merchant (`?merchant=`) or of every one, but acts on none of them: refunds and keys are the
 * merchant's.
 */
export function merchantPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  newPaymentPages(app, deps, kit);
  linkPages(app, deps, kit);
  app.get('/dashboard/payments', paymentsPage(deps, kit));
  app.get('/dashboard/payments/:id', paymentPage(deps, kit));
  app.post('/dashboard/payments/:id/refunds', startRefund(deps, kit));
  app.post('/dashboard/refunds/:id/cancel', cancelRefundForm(deps, kit));
  app.post('/dashboard/webhooks/:id/resend', resendWebhook(deps, kit));
  // The same exports as the API's (exportPayments.ts, exportRefunds.ts), for the signed-in merchant user.
  app.get(
    '/dashboard/export.csv',
    csvExport(kit, 'payments.csv', (merchantId, mode, range) =>
      exportPaymentsCsv(
        {
          ...deps,
          refunds: deps.refunds?.store,
          payoutPolicy: deps.payouts?.policy ?? DEFAULT_PAYOUT_POLICY,
        },
        merchantId,
        mode,
        range,
      ),
    ),
  );
  app.get(
    '/dashboard/refunds.csv',
    csvExport(kit, 'refunds.csv', (merchantId, mode, range) =>
      deps.refunds
        ? exportRefundsCsv({ refunds: deps.refunds.store, clock: deps.clock }, merchantId, mode, range)
        : undefined,
    ),
  );
  developerPages(app, deps, kit);
}

/** The payments list: a page of them (filtered), or the payments a search finds (the payment itself for one). */
function paymentsPage(deps: DashboardDeps, kit: PageKit) {
  return async (request: FastifyRequest<{ Querystring: ListQuery }>, reply: FastifyReply) => {
    const signedIn = await kit.requireUser(request, reply);
    if (!signedIn) return reply;
    const query = request.query;
    const merchantId = await scopeOf(deps, signedIn, query.merchant);
    if (merchantId === undefined) return kit.refuse(reply, signedIn, 404);
    const merchant = merchantId === null ? undefined : await deps.merchants.find(merchantId);
    const filters = filtersOf(signedIn, query, merchantId);
    const render = async (
      page: Parameters<typeof renderPayments>[0]['page'],
      problem?: string,
      waiting?: string,
    ) =>
      renderPayments({
        signedIn,
        ctx: kit.context(reply.request),
        merchant,
        filters,
        page,
        refunded: await refundedOf(deps, page.payments),
        merchantNames: merchantId === null ? await merchantNamesOf(deps, page.payments) : undefined,
        waiting,
        problem,
      });
    try {
      if (filters.q !== undefined) {
        const ids = await searchPayments(deps, merchantId, filters.q);
        if (ids.length === 1) return reply.redirect(paymentPath(ids[0]!), 303);
        return await render({ payments: await paymentsByIds(deps, ids), nextCursor: null });
      }
      const waiting = waitingOf(query.waiting);
      if (waiting && merchantId !== null && deps.overview) {
        const ids = await deps.overview.waiting(merchantId, filters.mode, waiting, WAITING_LIMIT);
        return await render(
          { payments: await paymentsByIds(deps, ids), nextCursor: null },
          undefined,
          waitingTitle(kit, request, waiting),
        );
      }
      const range = exportRange(filters.from, filters.to);
      const page = await listPayments(deps, merchantId, {
        limit: PAGE_SIZE,
        cursor: query.cursor || undefined,
        status: filters.status,
        orderId: filters.orderId,
        createdFrom: range.from,
        createdBefore: range.to,
        mode: filters.mode,
      });
      return await render(page);
    } catch (error) {
      if (!(error instanceof PaylinkError) || error.code !== 'VALIDATION_ERROR') throw error;
      return reply.status(400).send(await render({ payments: [], nextCursor: null }, error.message));
    }
  };
}

/** The list's heading for what waits of each kind. */
function waitingTitle(kit: PageKit, request: FastifyRequest, kind: WaitingKind): string {
  const l = kit.context(request).t.list;
  return {
    payout_delayed: l.waitingPayouts,
    refund_awaiting_funds: l.waitingRefunds,
    webhook_failing: l.waitingWebhooks,
  }[kind];
}

function waitingOf(asked: string | undefined): WaitingKind | undefined {
  return (WAITING_KINDS as readonly string[]).includes(asked ?? '') ? (asked as WaitingKind) : undefined;
}

/** Each merchant of an operator's page of every merchant's payments, by id: one read per merchant on the page. */
async function merchantNamesOf(
  deps: DashboardDeps,
  payments: readonly ListedPayment[],
): Promise<Map<string, string>> {
  const ids = [...new Set(payments.map(({ payment }) => payment.merchantId))];
  const merchants = await Promise.all(ids.map((id) => deps.merchants.find(id)));
  return new Map(ids.map((id, i) => [id, merchants[i]?.name ?? id]));
}

/** The list's filters as asked for: an unknown status or mode is no filter, blank fields neither. */
function filtersOf(signedIn: SignedIn, query: ListQuery, merchantId: string | null): PaymentFilters {
  return {
    status: (PAYMENT_STATUSES as readonly string[]).includes(query.status ?? '')
      ? (query.status as PaymentStatus)
      : undefined,
    from: query.from || undefined,
    to: query.to || undefined,
    orderId: query.order_id?.trim() || undefined,
    q: query.q?.trim() || undefined,
    mode: keyModeOf(query.mode),
    merchant: signedIn.user.role === 'operator' ? (merchantId ?? undefined) : undefined,
  };
}

/**
 * The merchant whose payments a user reads: a merchant user's own; for an operator, the one asked for, or
 * every merchant's (null) when none is; undefined when the one asked for does not exist.
 */
async function scopeOf(deps: DashboardDeps, { user }: SignedIn, asked: string | undefined) {
  if (user.role === 'merchant') return merchantOf(user);
  if (!asked) return null;
  return (await deps.merchants.find(asked)) ? asked : undefined;
}

/** The payment page's facts: any merchant's for an operator, only its own merchant's for a merchant user. */
async function loadPayment(deps: DashboardDeps, { user }: SignedIn, id: string) {
  if (user.role === 'merchant') {
    const merchantId = merchantOf(user);
    for (const mode of ['live', 'test'] as const) {
      try {
        return await getPaymentStatus(deps, merchantId, id, mode);
      } catch (error) {
        if (!(error instanceof PaymentNotFoundError)) throw error;
      }
    }
    throw new PaymentNotFoundError();
  }
  const payment = isPaymentId(id) ? await deps.payments.findById(id.toLowerCase()) : undefined;
  if (!payment) throw new PaymentNotFoundError();
  return getPaymentStatus(deps, payment.merchantId, payment.id, payment.mode);
}

/** A payment's refunds as its page shows them, each with the QR code of its funding request while it awaits one. */
async function refundViews(
  deps: DashboardDeps,
  merchantId: string,
  mode: KeyMode,
  paymentId: string,
): Promise<RefundView[]> {
  const { refunds } = deps;
  if (!refunds) return [];
  const { records } = await listRefunds({ refunds: refunds.store }, merchantId, mode, {
    paymentId,
    limit: 100,
  });
  const now = deps.clock.now();
  return Promise.all(
    records.map(async (record) => {
      const view = refundResponse(record, now, refunds.checkoutUrl);
      const fundingUri = 'funding_uri' in view ? view.funding_uri : undefined;
      const { refund, deposit } = record;
      const funded = deposit?.amountReceivedBaseUnits ?? 0n;
      return {
        ...view,
        amountBaseUnits: refund.amountBaseUnits,
        fundingBaseUnits:
          view.status === 'awaiting_funds' && refund.amountBaseUnits > funded
            ? refund.amountBaseUnits - funded
            : undefined,
        fundedAt: deposit?.paidAt ?? null,
        sentAt: deposit?.payout.sentAt ?? null,
        sentBaseUnits: refundFundingOf(deposit).sentBaseUnits,
        fundingQr: fundingUri
          ? `data:image/svg+xml;base64,${Buffer.from(await qrSvg(fundingUri)).toString('base64')}`
          : undefined,
      };
    }),
  );
}

/** Sends the payment page, or (with `refundForm`) the page again with the refused refund's problem. */
async function showPayment(
  deps: DashboardDeps,
  kit: PageKit,
  signedIn: SignedIn,
  reply: FastifyReply,
  id: string,
  refundForm?: { problem: string; amount: string; status: number },
) {
  const { payment, state } = await loadPayment(deps, signedIn, id);
  const [transfers, webhooks, refunds] = await Promise.all([
    deps.ledger.listTransfers(payment.id),
    listMerchantWebhookEvents(deps, payment.merchantId, { paymentId: payment.id, limit: 50 }, payment.mode),
    refundViews(deps, payment.merchantId, payment.mode, payment.id),
  ]);
  return reply.status(refundForm?.status ?? 200).send(
    renderPayment({
      signedIn,
      ctx: kit.context(reply.request),
      payment,
      state,
      transfers,
      webhooks,
      refunds,
      refundsEnabled: deps.refunds !== undefined,
      refundForm,
      request: requestOffer(deps, signedIn, payment, state, reply.request.query),
      explorerUrl: payment.deposit ? deps.explorers?.get(payment.deposit.chainId) : undefined,
      explorerOf: (chainId) => deps.explorers?.get(chainId),
      payoutStatus: payoutStateOf(
        payment,
        state,
        deps.payouts?.policy ?? DEFAULT_PAYOUT_POLICY,
        deps.clock.now(),
      ).status,
    }),
  );
}

function paymentPage(deps: DashboardDeps, kit: PageKit) {
  return async (request: PaymentRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireUser(request, reply);
    if (!signedIn) return reply;
    try {
      return await showPayment(deps, kit, signedIn, reply, request.params.id);
    } catch (error) {
      if (error instanceof PaymentNotFoundError) return kit.refuse(reply, signedIn, 404);
      throw error;
    }
  };
}

/** A refund of the merchant's own payment: full, partial or the overpaid part (the form pre-fills each). */
function startRefund(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    if (!deps.refunds) return kit.refuse(reply, signedIn, 404);
    const body = request.body ?? {};
    try {
      const { payment } = await loadPayment(deps, signedIn, id);
      await createRefund(
        { ...deps, refunds: deps.refunds.store, refundClaimTtlMs: deps.refunds.claimTtlMs },
        payment.merchantId,
        payment.mode,
        {
          paymentId: payment.id,
          amount: String(body.amount ?? ''),
          currency: 'USDC',
          reason: body.reason,
          address: body.address,
        },
      );
      return reply.redirect(`${paymentPath(payment.id)}#refunds`, 303);
    } catch (error) {
      if (error instanceof PaymentNotFoundError) return kit.refuse(reply, signedIn, 404);
      if (!(error instanceof PaylinkError)) throw error;
      return showPayment(deps, kit, signedIn, reply, id, {
        problem: error.message,
        amount: String(body.amount ?? ''),
        status: error.status,
      });
    }
  };
}

function cancelRefundForm(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const refunds = deps.refunds;
    if (!refunds) return kit.refuse(reply, signedIn, 404);
    const { id } = request.params as { id: string };
    return kit.guard(reply, signedIn, async () => {
      // A canceled refund cannot be started again as it was (its claim link dies): the box says it is meant.
      if (request.body?.confirmed !== 'yes')
        return kit.refuse(reply, signedIn, 400, kit.context(request).t.refunds.notConfirmed);
      const merchantId = merchantOf(signedIn.user);
      const mode = keyModeOf(request.body?.mode);
      const { refund } = await cancelRefund(
        { refunds: refunds.store, clock: deps.clock },
        merchantId,
        mode,
        id,
      );
      return reply.redirect(`${paymentPath(refund.paymentId)}#refunds`, 303);
    });
  };
}

/** Sends a webhook of the merchant's own payment again: same id and body, a fresh schedule. */
function resendWebhook(deps: DashboardDeps, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    return kit.guard(reply, signedIn, async () => {
      const { event } = await getWebhookEvent(deps, id);
      // Another merchant's event is the same 404 as none.
      if (event.merchantId !== signedIn.user.merchantId) throw new WebhookEventNotFoundError();
      await resendWebhookEvent(deps, event.id);
      // An event of no payment (a subscription's own timeline) has no payment page: back to the developers page.
      const { paymentId } = event;
      const toPayment = request.body?.back !== 'developers' && paymentId !== null;
      return reply.redirect(toPayment ? paymentPath(paymentId) : '/dashboard/developers', 303);
    });
  };
}

/** A CSV export of the signed-in merchant's own rows; `rows` answers undefined where the export is off (404). */
function csvExport(
  kit: PageKit,
  file: string,
  rows: (merchantId: string, mode: KeyMode, range: ExportRange) => AsyncIterable<string> | undefined,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const { from, to, mode } = request.query as { from?: string; to?: string; mode?: string };
    return kit.guard(reply, signedIn, async () => {
      const csv = rows(merchantOf(signedIn.user), keyModeOf(mode), exportRange(from, to));
      if (!csv) return kit.refuse(reply, signedIn, 404);
      return sendCsv(reply, file, csv);
    });
  };
}

function paymentPath(id: string): string {
  return `/dashboard/payments/${id}`;
}
