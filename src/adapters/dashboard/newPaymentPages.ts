import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { createPaymentOnce } from '../../app/payments/createPaymentOnce.ts';
import { getPaymentStatus, PaymentNotFoundError } from '../../app/payments/getPaymentStatus.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { paymentUrl } from '../web/checkoutUrls.ts';
import { qrSvg } from '../web/qrCode.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { type NewPaymentForm, renderNewPayment, renderPaymentLink } from './renderNewPayment.ts';

type PaymentRequest = FastifyRequest<{ Params: { id: string } }>;

/** Statuses after which the link page stops asking: nothing more happens to the payment on its own. */
const SETTLED = new Set(['paid', 'failed', 'expired']);

/** The form's fields, as posted: what the result page and a refused form show again. */
const FIELDS = [
  'amount',
  'currency',
  'description',
  'order_id',
  'customer_email',
  'success_url',
  'cancel_url',
] as const;

/**
 * "New payment": a merchant user makes a payment link without code, through the API's own create (the same
 * checks, the same idempotency), then gets the link to copy, share or show as a QR code, with its live status.
 * Part of the merchant's pages (merchantPages.ts).
 */
export function newPaymentPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  const creation = deps.paymentCreation;
  if (!creation) return;
  app.get('/dashboard/payments/new', async (request, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const { mode } = request.query as { mode?: string };
    return showForm(deps, kit, signedIn, reply, { mode: mode === 'test' ? 'test' : 'live', fields: {} });
  });
  app.post('/dashboard/payments/new', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const body = request.body ?? {};
    const mode: KeyMode = body.mode === 'test' ? 'test' : 'live';
    const fields = Object.fromEntries(FIELDS.map((name) => [name, body[name]?.trim() ?? '']));
    const merchant = await deps.merchants.find(merchantOf(signedIn.user));
    if (!merchant) return kit.refuse(reply, signedIn, 404);
    const description = fields.description;
    try {
      const { payment } = await createPaymentOnce(
        creation.deps,
        merchant,
        {
          amount: fields.amount ?? '',
          currency: (fields.currency || 'USDC').toUpperCase(),
          customerEmail: fields.customer_email,
          orderId: fields.order_id,
          successUrl: fields.success_url,
          cancelUrl: fields.cancel_url,
          // A payment has no description of its own: the merchant's words go with it as metadata, returned by
          // the API, the exports and the webhooks like any other reference of theirs.
          metadata: description ? { description } : undefined,
        },
        // The form's own key, made when it was shown: a double click or a resubmitted page gives the same payment.
        {
          key: `dashboard-${body.form_key || randomUUID()}`,
          requestHash: createHash('sha256')
            .update(JSON.stringify([mode, ...FIELDS.map((name) => fields[name])]))
            .digest('hex'),
        },
        mode,
      );
      request.log.info({ payment: payment.id, mode }, 'payment created from the dashboard');
      return reply.redirect(linkPath(payment.id), 303);
    } catch (error) {
      if (!(error instanceof PaylinkError)) throw error;
      return showForm(deps, kit, signedIn, reply.status(error.status), {
        mode,
        fields,
        problem: error.message,
      });
    }
  });
  app.get('/dashboard/payments/:id/link', async (request: PaymentRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const found = await ownPayment(deps, signedIn, request.params.id);
    if (!found) return kit.refuse(reply, signedIn, 404);
    const url = paymentUrl(creation.checkoutUrl, found.payment.id);
    return reply.send(
      renderPaymentLink({
        signedIn,
        ctx: kit.context(request),
        payment: found.payment,
        state: found.state,
        url,
        qrDataUri: `data:image/svg+xml;base64,${Buffer.from(await qrSvg(url)).toString('base64')}`,
      }),
    );
  });
  // What the link page's script polls: the payment's status and its words, nothing else.
  app.get('/dashboard/payments/:id/status.json', async (request: PaymentRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const found = await ownPayment(deps, signedIn, request.params.id);
    reply.type('application/json; charset=utf-8');
    if (!found) return reply.status(404).send({ error: 'Payment not found', code: 'NOT_FOUND' });
    const { status } = found.state;
    return reply.send({
      status,
      label: kit.context(request).t.status[status],
      final: SETTLED.has(status),
    });
  });
}

function showForm(
  deps: DashboardDeps,
  kit: PageKit,
  signedIn: SignedIn,
  reply: FastifyReply,
  form: Omit<NewPaymentForm, 'formKey' | 'ttlMinutes'>,
) {
  const ttlMs = deps.paymentCreation?.deps.paymentTtlMs ?? 0;
  return reply.send(
    renderNewPayment({
      signedIn,
      ctx: kit.context(reply.request),
      form: { ...form, formKey: randomUUID(), ttlMinutes: Math.round(ttlMs / 60_000) },
      testAvailable: deps.deposits.test !== undefined,
    }),
  );
}

/** The signed-in merchant's own payment, of either mode; undefined for any other (the same 404 as none). */
async function ownPayment(deps: DashboardDeps, { user }: SignedIn, id: string) {
  for (const mode of ['live', 'test'] as const) {
    try {
      return await getPaymentStatus(deps, merchantOf(user), id, mode);
    } catch (error) {
      if (!(error instanceof PaymentNotFoundError)) throw error;
    }
  }
  return undefined;
}

function linkPath(id: string): string {
  return `/dashboard/payments/${id}/link`;
}
