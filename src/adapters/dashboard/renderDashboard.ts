import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { ApiKeyRecord } from '../../app/merchants/ports.ts';
import type { DashboardUser } from '../../domain/dashboardUser.ts';
import { html, type SafeHtml } from '../web/html.ts';
import type { Language } from '../web/language.ts';
import { languageSwitcher, pageDocument } from '../web/pageDocument.ts';
import type { DashboardText } from './messages/index.ts';

/**
 * The dashboard's pages, rendered on the server (decision 0014): they work without JavaScript, and every value
 * is escaped by `html`. Forms that change something carry the session's CSRF token. This file holds the layout
 * and the pages of signing in; the merchant's and the operator's pages have their own files.
 */
export interface DashboardAssets {
  readonly stylesheet: string;
  readonly script: string;
  /** A page family's own stylesheet and script after those (the point of sale's), each from this origin. */
  readonly own?: { readonly stylesheet: string; readonly script: string } | undefined;
}

/** What every page is rendered with: its assets, and the person's language and its words. */
export interface PageContext {
  readonly assets: DashboardAssets;
  readonly lang: Language;
  readonly t: DashboardText;
  /** The page's query without `lang` ("status=paid&q=…"), which the language switcher keeps; absent: none. */
  readonly query?: string | undefined;
  /** The page's path, which the navigation marks as the current entry; absent: none marked. */
  readonly path?: string | undefined;
}

/** What every signed-in page is rendered with: who is signed in, and the page's context. */
export interface SignedInPageInput {
  readonly signedIn: SignedIn;
  readonly ctx: PageContext;
}

const MERCHANT_NAV = [
  ['/dashboard/home', 'home'],
  ['/dashboard/payments', 'payments'],
  ['/dashboard/payments/new', 'newPayment'],
  ['/dashboard/links', 'links'],
  ['/dashboard/subscriptions', 'subscriptions'],
  ['/dashboard/pos', 'pos'],
  ['/dashboard/developers', 'developers'],
  ['/dashboard/security', 'security'],
] as const;
/** A PoS user's whole dashboard (decision 0054). */
const POS_NAV = [['/dashboard/pos', 'pos']] as const;
const OPERATOR_NAV = [
  ['/dashboard/merchants', 'merchants'],
  ['/dashboard/payments', 'payments'],
  ['/dashboard/payouts', 'payouts'],
  ['/dashboard/renewals', 'subscriptions'],
  ['/dashboard/webhooks', 'webhooks'],
  ['/dashboard/health', 'health'],
  ['/dashboard/security', 'security'],
] as const;

/**
 * The navigation entry of the page at `path`: the exact match, else the longest one `path` is under (a payment's
 * page is under Payments; New payment is its own).
 */
function currentEntry(
  entries: readonly (readonly [string, string])[],
  path: string | undefined,
): string | undefined {
  if (path === undefined) return undefined;
  const under = entries
    .map(([href]) => href)
    .filter((href) => path === href || path.startsWith(`${href}/`))
    .sort((a, b) => b.length - a.length);
  return under.find((href) => href === path) ?? under[0];
}

/** The main navigation's list: the page's own entry marked `aria-current`. */
function navList(ctx: PageContext, user: DashboardUser): SafeHtml {
  const entries = { operator: OPERATOR_NAV, merchant: MERCHANT_NAV, pos: POS_NAV }[user.role];
  const current = currentEntry(entries, ctx.path);
  return html`<ul>${entries.map(
    ([href, label]) =>
      html`<li><a href="${href}"${href === current ? html` aria-current="page"` : null}>${ctx.t.nav[label]}</a></li>`,
  )}</ul>`;
}

/**
 * The signed-in header (dashboardKit.css): on a desk the navigation on one line, never wrapped or underlined; on a
 * phone the same links folded into a menu that opens without a script (`details`), the other hidden by the
 * stylesheet so that each width has one main navigation.
 */
function signedInHeader(ctx: PageContext, user: DashboardUser, csrf: string | undefined): SafeHtml {
  const { t } = ctx;
  const signOut = html`<form class="sign-out" method="post" action="/dashboard/logout">
    <input type="hidden" name="csrf" value="${csrf ?? ''}">
    <span class="muted who">${user.email}</span>
    <button type="submit" class="secondary">${t.nav.signOut}</button>
  </form>`;
  return html`<header class="top">
  <a class="brand" href="/dashboard/">Paylink</a>
  <nav class="main wide" aria-label="${t.nav.main}">${navList(ctx, user)}</nav>
  <div class="account wide">${signOut}</div>
  <details class="menu narrow-only"><summary>${t.nav.menu}</summary><div class="menu-panel">
    <nav class="main" aria-label="${t.nav.main}">${navList(ctx, user)}</nav>
    ${signOut}
  </div></details>
</header>`;
}

export function layout(input: {
  title: string;
  ctx: PageContext;
  body: SafeHtml;
  user?: DashboardUser | undefined;
  csrf?: string | undefined;
}): string {
  const header = input.user
    ? signedInHeader(input.ctx, input.user, input.csrf)
    : html`<header class="top">
  <a class="brand" href="/dashboard/">Paylink</a>
</header>`;
  const { assets } = input.ctx;
  return pageDocument({
    language: input.ctx.lang,
    title: `${input.title} · Paylink`,
    icon: { href: 'data:,' },
    stylesheets: [assets.stylesheet, ...(assets.own ? [assets.own.stylesheet] : [])],
    scripts: [assets.script, ...(assets.own ? [assets.own.script] : [])],
    body: html`${header}
<main>
${input.body}
</main>
<footer class="bottom">${languageSwitcher(input.ctx.lang, input.ctx.t.nav.language, input.ctx.query)}</footer>`,
  });
}

/** A signed-in person's page: the layout with their navigation and sign-out form. */
export const signedInPage = (signedIn: SignedIn, ctx: PageContext, title: string, body: SafeHtml) =>
  layout({ title, ctx, body, user: signedIn.user, csrf: signedIn.session.csrfToken });

/** The session's CSRF token, for every form that changes something. */
export const csrfField = (signedIn: SignedIn) =>
  html`<input type="hidden" name="csrf" value="${signedIn.session.csrfToken}">`;

/** What a form's last submission was refused for, read out to screen readers. */
export const problemBox = (problem: string | undefined) =>
  problem ? html`<p class="error" role="alert">${problem}</p>` : null;

/** A merchant's API keys, by their kept prefix only: the merchant's developer page and the operator's. */
export function keysTable(ctx: PageContext, keys: readonly ApiKeyRecord[]): SafeHtml {
  const d = ctx.t.developers;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${d.apiKeys}"><table><thead><tr><th scope="col">${d.key}</th><th scope="col">${d.mode}</th><th scope="col">${d.created}</th><th scope="col">${d.valid}</th></tr></thead><tbody>${keys.map(
    (k) =>
      html`<tr><td><code>${k.keyPrefix}…</code></td><td>${k.mode}</td><td>${time(k.createdAt)}</td><td>${k.expiresAt ? html`${d.until} ${time(k.expiresAt)}` : d.current}</td></tr>`,
  )}</tbody></table></div>`;
}

/** A moment in UTC (readable without the script), which the script rewrites in the person's zone and language. */
export const time = (date: Date) =>
  html`<time datetime="${date.toISOString()}">${date.toISOString().replace('T', ' ').slice(0, 16)} UTC</time>`;

export function renderLogin(
  ctx: PageContext,
  message?: { kind: 'error' | 'notice'; text: string | SafeHtml },
): string {
  const { t } = ctx;
  const body = html`<div class="card narrow">
  <h1>${t.signIn.title}</h1>
  ${message ? html`<p class="${message.kind}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>` : null}
  <form class="stack" method="post" action="/dashboard/login">
    <label for="email">${t.signIn.email}</label>
    <input id="email" name="email" type="email" autocomplete="username" required>
    <label for="password">${t.signIn.password}</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <label for="code">${t.signIn.code} <span class="muted">${t.signIn.codeHint}</span></label>
    <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6">
    <button type="submit">${t.signIn.button}</button>
  </form>
</div>`;
  return layout({ title: t.signIn.title, ctx, body });
}

export function renderSetPassword(ctx: PageContext, error?: string): string {
  const { t } = ctx;
  const body = html`<div class="card narrow">
  <h1>${t.setPassword.title}</h1>
  ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  <p class="muted">${t.setPassword.rules}</p>
  <form class="stack" method="post" action="/dashboard/set-password">
    <input type="hidden" name="token" data-from-fragment value="">
    <label for="password">${t.setPassword.newPassword}</label>
    <input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
    <button type="submit">${t.setPassword.button}</button>
  </form>
</div>`;
  return layout({ title: t.setPassword.title, ctx, body });
}

export function renderNotFound(
  ctx: PageContext,
  user?: DashboardUser,
  csrf?: string,
  problem?: string,
): string {
  const { t } = ctx;
  const title = problem ? t.refusal.cannot : t.refusal.notFound;
  const body = html`<div class="card narrow"><h1>${title}</h1>${problem ? html`<p class="error" role="alert">${problem}</p>` : null}<p><a href="/dashboard/">${t.refusal.back}</a></p></div>`;
  return layout({ title, ctx, body, user, csrf });
}

/** The second factor: on, or how to turn it on (scan, then confirm with a code). */
export function renderSecurity(input: {
  ctx: PageContext;
  user: DashboardUser;
  csrf: string;
  enroll?: { secret: string; qrDataUri: string };
  required?: boolean;
  error?: string;
}): string {
  const { t } = input.ctx;
  const body = input.enroll
    ? html`<div class="card narrow">
  <h1>${t.secondFactor.title}</h1>
  ${input.required ? html`<p class="notice" role="status">${t.secondFactor.required}</p>` : null}
  ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : null}
  <p>${t.secondFactor.scan}</p>
  <p><img src="${input.enroll.qrDataUri}" alt="${t.secondFactor.qrAlt}" width="200" height="200"></p>
  <p class="muted">${t.secondFactor.orType} <code data-secret>${input.enroll.secret}</code></p>
  <form class="stack" method="post" action="/dashboard/security/totp">
    <input type="hidden" name="csrf" value="${input.csrf}">
    <input type="hidden" name="secret" value="${input.enroll.secret}">
    <label for="code">${t.secondFactor.code}</label>
    <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
    <button type="submit">${t.secondFactor.turnOn}</button>
  </form>
</div>`
    : html`<div class="card narrow"><h1>${t.secondFactor.title}</h1><p role="status">${t.secondFactor.on}</p></div>`;
  return layout({ title: t.secondFactor.title, ctx: input.ctx, body, user: input.user, csrf: input.csrf });
}
