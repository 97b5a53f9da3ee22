import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { PaymentRequestRefused, resendPaymentRequest } from '../../app/email/paymentRequests.ts';
import { createPaymentOnce } from '../../app/payments/createPaymentOnce.ts';
import { getPaymentStatus, PaymentNotFoundError } from '../../app/payments/getPaymentStatus.ts';
import { keyModeOf } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import type { Payment } from '../../domain/payment.ts';
import { EXPIRES_IN_BOUNDS } from '../../domain/paymentInput.ts';
import type { PaymentState } from '../../domain/paymentStatus.ts';
import { paymentUrl } from '../web/checkoutUrls.ts';
import { qrSvg } from '../web/qrCode.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { LINE_ITEM_FIELDS, lineItemsOf } from './lineItemFields.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import {
  EXPIRY_UNITS,
  type NewPaymentForm,
  renderNewPayment,
  renderPaymentLink,
} from './renderNewPayment.ts';
import type { RequestOffer } from './renderPaymentPage.ts';

type PaymentRequest = FastifyRequest<{ Params: { id: string } }>;

/** Statuses after which the link page stops asking: nothing more happens to the payment on its own. */
const SETTLED = new Set(['paid', 'failed', 'expired']);

/** The form's fields, as posted: what the result page and a refused form show again. */
const FIELDS = [
  'amount',
  'currency',
  'title',
  'customer_description',
  ...LINE_ITEM_FIELDS,
  'description',
  'order_id',
  'customer_email',
  'success_url',
  'cancel_url',
  'send_email',
  'expires_in',
  'expires_unit',
];

/**
 * The expiry as typed (a whole number of minutes, hours or days; empty: the service's default), in seconds for
 * the create, or the field at fault. The bounds are the API's (EXPIRES_IN_BOUNDS): said here in the merchant's
 * words rather than in the API's seconds.
 */
function expiresInOf(fields: Readonly<Record<string, string | undefined>>): number | undefined | 'invalid' {
  const typed = fields.expires_in ?? '';
  if (typed === '') return undefined;
  const unit = EXPIRY_UNITS[fields.expires_unit as keyof typeof EXPIRY_UNITS];
  if (!/^[0-9]{1,7}$/.test(typed) || unit === undefined) return 'invalid';
  const seconds = Number(typed) * unit;
  return seconds < EXPIRES_IN_BOUNDS.min || seconds > EXPIRES_IN_BOUNDS.max ? 'invalid' : seconds;
}

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
    return showForm(deps, kit, signedIn, reply, { mode: keyModeOf(mode), fields: {} });
  });
  app.post('/dashboard/payments/new', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const body = request.body ?? {};
    const mode = keyModeOf(body.mode);
    const fields = Object.fromEntries(FIELDS.map((name) => [name, body[name]?.trim() ?? '']));
    const merchant = await deps.merchants.find(merchantOf(signedIn.user));
    if (!merchant) return kit.refuse(reply, signedIn, 404);
    const description = fields.description;
    const sendEmail = fields.send_email === 'on';
    const expiresIn = expiresInOf(fields);
    const items = lineItemsOf(fields);
    // Said in the merchant's words and language before anything is created.
    const refused = (problemField: string, problem: string) =>
      showForm(deps, kit, signedIn, reply.status(400), { mode, fields, problem, problemField });
    const n = kit.context(request).t.newPayment;
    if (expiresIn === 'invalid') return refused('expires_in', n.expiryInvalid);
    if (sendEmail && !fields.customer_email) return refused('customer_email', n.emailRequired);
    try {
      const { payment } = await createPaymentOnce(
        creation.deps,
        merchant,
        {
          amount: fields.amount ?? '',
          currency: (fields.currency || 'USDC').toUpperCase(),
          customerEmail: fields.customer_email,
          sendEmail,
          expiresIn,
          orderId: fields.order_id,
          title: fields.title,
          description: fields.customer_description,
          lineItems: items.lineItems,
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
      return reply.redirect(`${linkPath(payment.id)}${sendEmail ? '?emailed=1' : ''}`, 303);
    } catch (error) {
      if (!(error instanceof PaylinkError)) throw error;
      return showForm(deps, kit, signedIn, reply.status(error.status), {
        mode,
        fields,
        problem: error.message,
        problemField: items.fieldOf(error.field),
      });
    }
  });
  app.get('/dashboard/payments/:id/link', async (request: PaymentRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const found = await ownPayment(deps, signedIn, request.params.id);
    if (!found) return kit.refuse(reply, signedIn, 404);
    const url = paymentUrl(creation.checkoutUrl, found.payment.id);
    const { emailed } = request.query as { emailed?: string };
    return reply.send(
      renderPaymentLink({
        signedIn,
        ctx: kit.context(request),
        // Said only when the log holds the request: the query string alone is no proof.
        emailed: emailed === '1' && (await requested(deps, found.payment.id)),
        payment: found.payment,
        state: found.state,
        url,
        qrDataUri: `data:image/svg+xml;base64,${Buffer.from(await qrSvg(url)).toString('base64')}`,
      }),
    );
  });
  requestRoute(app, deps, kit);
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

/** "Send the request again", from the payment's page: the request e-mail, queued on its own. */
function requestRoute(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  app.post('/dashboard/payments/:id/request', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const requests = deps.paymentRequests;
    const { id } = request.params as { id: string };
    const found = requests && (await ownPayment(deps, signedIn, id));
    const merchant = found && (await deps.merchants.find(found.payment.merchantId));
    if (!requests || !found || !merchant) return kit.refuse(reply, signedIn, 404);
    const page = `/dashboard/payments/${found.payment.id}`;
    try {
      const message = await resendPaymentRequest(
        { emails: requests.emails, clock: deps.clock, paymentRequests: requests.settings },
        merchant,
        found.payment,
        found.state.status,
      );
      request.log.info({ payment: found.payment.id, email: message.id }, 'payment request sent again');
      return reply.redirect(`${page}?request=sent#request`, 303);
    } catch (error) {
      if (!(error instanceof PaymentRequestRefused)) throw error;
      return reply.redirect(`${page}?request=${error.reason}#request`, 303);
    }
  });
}

function showForm(
  deps: DashboardDeps,
  kit: PageKit,
  signedIn: SignedIn,
  reply: FastifyReply,
  form: Omit<NewPaymentForm, 'formKey' | 'ttlMinutes' | 'canEmail'>,
) {
  const ttlMs = deps.paymentCreation?.deps.paymentTtlMs ?? 0;
  return reply.send(
    renderNewPayment({
      signedIn,
      ctx: kit.context(reply.request),
      form: {
        ...form,
        formKey: randomUUID(),
        ttlMinutes: Math.round(ttlMs / 60_000),
        canEmail: deps.paymentCreation?.deps.paymentRequests !== undefined,
      },
      testAvailable: deps.deposits.test !== undefined,
    }),
  );
}

/** The signed-in merchant's own payment, of either mode; undefined for any other (the same 404 as none). */
export async function ownPayment(deps: DashboardDeps, { user }: SignedIn, id: string) {
  for (const mode of ['live', 'test'] as const) {
    try {
      return await getPaymentStatus(deps, merchantOf(user), id, mode);
    } catch (error) {
      if (!(error instanceof PaymentNotFoundError)) throw error;
    }
  }
  return undefined;
}

const OUTCOMES: readonly string[] = ['sent', 'no_email', 'not_open', 'limit'];

/** The request section of a payment's page, for its merchant's users only; undefined: none. */
export function requestOffer(
  deps: DashboardDeps,
  signedIn: SignedIn,
  payment: Payment,
  state: PaymentState,
  query: unknown,
): RequestOffer | undefined {
  if (!deps.paymentRequests || signedIn.user.role !== 'merchant') return undefined;
  const asked = (query as { request?: unknown } | undefined)?.request;
  const outcome =
    typeof asked === 'string' && OUTCOMES.includes(asked) ? (asked as RequestOffer['outcome']) : undefined;
  const to = state.status === 'pending' ? payment.customerEmail : null;
  return to === null && outcome === undefined ? undefined : { to, outcome };
}

/** Whether a request e-mail for the payment is in the e-mail log. */
async function requested(deps: DashboardDeps, paymentId: string): Promise<boolean> {
  const log = await deps.paymentRequests?.emails.list({ paymentId, limit: 100 });
  return log?.some((message) => message.kind === 'payment_request') ?? false;
}

function linkPath(id: string): string {
  return `/dashboard/payments/${id}/link`;
}
