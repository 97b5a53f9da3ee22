import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  enrollSecondFactor,
  type SignInDeps,
  SignInLimitedError,
  sessionUser,
  setPassword,
  signIn,
  signOut,
} from '../../app/dashboard/signIn.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import { format, type SafeHtml } from '../web/html.ts';
import { findBadText, namedOr } from '../web/inputText.ts';
import { joinedParts } from '../web/joinedParts.ts';
import { isLanguage } from '../web/language.ts';
import { pageScript } from '../web/pageScript.ts';
import { qrSvg } from '../web/qrCode.ts';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../web/securityHeaders.ts';
import { ADDRESS_FIELD, brandPages, logoTooLarge, registerLogoUpload } from './brandPages.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { homePages } from './homePage.ts';
import { merchantPages } from './merchantPages.ts';
import { operatorPages } from './operatorPages.ts';
import { type FormRequest, HTML, LANGUAGE_COOKIE, type PageKit, pageKit, SESSION_COOKIE } from './pageKit.ts';
import { POS_TEXT } from './posMessages/index.ts';
import { isPosRoute, posPages } from './posPages.ts';
import { type DashboardAssets, renderLogin, renderSecurity, renderSetPassword } from './renderDashboard.ts';
import { subscriptionPages } from './subscriptionPages.ts';

/** The checkout's policy, but forms post to this origin (the dashboard's forms do; the checkout has none). */
const DASHBOARD_CSP = CONTENT_SECURITY_POLICY.replace("form-action 'none'", "form-action 'self'");

const readAsset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url));

function assetOf(body: Buffer) {
  return { body, version: createHash('sha256').update(body).digest('hex').slice(0, 12) };
}

/**
 * The dashboard (decision 0014) on the API origin, under `/dashboard/`: sign-in with a server-side session, the
 * merchant's payments, an operator's merchants. A plugin of its own context, so its form parser, cookies and
 * headers stay here and the API beside it keeps answering only JSON; what the port does for every route (rate
 * limits, request ids, the error shape for what this plugin's handler passes on) comes from the server it is
 * mounted on.
 */
export function dashboardPlugin(deps: DashboardDeps) {
  // One stylesheet in three parts (dashboardLayout.css first, the design system, dashboardKit.css, last); the script
  // after what every web surface's pages share.
  const css = assetOf(
    joinedParts(['dashboardLayout.css', 'dashboardWidgets.css', 'dashboardKit.css'].map(readAsset)),
  );
  const js = assetOf(pageScript([readAsset('dashboard.js')]));
  const assets: DashboardAssets = {
    stylesheet: `/dashboard/assets/dashboard.css?v=${css.version}`,
    script: `/dashboard/assets/dashboard.js?v=${js.version}`,
  };
  const kit = pageKit(deps, assets);
  const publicOrigin = new URL(deps.baseUrl).origin;

  return async (app: FastifyInstance) => {
    // Pages, not API: kept out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 4_096 });
    // The brand form's logo (multipart); every other form stays url-encoded.
    if (deps.branding) await registerLogoUpload(app, deps.branding.logoRules);
    guardPages(app, deps, kit, publicOrigin);
    rememberLanguage(app, publicOrigin);

    for (const [path, file, type] of [
      ['/dashboard/assets/dashboard.css', css, 'text/css; charset=utf-8'],
      ['/dashboard/assets/dashboard.js', js, 'text/javascript; charset=utf-8'],
    ] as const)
      app.get(path, { logLevel: 'warn' }, async (_request, reply) =>
        reply.type(type).header('cache-control', 'public, max-age=31536000, immutable').send(file.body),
      );

    signInRoutes(app, deps, kit, publicOrigin);
    securityRoutes(app, deps, kit);
    homePages(app, deps, kit);
    merchantPages(app, deps, kit);
    posPages(app, deps, kit);
    brandPages(app, deps, kit);
    operatorPages(app, deps, kit);
    if (deps.subscriptions) subscriptionPages(app, { ...deps, subscriptions: deps.subscriptions }, kit);
  };
}

/**
 * A language picked from the switcher (a link with `?lang=`) is kept in a cookie for a year, so that every page
 * after it, the sign-in page included, speaks it (decision 0026). Only the four languages are ever written.
 */
function rememberLanguage(app: FastifyInstance, publicOrigin: string): void {
  app.addHook('onRequest', async (request, reply) => {
    const asked = (request.query as { lang?: unknown } | undefined)?.lang;
    if (request.method !== 'GET' || !isLanguage(asked) || request.cookies[LANGUAGE_COOKIE] === asked) return;
    reply.setCookie(LANGUAGE_COOKIE, asked, {
      path: '/dashboard',
      httpOnly: true,
      secure: publicOrigin.startsWith('https:'),
      sameSite: 'lax',
      maxAge: 365 * 24 * 3600,
    });
  });
}

/** Headers, the origin check, the text rule and the HTML error page: what every dashboard request goes through. */
function guardPages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit, publicOrigin: string): void {
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
          renderLogin(kit.context(request), {
            kind: 'error',
            text: kit.context(request).t.refusal.otherOrigin,
          }),
        );
  });

  // The API's text rule (no control character, no broken Unicode: PostgreSQL refuses U+0000 in text) for every
  // field of every form, checked here once, after the origin, before any handler or the database sees it. The
  // query's fields are checked by the API's own hook (inputText.ts); both refusals end up in the page below.
  // The brand form's address alone is typed as lines (decision 0057): its line breaks pass, nothing else does.
  app.addHook('preHandler', (request, _reply, done) => {
    const multiLine = request.routeOptions.url === '/dashboard/brand' ? ADDRESS_FIELD : undefined;
    const bad = request.method === 'POST' ? findBadText(request.body, '', [], multiLine) : [];
    done(bad.length > 0 ? new ValidationError(namedOr(bad, 'form')) : undefined);
  });

  // A request refused for its input is answered on the page it was sent to, in HTML like every page (not the
  // API's JSON), and is no error of the service; anything else goes on to the port's handler.
  app.setErrorHandler(async (thrown, request, reply) => {
    const error = (deps.branding && logoTooLarge(thrown, deps.branding.logoRules)) ?? thrown;
    if (!(error instanceof ValidationError)) throw error;
    const ctx = kit.context(request);
    reply.type(HTML);
    switch (request.routeOptions.url) {
      case '/dashboard/login':
        return reply.status(400).send(renderLogin(ctx, { kind: 'error', text: error.message }));
      case '/dashboard/set-password':
        return reply.status(400).send(renderSetPassword(ctx, error.message));
    }
    const signedIn = await sessionUser(deps, request.cookies[SESSION_COOKIE]);
    if (!signedIn)
      return reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' }).redirect('/dashboard/login', 303);
    // Refused for what it is before what it sent: a PoS user's form to another page is a 403 like any request.
    if (signedIn.user.role === 'pos' && !isPosRoute(request.routeOptions.url))
      return kit.refuse(reply, signedIn, 403, POS_TEXT[ctx.lang].posOnly);
    return kit.refuse(reply, signedIn, 400, error.message);
  });
}

/** Signing in and out, and setting a password from an invitation's link. */
function signInRoutes(app: FastifyInstance, deps: DashboardDeps, kit: PageKit, publicOrigin: string): void {
  const signInDeps: SignInDeps = deps;
  // Over plain http (the sandbox) the cookie cannot be `Secure`: browsers would drop it.
  const secureCookies = publicOrigin.startsWith('https:');
  const setCookie = (reply: FastifyReply, token: string, maxAgeS: number) =>
    reply.setCookie(SESSION_COOKIE, token, {
      path: '/dashboard',
      httpOnly: true,
      secure: secureCookies,
      sameSite: 'lax',
      maxAge: maxAgeS,
    });

  app.get('/dashboard/login', async (request, reply) => {
    const { password } = request.query as { password?: string };
    reply.type(HTML);
    const ctx = kit.context(request);
    return renderLogin(
      ctx,
      password === 'set' ? { kind: 'notice', text: ctx.t.signIn.passwordSet } : undefined,
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
      const ctx = kit.context(request);
      let text: string | SafeHtml = error.code === 'UNAUTHORIZED' ? ctx.t.signIn.wrong : error.message;
      if (error instanceof SignInLimitedError) {
        reply.header('retry-after', String(Math.ceil(error.retryAfterMs / 1000)));
        text = format(ctx.t.signIn.tooMany, { minutes: error.retryAfterMinutes });
      }
      return reply.status(error.status).send(renderLogin(ctx, { kind: 'error', text }));
    }
  });

  app.get('/dashboard/set-password', async (request, reply) =>
    reply.type(HTML).send(renderSetPassword(kit.context(request))),
  );

  app.post('/dashboard/set-password', async (request: FormRequest, reply) => {
    reply.type(HTML);
    try {
      await setPassword(signInDeps, String(request.body?.token ?? ''), String(request.body?.password ?? ''));
      return reply.redirect('/dashboard/login?password=set', 303);
    } catch (error) {
      if (!(error instanceof PaylinkError)) throw error;
      // The token stays out of the page: a failed attempt needs the link again (or a new one).
      return reply.status(error.status).send(renderSetPassword(kit.context(request), error.message));
    }
  });

  app.post('/dashboard/logout', async (request: FormRequest, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    const signedIn = await sessionUser(deps, token);
    if (signedIn && kit.refusedForgery(request, reply, signedIn)) return reply;
    await signOut(deps, token);
    return reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' }).redirect('/dashboard/login', 303);
  });
}

/** A person's second factor: its page, and enrolling one. */
function securityRoutes(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  const { requireUser, refusedForgery } = kit;
  /** The secret to enroll, with its `otpauth://` URI as a QR code (a `data:` image: the CSP allows those). */
  const enrollment = async (secret: string, email: string) => ({
    secret,
    qrDataUri: `data:image/svg+xml;base64,${Buffer.from(
      await qrSvg(deps.secondFactor.enrollmentUri(secret, email)),
    ).toString('base64')}`,
  });

  app.get('/dashboard/security', async (request, reply) => {
    const signedIn = await requireUser(request, reply, true);
    if (!signedIn) return reply;
    const { user, session } = signedIn;
    reply.type(HTML);
    const ctx = kit.context(request);
    if (user.totpSecret !== null) return renderSecurity({ ctx, user, csrf: session.csrfToken });
    return renderSecurity({
      ctx,
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
          ctx: kit.context(request),
          user,
          csrf: session.csrfToken,
          enroll: await enrollment(secret, user.email),
          error: error.message,
        }),
      );
    }
  });
}
