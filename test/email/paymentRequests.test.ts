import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRequestEmail } from '../../src/adapters/email/paymentRequestEmail.ts';
import { createSmtpTransport } from '../../src/adapters/outbound/smtpTransport.ts';
import { dispatchEmails } from '../../src/app/email/dispatchEmails.ts';
import { paymentRequestMessage } from '../../src/app/email/paymentRequests.ts';
import type { EmailTransport } from '../../src/app/email/ports.ts';
import { findRemoteContent } from '../../src/domain/email.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

/**
 * Payment requests by e-mail (`send_email` on create): queued with the payment, sent through a real SMTP server
 * and parsed as it arrives; once per payment, even when the create is replayed; never without the customer's
 * address; in the customer's language.
 */
describe.each(dialects)('payment requests by e-mail, %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let smtp: TestSmtpServer;
  let transport: EmailTransport;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    ({ apiKey } = await h.merchant({ name: 'Corner Shop' }));
    smtp = await startTestSmtpServer();
    transport = createSmtpTransport(smtp.settings, 'Corner Shop <no-reply@shop.example>');
  });
  afterAll(async () => {
    await transport?.close();
    await smtp?.close();
    await h?.close();
  });

  const create = (body: Record<string, unknown>, key?: string) =>
    h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      payload: JSON.stringify(body),
    });

  const status = async (id: string) =>
    (
      await h.app.inject({
        method: 'GET',
        url: `/payments/api/status/${id}/`,
        headers: { authorization: `Bearer ${apiKey}` },
      })
    ).json();

  /** Sends what is queued, as the worker's dispatcher does. */
  const send = () =>
    dispatchEmails({
      emails: h.stores.emails,
      transport,
      clock: h.clock,
      logger: capturingLogger().logger,
      config: { retryScheduleMs: [5_000], leaseMs: 600_000 },
      random: () => 0.5,
    });

  const countPayments = async () =>
    Number(
      (
        await h.database.handle.db
          .selectFrom('payments')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('sends the request once, with merchant, amount, USDC, expiry, order and the button, even when replayed', async () => {
    const before = smtp.received.length;
    const body = {
      amount: '25.00',
      currency: 'EUR',
      order_id: 'inv-2207',
      customer_email: 'ann@example.com',
      send_email: true,
      expires_in: 86_400,
    };
    const first = await create(body, 'request-once');
    expect(first.statusCode).toBe(201);
    const created = first.json();
    // A client retrying the same create (a timeout, say) gets the same payment and no second e-mail.
    const replay = await create(body, 'request-once');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().payment_id).toBe(created.payment_id);

    const queued = await h.stores.emails.list({ paymentId: created.payment_id, limit: 10 });
    expect(queued.map((m) => [m.kind, m.recipient, m.language])).toEqual([
      ['payment_request', 'ann@example.com', 'en'],
    ]);
    expect(await send()).toMatchObject({ attempted: 1, sent: 1 });
    expect(await send()).toMatchObject({ attempted: 0 });
    expect(smtp.received.length).toBe(before + 1);

    const mail = smtp.received.at(-1)!;
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toBe('ann@example.com');
    expect(mail.subject).toContain('Corner Shop');
    const text = mail.text ?? '';
    expect(text).toContain('25.00 EUR');
    expect(text).toContain(`${created.details.usdc_amount} USDC`);
    expect(text).toContain('inv-2207');
    expect(text).toContain(created.payment_url);
    // A day's expiry, as asked, shown with its zone.
    const expiresAt = new Date(created.details.expires_at);
    expect(expiresAt.getTime() - h.clock.now().getTime()).toBe(86_400_000);
    expect(text).toContain(String(expiresAt.getUTCFullYear()));
    expect(text).toMatch(/UTC/);
    expect(String(mail.html)).toContain(`href="${created.payment_url}"`);
    expect(findRemoteContent(String(mail.html))).toBeUndefined();
  });

  it('writes no request whose payment was not written: the two share one transaction', async () => {
    const created = (
      await create({ amount: '7.00', currency: 'USD', customer_email: 'dan@example.com' })
    ).json();
    const payment = (await h.stores.payments.findById(created.payment_id))!;
    const message = paymentRequestMessage(
      { template: paymentRequestEmail, messageDomain: 'shop.example', paymentUrl: () => created.payment_url },
      { name: 'Corner Shop' },
      payment,
      h.clock.now(),
    );
    // The same payment again: its row is refused (the id is taken), and the request must go with it.
    await expect(h.stores.payments.insert(payment, { email: message })).rejects.toThrow();
    expect(await h.stores.emails.find(message.id)).toBeUndefined();
  });

  it('refuses send_email without customer_email, and creates nothing', async () => {
    const before = await countPayments();
    const response = await create({ amount: '5.00', currency: 'USD', send_email: true });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'customer_email',
      details: [{ field: 'customer_email', message: 'is required when send_email is true' }],
    });
    const blank = await create({ amount: '5.00', currency: 'USD', send_email: true, customer_email: ' ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().field).toBe('customer_email');
    const notBoolean = await create({ amount: '5.00', currency: 'USD', send_email: 'yes' });
    expect(notBoolean.statusCode).toBe(400);
    expect(notBoolean.json().field).toBe('send_email');
    expect(await countPayments()).toBe(before);
  });

  it('sends nothing without send_email, even with a customer e-mail', async () => {
    const response = await create({ amount: '6.00', currency: 'USD', customer_email: 'bob@example.com' });
    expect(response.statusCode).toBe(201);
    expect(await h.stores.emails.list({ paymentId: response.json().payment_id, limit: 10 })).toEqual([]);
  });

  it('writes in the customer_language given, returns it in status, and refuses a language we do not write', async () => {
    const before = smtp.received.length;
    const response = await create({
      amount: '49.90',
      currency: 'EUR',
      customer_email: 'claire@example.fr',
      customer_language: 'fr-CA',
      send_email: true,
    });
    expect(response.statusCode).toBe(201);
    const id = response.json().payment_id;
    expect((await status(id)).customer_language).toBe('fr');
    await send();
    expect(smtp.received.length).toBe(before + 1);
    const mail = smtp.received.at(-1)!;
    expect(mail.headers.get('content-language')).toBe('fr');
    // The French template and a French amount (decimal comma).
    expect(mail.text ?? '').toContain('49,90');
    expect(mail.subject).toMatch(/Corner Shop/);
    expect(mail.subject).not.toBe(smtp.received.at(-2)?.subject);

    const listed = await h.app.inject({
      method: 'GET',
      url: '/payments/api/payments/?limit=100',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(
      listed.json().payments.find((p: { payment_id: string }) => p.payment_id === id)?.customer_language,
    ).toBe('fr');
    const plain = await create({ amount: '1.00', currency: 'USD' });
    expect((await status(plain.json().payment_id)).customer_language).toBeUndefined();
    for (const language of ['pt', 'english', 'fr_FR', '']) {
      const refused = await create({ amount: '1.00', currency: 'USD', customer_language: language });
      if (language === '') expect(refused.statusCode).toBe(201);
      else {
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'customer_language' });
      }
    }
  });

  it('bounds expires_in: from five minutes to thirty days', async () => {
    for (const expiresIn of [299, 30 * 86_400 + 1, 600.5])
      expect((await create({ amount: '1.00', currency: 'USD', expires_in: expiresIn })).json()).toMatchObject(
        {
          code: 'VALIDATION_ERROR',
          field: 'expires_in',
        },
      );
    const shortest = await create({ amount: '1.00', currency: 'USD', expires_in: 300 });
    expect(new Date(shortest.json().details.expires_at).getTime() - h.clock.now().getTime()).toBe(300_000);
  });
});
