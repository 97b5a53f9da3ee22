import type { DashboardUser } from '../../domain/dashboardUser.ts';
import { html, type SafeHtml } from '../checkout/html.ts';

/**
 * The dashboard's pages, rendered on the server (decision 0014): they work without JavaScript, and every value
 * is escaped by `html`. Forms that change something carry the session's CSRF token.
 */
export interface DashboardAssets {
  readonly stylesheet: string;
  readonly script: string;
}

const MERCHANT_NAV = [
  ['/dashboard/payments', 'Payments'],
  ['/dashboard/developers', 'Developers'],
  ['/dashboard/security', 'Security'],
] as const;
const OPERATOR_NAV = [
  ['/dashboard/merchants', 'Merchants'],
  ['/dashboard/payouts', 'Payouts'],
  ['/dashboard/webhooks', 'Webhooks'],
  ['/dashboard/health', 'Health'],
  ['/dashboard/security', 'Security'],
] as const;

export function layout(input: {
  title: string;
  assets: DashboardAssets;
  body: SafeHtml;
  user?: DashboardUser | undefined;
  csrf?: string | undefined;
}): string {
  const nav = input.user
    ? html`<header class="top">
  <strong>Paylink</strong>
  <nav aria-label="Main"><ul>
    ${(input.user.role === 'operator' ? OPERATOR_NAV : MERCHANT_NAV).map(
      ([href, label]) => html`<li><a href="${href}">${label}</a></li>`,
    )}
  </ul></nav>
  <form method="post" action="/dashboard/logout">
    <input type="hidden" name="csrf" value="${input.csrf ?? ''}">
    <span class="muted">${input.user.email}</span>
    <button type="submit" class="link">Sign out</button>
  </form>
</header>`
    : null;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${input.title} · Paylink</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${input.assets.stylesheet}">
<script src="${input.assets.script}" defer></script>
</head>
<body>
${nav}
<main>
${input.body}
</main>
</body>
</html>
`.toString();
}

export const time = (date: Date) =>
  html`<time datetime="${date.toISOString()}">${date.toISOString().replace('T', ' ').slice(0, 16)} UTC</time>`;

export function renderLogin(
  assets: DashboardAssets,
  message?: { kind: 'error' | 'notice'; text: string },
): string {
  const body = html`<div class="card narrow">
  <h1>Sign in</h1>
  ${message ? html`<p class="${message.kind}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>` : null}
  <form class="stack" method="post" action="/dashboard/login">
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="username" required>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <label for="code">Authentication code <span class="muted">(if you set one up)</span></label>
    <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6">
    <button type="submit">Sign in</button>
  </form>
</div>`;
  return layout({ title: 'Sign in', assets, body });
}

export function renderSetPassword(assets: DashboardAssets, error?: string): string {
  const body = html`<div class="card narrow">
  <h1>Set your password</h1>
  ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  <p class="muted">At least 12 characters. A sentence you will remember is a good password.</p>
  <form class="stack" method="post" action="/dashboard/set-password">
    <input type="hidden" name="token" data-from-fragment value="">
    <label for="password">New password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
    <button type="submit">Set password</button>
  </form>
</div>`;
  return layout({ title: 'Set your password', assets, body });
}

export function renderNotFound(
  assets: DashboardAssets,
  user?: DashboardUser,
  csrf?: string,
  problem?: string,
): string {
  const title = problem ? 'Cannot do that' : 'Not found';
  const body = html`<div class="card narrow"><h1>${title}</h1>${problem ? html`<p class="error" role="alert">${problem}</p>` : null}<p><a href="/dashboard/">Back to the dashboard</a></p></div>`;
  return layout({ title, assets, body, user, csrf });
}

/** The second factor: on, or how to turn it on (scan, then confirm with a code). */
export function renderSecurity(input: {
  assets: DashboardAssets;
  user: DashboardUser;
  csrf: string;
  enroll?: { secret: string; qrDataUri: string };
  required?: boolean;
  error?: string;
}): string {
  const body = input.enroll
    ? html`<div class="card narrow">
  <h1>Second factor</h1>
  ${input.required ? html`<p class="notice" role="status">Operators must set up a second factor before going on.</p>` : null}
  ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : null}
  <p>Scan this with an authenticator app, then type the code it shows.</p>
  <p><img src="${input.enroll.qrDataUri}" alt="QR code of your authenticator secret" width="200" height="200"></p>
  <p class="muted">Or type this secret into the app: <code data-secret>${input.enroll.secret}</code></p>
  <form class="stack" method="post" action="/dashboard/security/totp">
    <input type="hidden" name="csrf" value="${input.csrf}">
    <input type="hidden" name="secret" value="${input.enroll.secret}">
    <label for="code">Code from the app</label>
    <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
    <button type="submit">Turn on</button>
  </form>
</div>`
    : html`<div class="card narrow"><h1>Second factor</h1><p role="status">On: signing in asks for a code from your authenticator app.</p></div>`;
  return layout({ title: 'Second factor', assets: input.assets, body, user: input.user, csrf: input.csrf });
}
