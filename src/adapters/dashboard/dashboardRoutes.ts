import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PasswordHasher, SecondFactor, UserStore } from '../../app/dashboard/ports.ts';
import {
  enrollSecondFactor,
  type SignInDeps,
  sessionUser,
  setPassword,
  signIn,
  signOut,
} from '../../app/dashboard/signIn.ts';
import { exportPaymentsCsv, exportRange } from '../../app/exportPayments.ts';
import { getPaymentStatus, PaymentNotFoundError } from '../../app/getPaymentStatus.ts';
import { listPayments } from '../../app/listPayments.ts';
import type {
  Clock,
  Ledger,
  MerchantStore,
  PaymentStore,
  RateLimitStore,
  WebhookStore,
} from '../../app/ports.ts';
import { listPayouts } from '../../app/settlement/listPayouts.ts';
import type { SettlementStore } from '../../app/settlement/ports.ts';
import { retrySettlement } from '../../app/settlement/retrySettlement.ts';
import {
  getWebhookEvent,
  listMerchantWebhookEvents,
  WebhookEventNotFoundError,
} from '../../app/webhooks/listWebhookEvents.ts';
import { resendWebhookEvent } from '../../app/webhooks/resendWebhookEvent.ts';
import type { DashboardUser } from '../../domain/dashboardUser.ts';
import { PaylinkError } from '../../domain/errors.ts';
import type { PayoutPolicy } from '../../domain/payout.ts';
import { qrSvg } from '../checkout/qrCode.ts';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../checkout/securityHeaders.ts';
import {
  type DashboardAssets,
  renderLogin,
  renderMerchants,
  renderNotFound,
  renderPayment,
  renderPayments,
  renderPayouts,
  renderSecurity,
  renderSetPassword,
} from './renderDashboard.ts';

export interface DashboardDeps {
  readonly users: UserStore;
  readonly merchants: MerchantStore;
  readonly payments: PaymentStore;
  readonly ledger: Ledger;
  readonly webhooks: WebhookStore;
  readonly passwords: PasswordHasher;
  readonly secondFactor: SecondFactor;
  /** Payouts owed and why they wait, for operators; absent: no payouts page. */
  readonly payouts?: { readonly settlements: SettlementStore; readonly policy: PayoutPolicy } | undefined;
  /** PAYLINK_DASHBOARD_REQUIRE_2FA: an operator without a second factor is sent to enroll one first. */
  readonly requireOperatorSecondFactor: boolean;
  readonly buckets: RateLimitStore;
  readonly clock: Clock;
  readonly isCommonPassword: (password: string) => boolean;
  /** The API's public URL (PAYLINK_BASE_URL): the origin the dashboard's forms are posted from. */
  readonly baseUrl: string;
}

export const SESSION_COOKIE = 'paylink_session';
const HTML = 'text/html; charset=utf-8';
const PAGE_SIZE = 50;
/** The checkout's policy, but forms post to this origin (the dashboard's forms do; the checkout has none). */
const DASHBOARD_CSP = CONTENT_SECURITY_POLICY.replace("form-action 'none'", "form-action 'self'");

function asset(name: string) {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
  return { body, version: createHash('sha256').update(body).digest('hex').slice(0, 12) };
}

type FormRequest = FastifyRequest<{ Body: Record<string, string | undefined> }>;

/**
 * The dashboard (decision 0014) on the API origin, under `/dashboard/`: sign-in with a server-side session, the
 * merchant's payments, an operator's merchants. Registered as its own plugin, so its form parser, cookies and
 * headers stay here and the API keeps answering only JSON.
 */
export function dashboardRoutes(deps: DashboardDeps) {
  const css = asset('dashboard.css');
  const js = asset('dashboard.js');
  const assets: DashboardAssets = {
    stylesheet: `/dashboard/assets/dashboard.css?v=${css.version}`,
    script: `/dashboard/assets/dashboard.js?v=${js.version}`,
  };
  const signInDeps: SignInDeps = deps;
  const publicOrigin = new URL(deps.baseUrl).origin;
  // Over plain http (the sandbox) the cookie cannot be `Secure`: browsers would drop it.
  const secureCookies = publicOrigin.startsWith('https:');

  return async (app: FastifyInstance) => {
    // Pages, not API: kept out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 4_096 });

    app.addHook('onSend', async (_request, reply, payload) => {
      reply.headers({
        ...SECURITY_HEADERS,
        'content-security-policy': DASHBOARD_CSP,
        // `no-referrer` (the checkout's) makes browsers send `Origin: null` with a form post, and the origin
        // check needs it: nothing leaves for another site either way.
        'referrer-policy': 'same-origin',
      });
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      return payload;
    });

    // Every state-changing request must come from a page of this origin (the public URL, or the host asked for
    // when no proxy stands between): browsers send Origin on every POST, a form of another site's included, so a
    // cross-site form is refused before anything else.
    app.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST') return;
      const origin = request.headers.origin;
      if (
        origin === undefined ||
        (origin !== publicOrigin && origin !== `${request.protocol}://${request.headers.host}`)
      )
        return reply
          .status(403)
          .type(HTML)
          .send(
            renderLogin(assets, {
              kind: 'error',
              text: 'Refused: this form did not come from the dashboard.',
            }),
          );
    });

    const setCookie = (reply: FastifyReply, token: string, maxAgeS: number) =>
      reply.setCookie(SESSION_COOKIE, token, {
        path: '/dashboard',
        httpOnly: true,
        secure: secureCookies,
        sameSite: 'lax',
        maxAge: maxAgeS,
      });

    /**
     * The signed-in user, or a redirect (then undefined): to the sign-in page without a session, to the second
     * factor's page for an operator who must enroll one first.
     */
    const requireUser = async (request: FastifyRequest, reply: FastifyReply, enrolling = false) => {
      const signedIn = await sessionUser(deps, request.cookies[SESSION_COOKIE]);
      if (!signedIn) {
        reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' }).redirect('/dashboard/login', 303);
        return undefined;
      }
      const { user } = signedIn;
      if (
        !enrolling &&
        deps.requireOperatorSecondFactor &&
        user.role === 'operator' &&
        user.totpSecret === null
      ) {
        reply.redirect('/dashboard/security', 303);
        return undefined;
      }
      return signedIn;
    };

    /** The secret to enroll, with its `otpauth://` URI as a QR code (a `data:` image: the CSP allows those). */
    const enrollment = async (secret: string, email: string) => ({
      secret,
      qrDataUri: `data:image/svg+xml;base64,${Buffer.from(
        await qrSvg(deps.secondFactor.enrollmentUri(secret, email)),
      ).toString('base64')}`,
    });

    /** A signed-in user's form without its session's CSRF token: refused (then true). */
    const refusedForgery = (
      request: FormRequest,
      reply: FastifyReply,
      { user, session }: { user: DashboardUser; session: { csrfToken: string } },
    ) => {
      if (csrfMatches(session.csrfToken, request.body?.csrf)) return false;
      reply
        .status(403)
        .type(HTML)
        .send(renderNotFound(assets, user, session.csrfToken, 'Refused: reload the page and try again.'));
      return true;
    };

    const csrfMatches = (expected: string, given: string | undefined) => {
      const a = Buffer.from(expected);
      const b = Buffer.from(given ?? '');
      return a.length === b.length && timingSafeEqual(a, b);
    };

    for (const [path, file, type] of [
      ['/dashboard/assets/dashboard.css', css, 'text/css; charset=utf-8'],
      ['/dashboard/assets/dashboard.js', js, 'text/javascript; charset=utf-8'],
    ] as const)
      app.get(path, { logLevel: 'warn' }, async (_request, reply) =>
        reply.type(type).header('cache-control', 'public, max-age=31536000, immutable').send(file.body),
      );

    app.get('/dashboard/login', async (request, reply) => {
      const { password } = request.query as { password?: string };
      reply.type(HTML);
      return renderLogin(
        assets,
        password === 'set' ? { kind: 'notice', text: 'Your password is set. Sign in with it.' } : undefined,
      );
    });

    app.post('/dashboard/login', async (request: FormRequest, reply) => {
      reply.type(HTML);
      try {
        const { token } = await signIn(signInDeps, {
          email: String(request.body?.email ?? ''),
          password: String(request.body?.password ?? ''),
          code: request.body?.code,
          clientAddress: request.ip,
        });
        // A fresh token at every sign-in: whatever cookie the browser had before is worth nothing now.
        setCookie(reply, token, Math.floor((12 * 60 * 60_000) / 1000));
        return reply.redirect('/dashboard/', 303);
      } catch (error) {
        if (!(error instanceof PaylinkError)) throw error;
        if (error.code === 'RATE_LIMITED') reply.header('retry-after', '60');
        return reply.status(error.status).send(renderLogin(assets, { kind: 'error', text: error.message }));
      }
    });

    app.get('/dashboard/set-password', async (_request, reply) =>
      reply.type(HTML).send(renderSetPassword(assets)),
    );

    app.post('/dashboard/set-password', async (request: FormRequest, reply) => {
      reply.type(HTML);
      try {
        await setPassword(
          signInDeps,
          String(request.body?.token ?? ''),
          String(request.body?.password ?? ''),
        );
        return reply.redirect('/dashboard/login?password=set', 303);
      } catch (error) {
        if (!(error instanceof PaylinkError)) throw error;
        // The token stays out of the page: a failed attempt needs the link again (or a new one).
        return reply.status(error.status).send(renderSetPassword(assets, error.message));
      }
    });

    app.get('/dashboard/security', async (request, reply) => {
      const signedIn = await requireUser(request, reply, true);
      if (!signedIn) return reply;
      const { user, session } = signedIn;
      reply.type(HTML);
      if (user.totpSecret !== null) return renderSecurity({ assets, user, csrf: session.csrfToken });
      return renderSecurity({
        assets,
        user,
        csrf: session.csrfToken,
        enroll: await enrollment(deps.secondFactor.newSecret(), user.email),
        required: deps.requireOperatorSecondFactor && user.role === 'operator',
      });
    });

    app.post('/dashboard/security/totp', async (request: FormRequest, reply) => {
      const signedIn = await requireUser(request, reply, true);
      if (!signedIn) return reply;
      const { user, session } = signedIn;
      reply.type(HTML);
      if (refusedForgery(request, reply, signedIn)) return reply;
      if (user.totpSecret !== null) return reply.redirect('/dashboard/security', 303);
      const secret = String(request.body?.secret ?? '');
      try {
        await enrollSecondFactor(deps, user, secret, String(request.body?.code ?? ''));
        return reply.redirect('/dashboard/security', 303);
      } catch (error) {
        if (!(error instanceof PaylinkError)) throw error;
        return reply.status(400).send(
          renderSecurity({
            assets,
            user,
            csrf: session.csrfToken,
            enroll: await enrollment(secret, user.email),
            error: error.message,
          }),
        );
      }
    });

    // Sends a webhook of the merchant's own payment again: same id and body, a fresh schedule.
    app.post('/dashboard/webhooks/:id/resend', async (request: FormRequest, reply) => {
      const signedIn = await requireUser(request, reply);
      if (!signedIn) return reply;
      const { user, session } = signedIn;
      reply.type(HTML);
      if (refusedForgery(request, reply, signedIn)) return reply;
      const { id } = request.params as { id: string };
      try {
        const { event } = await getWebhookEvent(deps, id);
        // Another merchant's event (or any, for an operator here) is the same 404 as none.
        if (user.role !== 'merchant' || event.merchantId !== user.merchantId)
          throw new WebhookEventNotFoundError();
        await resendWebhookEvent(deps, event.id);
        return reply.redirect(
          event.paymentId ? `/dashboard/payments/${event.paymentId}` : '/dashboard/',
          303,
        );
      } catch (error) {
        if (error instanceof WebhookEventNotFoundError)
          return reply.status(404).send(renderNotFound(assets, user, session.csrfToken));
        if (error instanceof PaylinkError)
          return reply
            .status(error.status)
            .send(renderNotFound(assets, user, session.csrfToken, error.message));
        throw error;
      }
    });

    // Operators: payouts still owed, failing ones first in mind (the default view), each with "Retry now".
    app.get('/dashboard/payouts', async (request, reply) => {
      const signedIn = await requireUser(request, reply);
      if (!signedIn) return reply;
      const { user, session } = signedIn;
      reply.type(HTML);
      if (user.role !== 'operator' || !deps.payouts)
        return reply.status(404).send(renderNotFound(assets, user, session.csrfToken));
      const all = (request.query as { all?: string }).all === '1';
      const payouts = await listPayouts(
        { settlements: deps.payouts.settlements, clock: deps.clock },
        deps.payouts.policy,
        { failingOnly: !all, limit: 200 },
      );
      return renderPayouts({ assets, user, csrf: session.csrfToken, payouts, all });
    });

    app.post('/dashboard/payouts/:id/retry', async (request: FormRequest, reply) => {
      const signedIn = await requireUser(request, reply);
      if (!signedIn) return reply;
      const { user, session } = signedIn;
      reply.type(HTML);
      if (user.role !== 'operator' || !deps.payouts)
        return reply.status(404).send(renderNotFound(assets, user, session.csrfToken));
      if (refusedForgery(request, reply, signedIn)) return reply;
      try {
        await retrySettlement(deps.payouts, { paymentId: (request.params as { id: string }).id });
        return reply.redirect('/dashboard/payouts', 303);
      } catch (error) {
        if (!(error instanceof PaylinkError)) throw error;
        return reply
          .status(error.status)
          .send(renderNotFound(assets, user, session.csrfToken, error.message));
      }
    });

    app.post('/dashboard/logout', async (request: FormRequest, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      const signedIn = await sessionUser(deps, token);
      if (signedIn && refusedForgery(request, reply, signedIn)) return reply;
      await signOut(deps, token);
      return reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' }).redirect('/dashboard/login', 303);
    });

    app.get('/dashboard', async (request, reply) => {
      const signedIn = await requireUser(request, reply);
      if (!signedIn) return reply;
      const { user, session } = signedIn;
      reply.type(HTML);
      if (user.role === 'operator')
        return renderMerchants({
          assets,
          user,
          csrf: session.csrfToken,
          merchants: await deps.merchants.list(200),
        });
      const merchantId = merchantOf(user);
      const { cursor } = request.query as { cursor?: string };
      try {
        const page = await listPayments(deps, merchantId, { limit: PAGE_SIZE, cursor });
        return renderPayments({
          assets,
          user,
          csrf: session.csrfToken,
          merchant: await deps.merchants.find(merchantId),
          payments: page.payments,
          nextCursor: page.nextCursor,
        });
      } catch (error) {
        if (error instanceof PaylinkError && error.code === 'VALIDATION_ERROR')
          return reply.redirect('/dashboard/', 303);
        throw error;
      }
    });

    // The same export as the API's (exportPayments.ts), for the signed-in merchant user.
    app.get('/dashboard/export.csv', async (request, reply) => {
      const signedIn = await requireUser(request, reply);
      if (!signedIn) return reply;
      const { user, session } = signedIn;
      if (user.role !== 'merchant')
        return reply
          .status(404)
          .type(HTML)
          .send(renderNotFound(assets, user, session.csrfToken));
      const { from, to } = request.query as { from?: string; to?: string };
      let range: ReturnType<typeof exportRange>;
      try {
        range = exportRange(from, to);
      } catch (error) {
        if (!(error instanceof PaylinkError)) throw error;
        return reply
          .status(400)
          .type(HTML)
          .send(renderNotFound(assets, user, session.csrfToken, error.message));
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="payments.csv"')
        .send(Readable.from(exportPaymentsCsv(deps, merchantOf(user), 'live', range)));
    });

    app.get('/dashboard/payments/:id', async (request, reply) => {
      const signedIn = await requireUser(request, reply);
      if (!signedIn) return reply;
      const { user, session } = signedIn;
      reply.type(HTML);
      const { id } = request.params as { id: string };
      try {
        // A merchant user reads its own merchant's payments only: another's is the same 404 as none.
        if (user.role !== 'merchant') throw new PaymentNotFoundError();
        const { payment, state } = await getPaymentStatus(deps, merchantOf(user), id);
        const [transfers, webhooks] = await Promise.all([
          deps.ledger.listTransfers(payment.id),
          listMerchantWebhookEvents(deps, merchantOf(user), { paymentId: payment.id, limit: 50 }),
        ]);
        return renderPayment({ assets, user, csrf: session.csrfToken, payment, state, transfers, webhooks });
      } catch (error) {
        if (error instanceof PaymentNotFoundError)
          return reply.status(404).send(renderNotFound(assets, user, session.csrfToken));
        throw error;
      }
    });
  };
}

function merchantOf(user: DashboardUser): string {
  if (user.merchantId === null) throw new Error('a merchant user without a merchant');
  return user.merchantId;
}
