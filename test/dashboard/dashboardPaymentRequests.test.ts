import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { createSmtpTransport } from '../../src/adapters/outbound/smtpTransport.ts';
import { createUser } from '../../src/app/dashboard/users.ts';
import { dispatchEmails } from '../../src/app/email/dispatchEmails.ts';
import type { EmailTransport } from '../../src/app/email/ports.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { DASHBOARD_PASSWORD, dashboardClient } from '../helpers/dashboardClient.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

/**
 * Payment requests from the dashboard, over the real app on each database, sent through a real SMTP server: the
 * New payment form's expiry and "send by e-mail", its refusals re-rendered in the page, and the payment page's
 * button that sends the request again (CSRF-protected, only while the payment can be paid, a bounded number of
 * times).
 */
describe.each(dialects)('dashboard payment requests on %s', (dialect) => {
  let h: ApiHarness;
  let cookie: string;
  let smtp: TestSmtpServer;
  let transport: EmailTransport;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      overrides: { passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }) },
    });
    const shop = await h.merchant({ name: 'Corner Shop' });
    const { token } = await createUser(
      { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
      { email: 'ana@corner.example', role: 'merchant', merchantId: shop.id },
    );
    await post('/dashboard/set-password', { token, password: DASHBOARD_PASSWORD });
    const signIn = await post('/dashboard/login', {
      email: 'ana@corner.example',
      password: DASHBOARD_PASSWORD,
    });
    cookie = signIn.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
    smtp = await startTestSmtpServer();
    transport = createSmtpTransport(smtp.settings, 'Corner Shop <no-reply@shop.example>');
  });
  afterAll(async () => {
    await transport?.close();
    await smtp?.close();
    await h?.close();
  });

  // Forms posted from the dashboard's origin, pages read with the merchant's session (helpers/dashboardClient.ts).
  const post = (url: string, form: Record<string, string>, session?: string) =>
    dashboardClient(h).post(url, form, session);
  const get = (url: string) => dashboardClient(h).get(url, cookie);

  const freshForm = async () => {
    const page = await get('/dashboard/payments/new');
    expect(page.statusCode).toBe(200);
    return {
      csrf: /name="csrf" value="([^"]+)"/.exec(page.body)![1]!,
      form_key: /name="form_key" value="([^"]+)"/.exec(page.body)![1]!,
    };
  };
  const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)![1]!;
  const requestsOf = async (paymentId: string) =>
    (await h.stores.emails.list({ paymentId, limit: 50 })).filter((m) => m.kind === 'payment_request');
  const send = () =>
    dispatchEmails({
      emails: h.stores.emails,
      transport,
      clock: h.clock,
      logger: capturingLogger().logger,
      config: { retryScheduleMs: [5_000], leaseMs: 600_000 },
      random: () => 0.5,
    });

  it('creates a payment with the expiry typed and e-mails its link to the customer', async () => {
    const form = await get('/dashboard/payments/new');
    expect(form.body).toContain('name="send_email"');
    expect(form.body).toContain('name="expires_in"');
    const before = smtp.received.length;
    const created = await post(
      '/dashboard/payments/new',
      {
        ...(await freshForm()),
        amount: '80.00',
        currency: 'USDC',
        order_id: 'inv-31',
        customer_email: 'bo@customer.example',
        send_email: 'on',
        expires_in: '3',
        expires_unit: 'days',
        mode: 'live',
      },
      cookie,
    );
    expect(created.statusCode).toBe(303);
    const location = created.headers.location!;
    const id = /^\/dashboard\/payments\/([0-9a-f-]{36})\/link\?emailed=1$/.exec(location)![1]!;
    const stored = (await h.stores.payments.findById(id))!;
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(3 * 86_400_000);
    expect((await get(location)).body).toContain('The link was sent by e-mail to bo@customer.example.');

    expect(await send()).toMatchObject({ sent: 1 });
    expect(smtp.received.length).toBe(before + 1);
    const mail = smtp.received.at(-1)!;
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toBe('bo@customer.example');
    expect(mail.text ?? '').toContain(`https://pay.example.test/pay/${id}`);
    expect(mail.text ?? '').toContain('inv-31');
  });

  it('refuses "send by e-mail" without the customer’s e-mail, and an expiry out of bounds, in the page', async () => {
    const count = async () =>
      (await h.stores.payments.listForMerchant({ merchantId: null, mode: 'live', limit: 1_000 })).length;
    const before = await count();
    const noAddress = await post(
      '/dashboard/payments/new',
      { ...(await freshForm()), amount: '5.00', currency: 'USDC', send_email: 'on', order_id: 'kept-1' },
      cookie,
    );
    expect(noAddress.statusCode).toBe(400);
    expect(noAddress.body).toContain('Give the customer’s e-mail to send them the link.');
    expect(noAddress.body).toMatch(/id="customer_email"[^>]*aria-invalid="true"/);
    expect(noAddress.body).toContain('value="kept-1"');
    expect(noAddress.body).toMatch(/name="send_email" value="on" checked/);
    for (const [value, unit] of [
      ['4', 'minutes'],
      ['31', 'days'],
      ['1.5', 'hours'],
      ['2', 'weeks'],
    ] as const) {
      const refused = await post(
        '/dashboard/payments/new',
        { ...(await freshForm()), amount: '5.00', currency: 'USDC', expires_in: value, expires_unit: unit },
        cookie,
      );
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('The expiry must be a whole number, from 5 minutes to 30 days.');
      expect(refused.body).toMatch(/id="expires_in"[^>]*aria-invalid="true"/);
      expect(refused.body).not.toMatch(/at \S+\.ts:\d+/);
    }
    expect(await count()).toBe(before);
  });

  it('sends the request again from the payment page, only with the form’s token, while it can be paid', async () => {
    const created = await post(
      '/dashboard/payments/new',
      {
        ...(await freshForm()),
        amount: '12.00',
        currency: 'USDC',
        customer_email: 'cy@customer.example',
        mode: 'live',
      },
      cookie,
    );
    const id = /payments\/([0-9a-f-]{36})\/link$/.exec(created.headers.location!)![1]!;
    expect(await requestsOf(id)).toHaveLength(0);
    const page = await get(`/dashboard/payments/${id}`);
    expect(page.body).toContain(`action="/dashboard/payments/${id}/request"`);
    expect(page.body).toContain('E-mail the payment link to cy@customer.example');

    const forged = await post(`/dashboard/payments/${id}/request`, { csrf: 'forged' }, cookie);
    expect(forged.statusCode).toBe(403);
    expect(await requestsOf(id)).toHaveLength(0);

    const before = smtp.received.length;
    const sent = await post(`/dashboard/payments/${id}/request`, { csrf: csrfOf(page.body) }, cookie);
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe(`/dashboard/payments/${id}?request=sent#request`);
    expect((await get(`/dashboard/payments/${id}?request=sent`)).body).toContain(
      'The payment link was sent to cy@customer.example.',
    );
    await send();
    expect(smtp.received.length).toBe(before + 1);
    expect(smtp.received.at(-1)!.text ?? '').toContain(`https://pay.example.test/pay/${id}`);

    // Five in all, then no more: the button is not a mailing list.
    for (let i = 0; i < 4; i++)
      await post(`/dashboard/payments/${id}/request`, { csrf: csrfOf(page.body) }, cookie);
    const sixth = await post(`/dashboard/payments/${id}/request`, { csrf: csrfOf(page.body) }, cookie);
    expect(sixth.headers.location).toBe(`/dashboard/payments/${id}?request=limit#request`);
    expect(await requestsOf(id)).toHaveLength(5);

    // Paid: nothing to ask for any more.
    await payInFull(h, id);
    const paid = await get(`/dashboard/payments/${id}`);
    expect(paid.body).not.toContain(`action="/dashboard/payments/${id}/request"`);
    const late = await post(`/dashboard/payments/${id}/request`, { csrf: csrfOf(paid.body) }, cookie);
    expect(late.headers.location).toBe(`/dashboard/payments/${id}?request=not_open#request`);
    expect((await get(late.headers.location!.replace('#request', ''))).body).toContain(
      'Only a payment still waiting to be paid can be requested again.',
    );
  });

  it('offers no button for a payment without a customer e-mail, and refuses to send one', async () => {
    const created = await post(
      '/dashboard/payments/new',
      { ...(await freshForm()), amount: '2.00', currency: 'USDC', mode: 'live' },
      cookie,
    );
    const id = /payments\/([0-9a-f-]{36})\/link$/.exec(created.headers.location!)![1]!;
    const page = await get(`/dashboard/payments/${id}`);
    expect(page.body).not.toContain(`/dashboard/payments/${id}/request`);
    // The link page says "sent" only when the log holds the request, whatever its address says.
    expect((await get(`/dashboard/payments/${id}/link?emailed=1`)).body).not.toContain('was sent by e-mail');
    const refused = await post(`/dashboard/payments/${id}/request`, { csrf: csrfOf(page.body) }, cookie);
    expect(refused.headers.location).toBe(`/dashboard/payments/${id}?request=no_email#request`);
    expect(await requestsOf(id)).toHaveLength(0);
  });
});
