import { expect } from 'vitest';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { createUser } from '../../src/app/dashboard/users.ts';
import type { DashboardUser } from '../../src/domain/dashboardUser.ts';
import type { ApiHarness } from './apiHarness.ts';

/** The API harness's PAYLINK_BASE_URL: where the dashboard's forms come from. */
export const DASHBOARD_ORIGIN = 'https://api.example.test';
export const DASHBOARD_PASSWORD = 'correct horse battery staple';

type Response = Awaited<ReturnType<ApiHarness['app']['inject']>>;

/** A signed-in browser, as far as the server can tell: its session cookie, and the CSRF token of its pages. */
export interface DashboardSession {
  readonly user: DashboardUser;
  /** The session cookie's value, for a request the helpers do not make (a multipart form). */
  readonly cookie: string;
  get(url: string): Promise<Response>;
  /** Posts a form with the session's CSRF token (unless the form gives its own). */
  post(url: string, form?: Record<string, string>): Promise<Response>;
}

/** The CSRF token of a dashboard page (every signed-in page has the sign-out form). */
export function csrfOf(body: string): string {
  const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
  if (!token) throw new Error('no CSRF token on the page');
  return token;
}

/**
 * Drives the dashboard of an API harness over `inject`: forms posted from the dashboard's origin, users made by
 * the operators' use case, passwords set through the one-time link, sessions by cookie.
 */
export function dashboardClient(h: Pick<ApiHarness, 'app' | 'stores' | 'clock'>) {
  const post = (url: string, form: Record<string, string>, cookie?: string) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: DASHBOARD_ORIGIN,
        ...(cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {}),
      },
      payload: new URLSearchParams(form).toString(),
    });
  const get = (url: string, cookie?: string) =>
    h.app.inject({ method: 'GET', url, headers: cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {} });

  /** A new user with a password, signed in. */
  const signedIn = async (
    email: string,
    role: DashboardUser['role'],
    merchantId?: string,
  ): Promise<DashboardSession> => {
    const { user, token } = await createUser(
      { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
      { email, role, ...(merchantId ? { merchantId } : {}) },
    );
    expect((await post('/dashboard/set-password', { token, password: DASHBOARD_PASSWORD })).statusCode).toBe(
      303,
    );
    h.clock.advance(60_000); // a person's pace: the per-client sign-in bucket refills
    const signIn = await post('/dashboard/login', { email, password: DASHBOARD_PASSWORD });
    const cookie = signIn.cookies.find((c) => c.name === SESSION_COOKIE)?.value;
    if (!cookie) throw new Error(`${email} could not sign in: ${signIn.statusCode}`);
    let csrf: string | undefined;
    return {
      user,
      cookie,
      get: (url) => get(url, cookie),
      async post(url, form = {}) {
        csrf ??= csrfOf((await get('/dashboard/security', cookie)).body);
        return post(url, { csrf, ...form }, cookie);
      },
    };
  };

  return { post, get, signedIn };
}
