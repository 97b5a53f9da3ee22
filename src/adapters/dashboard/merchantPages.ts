import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { listWorkingKeys, rotateApiKey } from '../../app/merchants/merchantAdmin.ts';
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
import { rotateWebhookSecret } from '../../app/webhooks/rotateWebhookSecret.ts';
import { sendTestWebhook } from '../../app/webhooks/sendTestWebhook.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { payoutStateOf } from '../../domain/payment.ts';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../domain/paymentStatus.ts';
import { DEFAULT_PAYOUT_POLICY } from '../../domain/payout.ts';
import { refundFundingOf } from '../../domain/refund.ts';
import { sendCsv } from '../web/csvDownload.ts';
import { fill } from '../web/i18n.ts';
import { qrSvg } from '../web/qrCode.ts';
import { refundResponse } from '../web/refundPresenter.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { type PaymentFilters, renderDevelopers, renderPayments, renderShownOnce } from './renderMerchantPages.ts';
import { type RefundView, renderPayment } from './renderPaymentPage.ts';

const PAGE_SIZE = 50;
/** Old keys keep working this long after "Roll key": time to deploy the new one. */
const KEY_GRACE_MS = 24 * 3_600_000;

type ExportRange = ReturnType<typeof exportRange>;
type ListQuery = Partial<
  Record<'status' | 'from' | 'to' | 'order_id' | 'q' | 'mode' | 'cursor' | 'merchant', string>
>;

/**
 * A merchant's pages: its payments (list, search, filters, each payment with its timeline and refunds), the CSV
 * export, and the developer page (keys, webhook secret, test webhook, last deliveries). An operator reads the
 * payments of one merchant (`?merchant=`) or of every one, but acts on none of them: refunds and keys are the
 * merchant's.
 */
export function merchantPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  const { requireUser, requireRole, refusedForgery, refuse, guard } = kit;

  /**
   * The merchant whose payments a user reads: a merchant user's own; for an operator, the one asked for, or
   * every merchant's (null) when none is; undefined when the one asked for does not exist.
   */
  const scopeOf = async ({ user }: SignedIn, asked: string | undefined) => {
    if (user.role === 'merchant') return merchantOf(user);
    if (!asked) return null;
    return (await deps.merchants.find(asked)) ? asked : undefined;
  };

  app.get('/dashboard/payments', async (request: FastifyRequest<{ Querystring: ListQuery }>, reply) => {
    const signedIn = await requireUser(request, reply);
    if (!signedIn) return reply;
    const query = request.query;
    const merchantId = await scopeOf(signedIn, query.merchant);
    if (merchantId === undefined) return refuse(reply, signedIn, 404);
    const merchant = merchantId === null ? undefined : await deps.merchants.find(merchantId);
    const mode: KeyMode = query.mode === 'test' ? 'test' : 'live';
    const filters: PaymentFilters = {
      status: (PAYMENT_STATUSES as readonly string[]).includes(query.status ?? '')
        ? (query.status as PaymentStatus)
        : undefined,
      from: query.from || undefined,
      to: query.to || undefined,
      orderId: query.order_id?.trim() || undefined,
      q: query.q?.trim() || undefined,
      mode,
      merchant: signedIn.user.role === 'operator' ? (merchantId ?? undefined) : undefined,
    };
    const render = async (page: Parameters<typeof renderPayments>[0]['page'], problem?: string) =>
      renderPayments({
        signedIn,
        ctx: kit.context(reply.request),
        merchant,
        filters,
        page,
        refunded: await refundedOf(page.payments),
        problem,
      });
    try {
      if (filters.q !== undefined) {
        const ids = await searchPayments(deps, merchantId, filters.q);
        if (ids.length === 1) return reply.redirect(paymentPath(ids[0]!), 303);
        const found = await Promise.all(
          ids.map((id) => deps.payments.findById(id).then((p) => p && paymentWithState(p))),
        );
        return await render({ payments: found.filter((p) => p !== undefined), nextCursor: null });
      }
      const range = exportRange(filters.from, filters.to);
      const page = await listPayments(deps, merchantId, {
        limit: PAGE_SIZE,
        cursor: query.cursor || undefined,
        status: filters.status,
        orderId: filters.orderId,
        createdFrom: range.from,
        createdBefore: range.to,
        mode,
      });
      return await render(page);
    } catch (error) {
      if (!(error instanceof PaylinkError) || error.code !== 'VALIDATION_ERROR') throw error;
      return reply.status(400).send(await render({ payments: [], nextCursor: null }, error.message));
    }
  });

  /**
   * What refunds sent back to the customer, per payment of a page that has received money (the list says
   * "partly refunded" or "refunded" instead of "paid"). One read per such payment: a page is at most PAGE_SIZE.
   */
  const refundedOf = async (payments: readonly ListedPayment[]): Promise<Map<string, bigint>> => {
    const refunded = new Map<string, bigint>();
    const store = deps.refunds?.store;
    if (!store) return refunded;
    await Promise.all(
      payments
        .filter(({ state }) => state.amountReceivedBaseUnits > 0n)
        .map(async ({ payment }) => {
          let sent = 0n;
          for (const { deposit } of await store.listForPayment(payment.id))
            sent += refundFundingOf(deposit).sentBaseUnits;
          if (sent > 0n) refunded.set(payment.id, sent);
        }),
    );
    return refunded;
  };

  const paymentWithState = async (
    payment: NonNullable<Awaited<ReturnType<typeof deps.payments.findById>>>,
  ) => {
    const { state } = await getPaymentStatus(deps, payment.merchantId, payment.id, payment.mode);
    return { payment, state };
  };

  /** The payment page's facts: any merchant's for an operator, only its own merchant's for a merchant user. */
  const loadPayment = async ({ user }: SignedIn, id: string) => {
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
  };

  const refundViews = async (merchantId: string, mode: KeyMode, paymentId: string): Promise<RefundView[]> => {
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
          fundingQr: fundingUri
            ? `data:image/svg+xml;base64,${Buffer.from(await qrSvg(fundingUri)).toString('base64')}`
            : undefined,
        };
      }),
    );
  };

  const showPayment = async (
    signedIn: SignedIn,
    reply: FastifyReply,
    id: string,
    refundForm?: { problem: string; amount: string; status: number },
  ) => {
    const { payment, state } = await loadPayment(signedIn, id);
    const [transfers, webhooks, refunds] = await Promise.all([
      deps.ledger.listTransfers(payment.id),
      listMerchantWebhookEvents(deps, payment.merchantId, { paymentId: payment.id, limit: 50 }, payment.mode),
      refundViews(payment.merchantId, payment.mode, payment.id),
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
        explorerUrl: payment.deposit ? deps.explorers?.get(payment.deposit.chainId) : undefined,
        payoutStatus: payoutStateOf(
          payment,
          state,
          deps.payouts?.policy ?? DEFAULT_PAYOUT_POLICY,
          deps.clock.now(),
        ).status,
      }),
    );
  };

  app.get('/dashboard/payments/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const signedIn = await requireUser(request, reply);
    if (!signedIn) return reply;
    try {
      return await showPayment(signedIn, reply, request.params.id);
    } catch (error) {
      if (error instanceof PaymentNotFoundError) return refuse(reply, signedIn, 404);
      throw error;
    }
  });

  // A refund of the merchant's own payment: full, partial or the overpaid part (the form pre-fills each).
  app.post('/dashboard/payments/:id/refunds', async (request: FormRequest, reply) => {
    const signedIn = await requireRole('merchant', request, reply);
    if (!signedIn || refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    if (!deps.refunds) return refuse(reply, signedIn, 404);
    const body = request.body ?? {};
    try {
      const { payment } = await loadPayment(signedIn, id);
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
      if (error instanceof PaymentNotFoundError) return refuse(reply, signedIn, 404);
      if (!(error instanceof PaylinkError)) throw error;
      return showPayment(signedIn, reply, id, {
        problem: error.message,
        amount: String(body.amount ?? ''),
        status: error.status,
      });
    }
  });

  app.post('/dashboard/refunds/:id/cancel', async (request: FormRequest, reply) => {
    const signedIn = await requireRole('merchant', request, reply);
    if (!signedIn || refusedForgery(request, reply, signedIn)) return reply;
    const refunds = deps.refunds;
    if (!refunds) return refuse(reply, signedIn, 404);
    const { id } = request.params as { id: string };
    return guard(reply, signedIn, async () => {
      const merchantId = merchantOf(signedIn.user);
      const mode: KeyMode = request.body?.mode === 'test' ? 'test' : 'live';
      const { refund } = await cancelRefund(
        { refunds: refunds.store, clock: deps.clock },
        merchantId,
        mode,
        id,
      );
      return reply.redirect(`${paymentPath(refund.paymentId)}#refunds`, 303);
    });
  });

  // Sends a webhook of the merchant's own payment again: same id and body, a fresh schedule.
  app.post('/dashboard/webhooks/:id/resend', async (request: FormRequest, reply) => {
    const signedIn = await requireRole('merchant', request, reply);
    if (!signedIn || refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    return guard(reply, signedIn, async () => {
      const { event } = await getWebhookEvent(deps, id);
      // Another merchant's event is the same 404 as none.
      if (event.merchantId !== signedIn.user.merchantId) throw new WebhookEventNotFoundError();
      await resendWebhookEvent(deps, event.id);
      const back =
        request.body?.back === 'developers' ? '/dashboard/developers' : paymentPath(event.paymentId);
      return reply.redirect(back, 303);
    });
  });

  // The same exports as the API's (exportPayments.ts, exportRefunds.ts), for the signed-in merchant user.
  for (const [path, file, rows] of [
    [
      '/dashboard/export.csv',
      'payments.csv',
      (merchantId: string, mode: KeyMode, range: ExportRange) =>
        exportPaymentsCsv(deps, merchantId, mode, range),
    ],
    [
      '/dashboard/refunds.csv',
      'refunds.csv',
      (merchantId: string, mode: KeyMode, range: ExportRange) =>
        deps.refunds
          ? exportRefundsCsv({ refunds: deps.refunds.store, clock: deps.clock }, merchantId, mode, range)
          : undefined,
    ],
  ] as const)
    app.get(path, async (request, reply) => {
      const signedIn = await requireRole('merchant', request, reply);
      if (!signedIn) return reply;
      const { from, to, mode } = request.query as { from?: string; to?: string; mode?: string };
      return guard(reply, signedIn, async () => {
        const csv = rows(merchantOf(signedIn.user), mode === 'test' ? 'test' : 'live', exportRange(from, to));
        if (!csv) return refuse(reply, signedIn, 404);
        return sendCsv(reply, file, csv);
      });
    });

  const developersPage = async (
    signedIn: SignedIn,
    reply: FastifyReply,
    test?: Parameters<typeof renderDevelopers>[0]['test'],
  ) => {
    const merchantId = merchantOf(signedIn.user);
    const [merchant, keys, deliveries] = await Promise.all([
      deps.merchants.find(merchantId),
      listWorkingKeys(deps, merchantId),
      listMerchantWebhookEvents(deps, merchantId, { limit: 20 }),
    ]);
    if (!merchant) return refuse(reply, signedIn, 404);
    return reply.send(
      renderDevelopers({
        signedIn,
        ctx: kit.context(reply.request),
        merchant,
        keys,
        deliveries,
        canTest: deps.webhookSender !== undefined,
        test,
      }),
    );
  };

  app.get('/dashboard/developers', async (request, reply) => {
    const signedIn = await requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    return developersPage(signedIn, reply);
  });

  // A new key, shown once; the old ones of its mode keep working for a day, so nothing breaks mid-deploy.
  app.post('/dashboard/developers/roll-key', async (request: FormRequest, reply) => {
    const signedIn = await requireRole('merchant', request, reply);
    if (!signedIn || refusedForgery(request, reply, signedIn)) return reply;
    const mode: KeyMode = request.body?.mode === 'test' ? 'test' : 'live';
    const o = kit.context(request).t.shownOnce;
    return guard(reply, signedIn, async () => {
      const issued = await rotateApiKey(deps.merchantAdmin, merchantOf(signedIn.user), KEY_GRACE_MS, mode);
      request.log.info({ merchant: issued.merchant.id, mode }, 'API key rolled from the dashboard');
      return reply.send(
        renderShownOnce({
          signedIn,
          ctx: kit.context(reply.request),
          title: fill(o.newKey, { mode }),
          secrets: [{ label: o.apiKey, value: issued.apiKey }],
          note: fill(o.keysKeepWorking, { mode }),
          until: new Date(deps.clock.now().getTime() + KEY_GRACE_MS),
        }),
      );
    });
  });

  // A new signing secret, shown once; for a day every webhook is signed with the old and the new one.
  app.post('/dashboard/developers/rotate-webhook-secret', async (request: FormRequest, reply) => {
    const signedIn = await requireRole('merchant', request, reply);
    if (!signedIn || refusedForgery(request, reply, signedIn)) return reply;
    const o = kit.context(request).t.shownOnce;
    return guard(reply, signedIn, async () => {
      const rotated = await rotateWebhookSecret(deps, merchantOf(signedIn.user));
      request.log.info({ merchant: rotated.merchant.id }, 'webhook secret rotated from the dashboard');
      return reply.send(
        renderShownOnce({
          signedIn,
          ctx: kit.context(reply.request),
          title: o.newSecret,
          secrets: [{ label: o.signingSecret, value: rotated.webhookSecret }],
          note: o.switchSecret,
          until: rotated.previousSecretValidUntil,
        }),
      );
    });
  });

  app.post('/dashboard/developers/test-webhook', async (request: FormRequest, reply) => {
    const signedIn = await requireRole('merchant', request, reply);
    if (!signedIn || refusedForgery(request, reply, signedIn)) return reply;
    const sender = deps.webhookSender;
    if (!sender) return refuse(reply, signedIn, 404);
    return guard(reply, signedIn, async () => {
      const result = await sendTestWebhook({ ...deps, sender }, merchantOf(signedIn.user));
      return developersPage(signedIn, reply, result);
    });
  });
}

function paymentPath(id: string): string {
  return `/dashboard/payments/${id}`;
}
