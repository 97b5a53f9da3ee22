import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { totpSecondFactor } from '../../src/adapters/crypto/totp.ts';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { SESSION_IDLE_MS, SIGN_IN_LIMITS } from '../../src/app/dashboard/signIn.ts';
import {
  createUser,
  disableUser,
  newSecretToken,
  removeSecondFactor,
  resetPassword,
} from '../../src/app/dashboard/users.ts';
import { disableMerchant, enableMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { ADMIN_TOKEN, type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { runCli } from '../helpers/cli.ts';
import { dialects } from '../helpers/database.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

/** Every POST route of an app, read from the router's tree (`printRoutes` nests a route under its prefix). */
function postRoutes(app: FastifyInstance): string[] {
  const prefixes: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ method: 'POST', commonPrefix: false }).split('\n')) {
    const node = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + node[2]!;
    prefixes[depth] = path;
    if (node[3]?.split(', ').includes('POST')) routes.push(path);
  }
  return routes;
}

/** The harness's PAYLINK_BASE_URL: where the dashboard's forms come from. */
const ORIGIN = 'https://api.example.test';
const PASSWORD = 'correct horse battery staple';

/**
 * The dashboard's sign-in and first pages over the real app, on each database: users made by an operator, the
 * one-time link, passwords checked, sessions and their ends, CSRF and origin checks, and a merchant user who
 * sees its own payments only.
 */
describe.each(dialects)('dashboard sign-in on %s', (dialect) => {
  let h: ApiHarness;
  let shop: { id: string; apiKey: string };
  let other: { id: string; apiKey: string };
  let otherPayment: string;

  beforeAll(async () => {
    // A cheaper scrypt cost: the same code, fewer iterations, so the suite stays fast.
    h = await startApiHarness(dialect, {
      overrides: { passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }) },
    });
    shop = await h.merchant({ name: 'Corner Shop' });
    other = await h.merchant({ name: 'Other Shop' });
    otherPayment = (await create(other.apiKey, '12.00')).payment_id;
  });
  afterAll(() => h?.close());

  const create = async (apiKey: string, amount: string) =>
    (
      await h.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: { amount, currency: 'USDC', order_id: `order-${amount}` },
      })
    ).json() as { payment_id: string };

  const admin = { users: () => h.stores.users, merchants: () => h.stores.merchants };
  const adminDeps = () => ({ users: admin.users(), merchants: admin.merchants(), clock: h.clock });

  const post = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, ...headers },
      payload: new URLSearchParams(form).toString(),
    });
  const get = (url: string, cookie?: string) =>
    h.app.inject({ method: 'GET', url, headers: cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {} });
  const sessionOf = (response: Awaited<ReturnType<typeof post>>) =>
    response.cookies.find((c) => c.name === SESSION_COOKIE)?.value;

  /** A merchant user of `shop` with a password set through the one-time link. */
  const merchantUser = async (email: string) => {
    const { user, token } = await createUser(adminDeps(), { email, role: 'merchant', merchantId: shop.id });
    const set = await post('/dashboard/set-password', { token, password: PASSWORD });
    expect(set.statusCode).toBe(303);
    expect(set.headers.location).toBe('/dashboard/login?password=set');
    return user;
  };
  const signIn = async (email: string, password = PASSWORD) => {
    h.clock.advance(60_000); // a person's pace: the per-client sign-in bucket refills
    return post('/dashboard/login', { email, password });
  };

  it('a link sets the password once; a short or common password is refused; the hash is scrypt', async () => {
    const { user, token } = await createUser(adminDeps(), {
      email: ' Ana@Corner.example ',
      role: 'merchant',
      merchantId: shop.id,
    });
    expect(user.email).toBe('ana@corner.example');
    const short = await post('/dashboard/set-password', { token, password: 'too short' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('at least 12 characters');
    const common = await post('/dashboard/set-password', { token, password: 'Qwerty123456' });
    expect(common.statusCode).toBe(400);
    expect(common.body).toContain('most common passwords');
    // Refused attempts did not use the link up.
    expect((await post('/dashboard/set-password', { token, password: PASSWORD })).statusCode).toBe(303);
    const again = await post('/dashboard/set-password', { token, password: `${PASSWORD}!` });
    expect(again.statusCode).toBe(404);
    expect(again.body).toContain('used already, replaced by a newer one, or has expired');
    const stored = await h.stores.users.findById(user.id);
    expect(stored?.passwordHash).toMatch(/^scrypt\$1024\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(stored?.passwordHash).not.toContain(PASSWORD);
    // The token never reaches a log: it travels in the link's fragment, never sent to a server.
    expect(h.logs()).not.toContain(token);
  });

  it('a link expires after 24 hours', async () => {
    const { token } = await createUser(adminDeps(), { email: 'late@corner.example', role: 'operator' });
    h.clock.advance(24 * 60 * 60_000);
    expect((await post('/dashboard/set-password', { token, password: PASSWORD })).statusCode).toBe(404);
  });

  it('a newer link voids the earlier ones, used or not; a password set voids every other open link', async () => {
    // Issued twice, the second used: the first is refused.
    const ned = await createUser(adminDeps(), {
      email: 'ned@corner.example',
      role: 'merchant',
      merchantId: shop.id,
    });
    const nedAgain = await resetPassword(adminDeps(), ned.user.id);
    expect(
      (await post('/dashboard/set-password', { token: nedAgain.token, password: PASSWORD })).statusCode,
    ).toBe(303);
    const stray = await post('/dashboard/set-password', { token: ned.token, password: `${PASSWORD} stray` });
    expect(stray.statusCode).toBe(404);
    expect(stray.body).toContain('replaced by a newer one');
    expect((await signIn('ned@corner.example')).statusCode).toBe(303);

    // Issued twice, neither used: the first is refused already, and the second still works.
    const ola = await createUser(adminDeps(), {
      email: 'ola@corner.example',
      role: 'merchant',
      merchantId: shop.id,
    });
    const olaAgain = await resetPassword(adminDeps(), ola.user.id);
    expect((await post('/dashboard/set-password', { token: ola.token, password: PASSWORD })).statusCode).toBe(
      404,
    );
    expect(
      (await post('/dashboard/set-password', { token: olaAgain.token, password: PASSWORD })).statusCode,
    ).toBe(303);

    // Two links open side by side (as two resets at the same moment could leave them): setting a password
    // through one voids the other.
    const side = newSecretToken();
    await h.database.handle.db
      .insertInto('dashboard_password_links')
      .values({
        token_hash: side.hash,
        user_id: ola.user.id,
        expires_at: new Date(h.clock.now().getTime() + 60 * 60_000).toISOString(),
        used_at: null,
        created_at: h.clock.now().toISOString(),
      })
      .execute();
    const olaThird = await resetPassword(adminDeps(), ola.user.id);
    await h.database.handle.db
      .updateTable('dashboard_password_links')
      .set({ used_at: null })
      .where('token_hash', '=', side.hash)
      .execute();
    expect(
      (await post('/dashboard/set-password', { token: olaThird.token, password: PASSWORD })).statusCode,
    ).toBe(303);
    expect(
      (await post('/dashboard/set-password', { token: side.token, password: `${PASSWORD} side` })).statusCode,
    ).toBe(404);
  });

  it('signs in with the right password only; the session shows the merchant its own payments, not another’s', async () => {
    await merchantUser('bob@corner.example');
    const own = await create(shop.apiKey, '27.00');
    const wrong = await signIn('bob@corner.example', `${PASSWORD}x`);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Wrong e-mail, password or code');
    expect(sessionOf(wrong)).toBeUndefined();
    const unknown = await signIn('nobody@corner.example');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.body).toContain('Wrong e-mail, password or code');

    const ok = await signIn('BOB@corner.example');
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/dashboard/');
    const setCookie = String(ok.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Secure/i); // the harness's base URL is https
    const cookie = sessionOf(ok)!;

    // A merchant user lands on its home page (today's totals, what waits, the newest payments).
    const home = await get('/dashboard/', cookie);
    expect(home.headers.location).toBe('/dashboard/home');
    const list = await get('/dashboard/payments', cookie);
    expect(list.statusCode).toBe(200);
    expect(list.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(list.headers['content-security-policy']).toContain("form-action 'self'");
    expect(list.body).toContain(own.payment_id);
    expect(list.body).toContain('27.00');
    expect(list.body).not.toContain(otherPayment);
    const detail = await get(`/dashboard/payments/${own.payment_id}`, cookie);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('order-27.00');
    // Another merchant's payment, by URL: the same 404 as none at all.
    expect((await get(`/dashboard/payments/${otherPayment}`, cookie)).statusCode).toBe(404);
    expect((await get('/dashboard/payments/not-an-id', cookie)).statusCode).toBe(404);

    // Without a session: to the sign-in page.
    const anonymous = await get('/dashboard/');
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/dashboard/login');
    expect((await get('/dashboard/', 'forged-token')).headers.location).toBe('/dashboard/login');
  });

  it('exports the merchant user’s own payments as CSV', async () => {
    await merchantUser('ida@corner.example');
    const own = await create(shop.apiKey, '31.00');
    const cookie = sessionOf(await signIn('ida@corner.example'))!;
    const csv = await get('/dashboard/export.csv', cookie);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.split('\r\n');
    expect(lines[0]).toMatch(/^payment_id,created_at,status,amount,/);
    expect(lines.find((l) => l.startsWith(own.payment_id))).toMatch(
      /,pending,31\.00,USDC,31\.00,0\.00,0\.00,,,,order-31\.00,true,,,,,0\.00,,,not_due$/,
    );
    expect(csv.body).not.toContain(otherPayment);
    const bad = await get('/dashboard/export.csv?from=someday', cookie);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('from: must be a date');
    expect((await get('/dashboard/export.csv')).headers.location).toBe('/dashboard/login');
  });

  it('a second factor: enrolled with a code from the app, then asked at sign-in, each code good once', async () => {
    await merchantUser('kim@corner.example');
    const cookie = sessionOf(await signIn('kim@corner.example'))!;
    const page = await get('/dashboard/security', cookie);
    const secret = /data-secret>([A-Z2-7]{32})</.exec(page.body)?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(secret).toBeDefined();
    expect(page.body).toContain('src="data:image/svg+xml;base64,');
    const form = (code: string) => ({ csrf: csrf!, secret: secret!, code });
    const withCookie = { cookie: `${SESSION_COOKIE}=${cookie}` };
    const wrong = await post('/dashboard/security/totp', form('000000'), withCookie);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('not the code your app shows now');
    expect(
      (
        await post(
          '/dashboard/security/totp',
          { ...form(totpSecondFactor.codeAt(secret!, h.clock.now())), csrf: 'x' },
          withCookie,
        )
      ).statusCode,
    ).toBe(403);
    const on = await post(
      '/dashboard/security/totp',
      form(totpSecondFactor.codeAt(secret!, h.clock.now())),
      withCookie,
    );
    expect(on.statusCode).toBe(303);
    expect((await get('/dashboard/security', cookie)).body).toContain('On: signing in asks for a code');

    h.clock.advance(60_000);
    expect(
      (await post('/dashboard/login', { email: 'kim@corner.example', password: PASSWORD })).statusCode,
    ).toBe(401);
    h.clock.advance(60_000);
    const code = totpSecondFactor.codeAt(secret!, h.clock.now());
    const withCode = await post('/dashboard/login', {
      email: 'kim@corner.example',
      password: PASSWORD,
      code,
    });
    expect(withCode.statusCode).toBe(303);
    // The same code again, within its 30 seconds: refused (replayed).
    expect(
      (await post('/dashboard/login', { email: 'kim@corner.example', password: PASSWORD, code })).statusCode,
    ).toBe(401);
    // A code a step later works; the right code with a wrong password does not.
    h.clock.advance(Math.ceil(1000 / SIGN_IN_LIMITS.perAccount.ratePerSecond) * 2);
    const next = totpSecondFactor.codeAt(secret!, h.clock.now());
    expect(
      (await post('/dashboard/login', { email: 'kim@corner.example', password: `${PASSWORD}x`, code: next }))
        .statusCode,
    ).toBe(401);
    expect(
      (await post('/dashboard/login', { email: 'kim@corner.example', password: PASSWORD, code: next }))
        .statusCode,
    ).toBe(303);

    // A lost phone: an operator turns the factor off; the password alone signs in again.
    const kim = await h.stores.users.findByEmail('kim@corner.example');
    await removeSecondFactor(adminDeps(), kim!.id);
    h.clock.advance(Math.ceil(1000 / SIGN_IN_LIMITS.perAccount.ratePerSecond));
    expect(
      (await post('/dashboard/login', { email: 'kim@corner.example', password: PASSWORD })).statusCode,
    ).toBe(303);
  });

  it('with PAYLINK_DASHBOARD_REQUIRE_2FA, sends an operator to enroll before anything else', async () => {
    const strict = await startApiHarness(dialect, {
      env: { PAYLINK_DASHBOARD_REQUIRE_2FA: 'true' },
      overrides: { passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }) },
    });
    try {
      const deps = { users: strict.stores.users, merchants: strict.stores.merchants, clock: strict.clock };
      const { token } = await createUser(deps, { email: 'root@paylink.example', role: 'operator' });
      const form = (url: string, body: Record<string, string>, cookie?: string) =>
        strict.app.inject({
          method: 'POST',
          url,
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            origin: ORIGIN,
            ...(cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {}),
          },
          payload: new URLSearchParams(body).toString(),
        });
      await form('/dashboard/set-password', { token, password: PASSWORD });
      const signedIn = await form('/dashboard/login', { email: 'root@paylink.example', password: PASSWORD });
      const cookie = sessionOf(signedIn)!;
      const home = await strict.app.inject({
        method: 'GET',
        url: '/dashboard/',
        headers: { cookie: `${SESSION_COOKIE}=${cookie}` },
      });
      expect(home.statusCode).toBe(303);
      expect(home.headers.location).toBe('/dashboard/security');
      const security = await strict.app.inject({
        method: 'GET',
        url: '/dashboard/security',
        headers: { cookie: `${SESSION_COOKIE}=${cookie}` },
      });
      expect(security.body).toContain('Operators must set up a second factor');
      const secret = /data-secret>([A-Z2-7]{32})</.exec(security.body)![1]!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(security.body)![1]!;
      await form(
        '/dashboard/security/totp',
        { csrf, secret, code: totpSecondFactor.codeAt(secret, strict.clock.now()) },
        cookie,
      );
      const after = await strict.app.inject({
        method: 'GET',
        url: '/dashboard/merchants',
        headers: { cookie: `${SESSION_COOKIE}=${cookie}` },
      });
      expect(after.statusCode).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('shows a payment’s webhooks with their attempts, and sends one again; never another merchant’s', async () => {
    await merchantUser('lou@corner.example');
    const paid = await create(shop.apiKey, '14.00');
    const eventId = await payInFull(h, paid.payment_id);
    const otherPaid = await create(other.apiKey, '15.00');
    const otherEvent = await payInFull(h, otherPaid.payment_id);
    const cookie = sessionOf(await signIn('lou@corner.example'))!;
    const page = await get(`/dashboard/payments/${paid.payment_id}`, cookie);
    // One row per event (type, last attempt, delivery) with its one "Send again".
    const row = page.body.split('<tr>').find((r) => r.includes('<code>payment.paid</code>'));
    expect(row).toContain('<span class="status status-delivery-pending">pending</span>');
    expect(row).toContain(`action="/dashboard/webhooks/${eventId}/resend"`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const withCookie = { cookie: `${SESSION_COOKIE}=${cookie}` };

    // Delivered once (as the dispatcher records it), then sent again from the dashboard.
    await h.database.handle.db
      .updateTable('events')
      .set({ delivery_status: 'delivered', delivered_at: h.clock.now().toISOString() })
      .where('id', '=', eventId)
      .execute();
    expect(
      (await post(`/dashboard/webhooks/${eventId}/resend`, { csrf: 'forged' }, withCookie)).statusCode,
    ).toBe(403);
    const resent = await post(`/dashboard/webhooks/${eventId}/resend`, { csrf }, withCookie);
    expect(resent.statusCode).toBe(303);
    expect(resent.headers.location).toBe(`/dashboard/payments/${paid.payment_id}`);
    expect((await h.stores.webhooks.findEvent(eventId))?.deliveryStatus).toBe('pending');
    // Another merchant's event, by id: the same 404 as none, and nothing requeued.
    await h.database.handle.db
      .updateTable('events')
      .set({ delivery_status: 'delivered' })
      .where('id', '=', otherEvent)
      .execute();
    expect((await post(`/dashboard/webhooks/${otherEvent}/resend`, { csrf }, withCookie)).statusCode).toBe(
      404,
    );
    expect((await h.stores.webhooks.findEvent(otherEvent))?.deliveryStatus).toBe('delivered');
    expect((await post('/dashboard/webhooks/evt_nope/resend', { csrf }, withCookie)).statusCode).toBe(404);
  });

  it('shows an operator the delayed payouts with the token’s reason, and retries one now', async () => {
    const delayed = await create(shop.apiKey, '10.00');
    const inAMinute = new Date(h.clock.now().getTime() + 60_000).toISOString();
    await h.database.handle.db
      .updateTable('payments')
      .set((eb) => ({
        status: 'paid',
        amount_received_base_units: eb.ref('usdc_amount_base_units'),
        settlement_failures: 3,
        settlement_retry_at: inAMinute,
        payout_blocked_since: h.clock.now().toISOString(),
        payout_blocked_reason: 'Blacklistable: account is blacklisted',
      }))
      .where('id', '=', delayed.payment_id)
      .execute();
    const { token } = await createUser(adminDeps(), { email: 'ops2@paylink.example', role: 'operator' });
    await post('/dashboard/set-password', { token, password: PASSWORD });
    const cookie = sessionOf(await signIn('ops2@paylink.example'))!;
    const page = await get('/dashboard/payouts', cookie);
    expect(page.statusCode).toBe(200);
    const row = page.body.split('<tr>').find((r) => r.includes(delayed.payment_id));
    expect(row).toContain('merchant share: Blacklistable: account is blacklisted');
    expect(row).toContain(inAMinute);
    expect(row).toMatch(/<td class="amount">10\.00<\/td>/);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const retried = await post(
      `/dashboard/payouts/${delayed.payment_id}/retry`,
      { csrf },
      { cookie: `${SESSION_COOKIE}=${cookie}` },
    );
    expect(retried.statusCode).toBe(303);
    const stored = await h.database.handle.db
      .selectFrom('payments')
      .select('settlement_retry_at')
      .where('id', '=', delayed.payment_id)
      .executeTakeFirstOrThrow();
    expect(
      stored.settlement_retry_at === null || stored.settlement_retry_at <= h.clock.now().toISOString(),
    ).toBe(true);
    expect(
      (
        await post(
          `/dashboard/payouts/${delayed.payment_id}/retry`,
          { csrf: 'forged' },
          { cookie: `${SESSION_COOKIE}=${cookie}` },
        )
      ).statusCode,
    ).toBe(403);

    // Not a merchant user's page.
    await merchantUser('max@corner.example');
    const merchantCookie = sessionOf(await signIn('max@corner.example'))!;
    expect((await get('/dashboard/payouts', merchantCookie)).statusCode).toBe(404);
  });

  it('refuses a form from another origin, and a sign-out without its CSRF token', async () => {
    await merchantUser('carla@corner.example');
    h.clock.advance(60_000);
    const crossSite = await post(
      '/dashboard/login',
      { email: 'carla@corner.example', password: PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.statusCode).toBe(403);
    expect(sessionOf(crossSite)).toBeUndefined();
    const noOrigin = await h.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email: 'carla@corner.example', password: PASSWORD }).toString(),
    });
    expect(noOrigin.statusCode).toBe(403);

    const cookie = sessionOf(await signIn('carla@corner.example'))!;
    const page = await get('/dashboard/payments', cookie);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(csrf).toMatch(/^[\w-]{43}$/);
    const forged = await post(
      '/dashboard/logout',
      { csrf: 'x'.repeat(43) },
      { cookie: `${SESSION_COOKIE}=${cookie}` },
    );
    expect(forged.statusCode).toBe(403);
    expect((await get('/dashboard/payments', cookie)).statusCode).toBe(200); // still signed in
    const out = await post('/dashboard/logout', { csrf: csrf! }, { cookie: `${SESSION_COOKIE}=${cookie}` });
    expect(out.statusCode).toBe(303);
    expect((await get('/dashboard/', cookie)).headers.location).toBe('/dashboard/login');
  });

  it('locks an account after repeated wrong passwords, for a while, even with the right one', async () => {
    await merchantUser('dan@corner.example');
    const tries = [];
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount.burst; i++)
      tries.push(
        (await post('/dashboard/login', { email: 'dan@corner.example', password: `guess-${i}-wrong!` }))
          .statusCode,
      );
    expect(tries).toEqual(Array(SIGN_IN_LIMITS.perAccount.burst).fill(401));
    const locked = await post('/dashboard/login', { email: 'dan@corner.example', password: PASSWORD });
    expect(locked.statusCode).toBe(429);
    expect(sessionOf(locked)).toBeUndefined();
    // One token back after 1 / ratePerSecond seconds.
    h.clock.advance(Math.ceil(1000 / SIGN_IN_LIMITS.perAccount.ratePerSecond));
    expect(
      (await post('/dashboard/login', { email: 'dan@corner.example', password: PASSWORD })).statusCode,
    ).toBe(303);
  });

  /** A sign-in from a client address of its own, at this moment: the tests below count one address's attempts. */
  const signInFrom = (remoteAddress: string, email: string, password: string) =>
    h.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      payload: new URLSearchParams({ email, password }).toString(),
    });
  const lockoutMs = Math.ceil(1000 / SIGN_IN_LIMITS.perAccount.ratePerSecond);

  it('counts only failures: sign-ins in a row lock nobody out, and a success clears the failures before it', async () => {
    await merchantUser('pia@corner.example');
    const from = '198.51.100.1';
    const burst = SIGN_IN_LIMITS.perAccount.burst;
    const successes = [];
    for (let i = 0; i < burst * 2; i++)
      successes.push((await signInFrom(from, 'pia@corner.example', PASSWORD)).statusCode);
    expect(successes).toEqual(Array(burst * 2).fill(303));
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < burst - 1; i++)
        expect((await signInFrom(from, 'pia@corner.example', `guess-${i}-wrong!`)).statusCode).toBe(401);
      expect((await signInFrom(from, 'pia@corner.example', PASSWORD)).statusCode).toBe(303);
    }
  });

  it('says when to try again, and trying while locked out does not extend the lockout', async () => {
    await merchantUser('quin@corner.example');
    const from = '198.51.100.2';
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount.burst; i++)
      expect((await signInFrom(from, 'quin@corner.example', `guess-${i}-wrong!`)).statusCode).toBe(401);
    const locked = await signInFrom(from, 'quin@corner.example', PASSWORD);
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBe(String(lockoutMs / 1000));
    expect(locked.body).toContain(`try again in ${lockoutMs / 60_000} min.`);
    h.clock.advance(2 * 60_000);
    const later = await signInFrom(from, 'quin@corner.example', PASSWORD);
    expect(later.statusCode).toBe(429);
    expect(later.body).toContain(`try again in ${lockoutMs / 60_000 - 2} min.`);
    h.clock.advance(lockoutMs - 2 * 60_000);
    expect((await signInFrom(from, 'quin@corner.example', PASSWORD)).statusCode).toBe(303);

    // An address out of attempts (the person's own, or a shared one's) refuses a sign-in without using the
    // account's attempt that had just come back: the account's lockout is not extended by it.
    await merchantUser('rex@corner.example');
    const shared = '198.51.100.3';
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount.burst; i++)
      expect((await signInFrom(shared, 'rex@corner.example', `guess-${i}-wrong!`)).statusCode).toBe(401);
    h.clock.advance(lockoutMs);
    for (let i = 0; i < SIGN_IN_LIMITS.perClient.burst; i++)
      expect((await signInFrom(shared, `nobody-${i}@corner.example`, PASSWORD)).statusCode).toBe(401);
    const busy = await signInFrom(shared, 'rex@corner.example', PASSWORD);
    expect(busy.statusCode).toBe(429);
    expect(busy.body).toContain('try again in 1 min.');
    h.clock.advance(Math.ceil(1000 / SIGN_IN_LIMITS.perClient.ratePerSecond));
    expect((await signInFrom(shared, 'rex@corner.example', PASSWORD)).statusCode).toBe(303);
  });

  it('refuses a control character in any form field of every form route with the page’s own 400, on either database', async () => {
    // Every POST route of the dashboard, as the router has them: a form added later is checked too.
    const formRoutes = postRoutes(h.app).filter((route) => route.startsWith('/dashboard/'));
    expect(formRoutes).toEqual(
      expect.arrayContaining([
        '/dashboard/login',
        '/dashboard/set-password',
        '/dashboard/merchants/:id/disable',
      ]),
    );
    expect(formRoutes.length).toBeGreaterThan(15);
    await merchantUser('uma@corner.example');
    const merchantCookie = sessionOf(await signIn('uma@corner.example'))!;
    const { token } = await createUser(adminDeps(), { email: 'vic@paylink.example', role: 'operator' });
    await post('/dashboard/set-password', { token, password: PASSWORD });
    const operatorCookie = sessionOf(await signIn('vic@paylink.example'))!;
    const logsBefore = h.logs().length;
    const operatorPaths = /^\/dashboard\/(merchants|payouts|webhooks|health)/;
    const fields = ['email', 'password', 'code', 'token', 'name', 'wallet', 'amount', 'reason', 'address'];
    for (const route of formRoutes) {
      const url = route.replace(/:\w+/g, 'x');
      const cookie = operatorPaths.test(route) ? operatorCookie : merchantCookie;
      const csrf = /name="csrf" value="([^"]+)"/.exec((await get('/dashboard/security', cookie)).body)![1]!;
      for (const field of fields) {
        const form = { csrf, email: 'someone@corner.example', password: PASSWORD, [field]: 'a\u0000b' };
        const answer = await post(url, form, { cookie: `${SESSION_COOKIE}=${cookie}` });
        expect(answer.statusCode, `${route} ${field}`).toBe(400);
        expect(answer.headers['content-type'], route).toBe('text/html; charset=utf-8');
        expect(answer.body, route).toContain(`${field}: must not contain control characters`);
      }
    }
    // The sign-in and set-password pages answer with their own form, the message on it.
    const login = await post('/dashboard/login', { email: 'a\u0000b', password: PASSWORD });
    expect(login.body).toContain('action="/dashboard/login"');
    expect(login.body).toMatch(/class="error" role="alert">email: must not contain control characters</);
    const setPassword = await post('/dashboard/set-password', { token: 'a\u0000b', password: PASSWORD });
    expect(setPassword.body).toContain('action="/dashboard/set-password"');
    // A GET form's fields (the payments' filters and search) by the same rule, on the page.
    const search = await get('/dashboard/payments?q=a%00b', merchantCookie);
    expect(search.statusCode).toBe(400);
    expect(search.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(search.body).toContain('q: must not contain control characters');
    // Nothing reached a handler or the database: no error, no stack in the log.
    const logged = h.logs().slice(logsBefore);
    expect(logged).not.toMatch(/"level":50/);
    expect(logged).not.toContain('"stack"');
    // Still signed in: a refused form ends nothing.
    expect((await get('/dashboard/payments', merchantCookie)).statusCode).toBe(200);
  });

  it('ends a session when idle, and at once when the user or its merchant is disabled', async () => {
    const user = await merchantUser('eve@corner.example');
    const idle = sessionOf(await signIn('eve@corner.example'))!;
    h.clock.advance(SESSION_IDLE_MS - 1_000);
    expect((await get('/dashboard/payments', idle)).statusCode).toBe(200); // used: kept alive
    h.clock.advance(SESSION_IDLE_MS - 1_000);
    expect((await get('/dashboard/payments', idle)).statusCode).toBe(200);
    h.clock.advance(SESSION_IDLE_MS);
    expect((await get('/dashboard/payments', idle)).headers.location).toBe('/dashboard/login');

    const live = sessionOf(await signIn('eve@corner.example'))!;
    await disableUser(adminDeps(), user.id);
    expect((await get('/dashboard/payments', live)).headers.location).toBe('/dashboard/login');
    expect((await signIn('eve@corner.example')).statusCode).toBe(401);

    const merchant = await h.merchant({ name: 'Closing Shop' });
    const { token } = await createUser(adminDeps(), {
      email: 'fay@closing.example',
      role: 'merchant',
      merchantId: merchant.id,
    });
    await post('/dashboard/set-password', { token, password: PASSWORD });
    const session = sessionOf(await signIn('fay@closing.example'))!;
    expect((await get('/dashboard/payments', session)).statusCode).toBe(200);
    await disableMerchant(
      { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false },
      merchant.id,
    );
    expect((await get('/dashboard/payments', session)).headers.location).toBe('/dashboard/login');
  });

  it('a merchant disabled ends its users’ sessions: enabling it again brings back none left unused', async () => {
    const merchant = await h.merchant({ name: 'Pausing Shop' });
    const { token } = await createUser(adminDeps(), {
      email: 'gia@pausing.example',
      role: 'merchant',
      merchantId: merchant.id,
    });
    await post('/dashboard/set-password', { token, password: PASSWORD });
    const session = sessionOf(await signIn('gia@pausing.example'))!;
    expect((await get('/dashboard/payments', session)).statusCode).toBe(200);
    // Disabled through the admin API (the same use case as the CLI's and the operator console's), then enabled
    // before the session's next request.
    expect((await h.admin('POST', `/admin/api/merchants/${merchant.id}/disable/`)).statusCode).toBe(200);
    await enableMerchant(
      { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false },
      merchant.id,
    );
    const back = await get('/dashboard/payments', session);
    expect(back.statusCode).toBe(303);
    expect(back.headers.location).toBe('/dashboard/login');
    // Other merchants' users keep theirs.
    const bystander = await merchantUser('hub@corner.example');
    const kept = sessionOf(await signIn('hub@corner.example'))!;
    await disableMerchant(
      { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false },
      merchant.id,
    );
    expect((await get('/dashboard/payments', kept)).statusCode).toBe(200);
    expect(bystander.merchantId).toBe(shop.id);
  });

  it('shows an operator the merchants; refuses bad users', async () => {
    const { token } = await createUser(adminDeps(), { email: 'ops@paylink.example', role: 'operator' });
    await post('/dashboard/set-password', { token, password: PASSWORD });
    const cookie = sessionOf(await signIn('ops@paylink.example'))!;
    expect((await get('/dashboard/', cookie)).headers.location).toBe('/dashboard/merchants');
    const page = await get('/dashboard/merchants', cookie);
    expect(page.body).toContain('Corner Shop');
    expect(page.body).toContain('Other Shop');
    // An operator reads any merchant's payment, but acts on none: no "Send again", no refund form.
    const payment = await get(`/dashboard/payments/${otherPayment}`, cookie);
    expect(payment.statusCode).toBe(200);
    expect(payment.body).toContain('order-12.00');
    expect(payment.body).not.toContain('Start refund');

    await expect(
      createUser(adminDeps(), { email: 'ops@paylink.example', role: 'operator' }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(createUser(adminDeps(), { email: 'not-an-email', role: 'operator' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(createUser(adminDeps(), { email: 'x@y.example', role: 'root' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(createUser(adminDeps(), { email: 'x@y.example', role: 'merchant' })).rejects.toMatchObject({
      field: 'merchant',
    });
    await expect(
      createUser(adminDeps(), { email: 'x@y.example', role: 'merchant', merchantId: 'mch_nobody' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('is administered from the CLI: create prints the one-time link, list, disable', async () => {
    const env = {
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_BASE_URL: 'https://api.example.test',
    };
    const created = await runCli(
      [
        'user',
        'create',
        '--email',
        'gus@corner.example',
        '--role',
        'merchant',
        '--merchant',
        shop.id,
        '--json',
      ],
      env,
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const body = JSON.parse(created.stdout);
    expect(body.user).toMatchObject({
      email: 'gus@corner.example',
      role: 'merchant',
      merchant_id: shop.id,
      password_set: false,
    });
    expect(body.set_password_url).toMatch(
      /^https:\/\/api\.example\.test\/dashboard\/set-password#[\w-]{43}$/,
    );
    const token = body.set_password_url.split('#')[1];
    expect((await post('/dashboard/set-password', { token, password: PASSWORD })).statusCode).toBe(303);

    const listed = await runCli(['user', 'list'], env);
    expect(listed.stdout).toMatch(
      new RegExp(`${body.user.id}\\s+active\\s+merchant\\s+gus@corner\\.example\\s+merchant ${shop.id}\\n`),
    );
    const disabled = await runCli(['user', 'disable', body.user.id], env);
    expect(disabled).toMatchObject({
      code: 0,
      stdout: `User ${body.user.id} disabled; their sessions have ended.\n`,
    });
    expect(await runCli(['user', 'disable', 'usr_nobody'], env)).toMatchObject({
      code: 2,
      stderr: 'error: User not found\n',
    });
    expect((await runCli(['user', 'create', '--email', 'x@y.example', '--role', 'boss'], env)).code).toBe(2);
  });

  it('is administered through the admin API too, with the error shape for bad input', async () => {
    const call = (method: 'GET' | 'POST', url: string, payload?: unknown, token = ADMIN_TOKEN) =>
      h.app.inject({
        method,
        url,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
        ...(payload ? { payload: JSON.stringify(payload) } : {}),
      });
    const created = await call('POST', '/admin/api/users/', {
      email: 'hal@corner.example',
      role: 'merchant',
      merchant_id: shop.id,
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body.user).toMatchObject({ email: 'hal@corner.example', status: 'active', password_set: false });
    expect(body.set_password_url).toMatch(
      /^https:\/\/api\.example\.test\/dashboard\/set-password#[\w-]{43}$/,
    );
    expect(JSON.stringify((await call('GET', '/admin/api/users/')).json())).not.toContain('scrypt');
    const reset = await call('POST', `/admin/api/users/${body.user.id}/reset-password/`);
    expect(reset.json().set_password_url).not.toBe(body.set_password_url);
    expect((await call('POST', `/admin/api/users/${body.user.id}/disable/`)).json().status).toBe('disabled');
    expect((await call('POST', `/admin/api/users/${body.user.id}/enable/`)).json().status).toBe('active');
    for (const [payload, status, code] of [
      [{ email: 'hal@corner.example', role: 'operator' }, 409, 'CONFLICT'],
      [{ email: 'nope', role: 'operator' }, 400, 'VALIDATION_ERROR'],
      [{ email: 'ivy@corner.example' }, 400, 'VALIDATION_ERROR'],
      [{ email: 'ivy@corner.example', role: 'merchant', merchant_id: 'mch_nobody' }, 404, 'NOT_FOUND'],
    ] as const) {
      const answer = await call('POST', '/admin/api/users/', payload);
      expect(answer.statusCode, JSON.stringify(payload)).toBe(status);
      expect(answer.json().code).toBe(code);
    }
    expect((await call('POST', '/admin/api/users/usr_nobody/disable/')).statusCode).toBe(404);
    expect((await call('GET', '/admin/api/users/', undefined, 'wrong')).statusCode).toBe(401);
  });
});
