import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerEmails } from '../../src/adapters/email/customerEmails.ts';
import { createSmtpTransport } from '../../src/adapters/outbound/smtpTransport.ts';
import { expirePayments } from '../../src/app/chain/refreshPayments.ts';
import { dispatchEmails } from '../../src/app/email/dispatchEmails.ts';
import type { EmailTransport } from '../../src/app/email/ports.ts';
import { type RenewalDeps, renewDueSubscriptions } from '../../src/app/subscriptions/renewal.ts';
import { loadConfig } from '../../src/config/index.ts';
import { type ApiHarness, payLinkDeps, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

const DAY = 86_400_000;

/**
 * Push renewal with a test clock and a real SMTP server, on SQLite and PostgreSQL: each period's payment made a
 * lead before it is due and its link e-mailed (in the customer's language), paid on time → active and
 * `renewed`, unpaid at due → `past_due`, reminded a day before the grace ends, canceled a millisecond after it
 * (the grace's end itself still on time), each change announced once on the period's payment.
 */
describe.each(dialects)('push renewal on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let smtp: TestSmtpServer;
  let transport: EmailTransport;
  let renewal: RenewalDeps;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    ({ apiKey } = await h.merchant({ name: 'Corner Shop' }));
    smtp = await startTestSmtpServer();
    transport = createSmtpTransport(smtp.settings, 'Corner Shop <no-reply@shop.example>');
    const config = loadConfig({
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_CHECKOUT_URL: 'https://pay.example.test',
    });
    renewal = {
      ...payLinkDeps(h),
      subscriptions: h.stores.subscriptions,
      merchants: h.stores.merchants,
      paymentRequests: customerEmails(config, () => undefined)?.paymentRequests,
      renewalLeadMs: 3 * DAY,
      renewalRecheckMs: 60_000,
    };
  });
  afterAll(async () => {
    await transport?.close();
    await smtp?.close();
    await h?.close();
  });

  const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const answer = await h.app.inject({
      method,
      url,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return answer.json() as Body;
  };
  const send = () =>
    dispatchEmails({
      emails: h.stores.emails,
      transport,
      clock: h.clock,
      logger: capturingLogger().logger,
      config: { retryScheduleMs: [5_000], leaseMs: 600_000 },
      random: () => 0.5,
    });
  /** Marks a payment paid as the watcher stores it (status and the block time that paid it). */
  const markPaid = (paymentId: string, at: Date) =>
    h.database.handle.db
      .updateTable('payments')
      .set({ status: 'paid', paid_at: at.toISOString(), amount_received_base_units: '10000000' })
      .where('id', '=', paymentId)
      .execute();
  const eventsOf = async (subscriptionId: string) => {
    const rows = await h.database.handle.db
      .selectFrom('events')
      .select(['type', 'payload'])
      .orderBy('created_at')
      .execute();
    return rows
      .filter((row) => row.type.startsWith('subscription.'))
      .map((row) => JSON.parse(row.payload) as Body)
      .filter((body) => body.subscription_id === subscriptionId)
      .map((body) => `${body.event} ${body.period} ${body.status}`);
  };
  const at = (ms: number) => {
    h.clock.set(new Date(ms));
    return renewDueSubscriptions(renewal, 50);
  };

  it('bills, e-mails, renews, falls past due, reminds and cancels at the boundaries', async () => {
    const t0 = new Date('2027-01-31T10:00:00.000Z').getTime();
    h.clock.set(new Date(t0));
    const plan = await call('POST', '/payments/api/plans/', {
      name: 'Coffee club',
      amount: '10',
      currency: 'USDC',
      interval: 'month',
      grace_days: 3,
    });
    const sub = await call('POST', '/payments/api/subscriptions/', {
      plan_id: plan.plan_id,
      customer_email: 'ada@example.com',
      customer_language: 'fr',
    });
    const sid = sub.subscription_id;
    const first = sub.payments[0].payment_id;

    // The first period's link, in French, through a real SMTP server.
    await send();
    const mail = smtp.received.at(-1)!;
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toContain('ada@example.com');
    expect(mail.text).toContain(`https://pay.example.test/pay/${first}`);
    expect(mail.headers.get('content-language')).toBe('fr');

    await markPaid(first, new Date(t0 + 3_600_000));
    await at(t0 + 3_600_000);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).status).toBe('active');

    // Feb 28 10:00 starts period 2 (Jan 31 + 1 month); its payment is made 3 days before, not a millisecond sooner.
    const second = new Date('2027-02-28T10:00:00.000Z').getTime();
    await at(second - 3 * DAY - 1);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).payments).toHaveLength(1);
    await at(second - 3 * DAY);
    const billed = (await call('GET', `/payments/api/subscriptions/${sid}/`)).payments;
    expect(billed.map((p: Body) => p.period)).toEqual([1, 2]);
    const secondPayment = billed[1].payment_id;
    const status = await call('GET', `/payments/api/status/${secondPayment}/`);
    expect(status.expires_at).toBe(new Date(second + 3 * DAY).toISOString());
    expect(status.metadata).toEqual({ subscription_id: sid, subscription_period: '2' });
    await send();
    expect(smtp.received.at(-1)!.text).toContain(`https://pay.example.test/pay/${secondPayment}`);

    // Still active a millisecond before period 2, past due at its start.
    await at(second - 1);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).status).toBe('active');
    await at(second);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).status).toBe('past_due');

    // Reminded once, a day before the grace ends.
    const before = smtp.received.length;
    await at(second + 2 * DAY - 1);
    await send();
    expect(smtp.received.length).toBe(before);
    await at(second + 2 * DAY);
    await at(second + 2 * DAY + 60_000);
    await send();
    expect(smtp.received.length).toBe(before + 1);
    expect(smtp.received.at(-1)!.text).toContain(`https://pay.example.test/pay/${secondPayment}`);

    // The grace's end itself is on time; a millisecond later, canceled for non-payment.
    await at(second + 3 * DAY);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).status).toBe('past_due');
    await at(second + 3 * DAY + 1);
    const canceled = await call('GET', `/payments/api/subscriptions/${sid}/`);
    expect(canceled).toMatchObject({
      status: 'canceled',
      canceled_reason: 'unpaid',
      ended_at: new Date(second + 3 * DAY).toISOString(),
    });
    expect(await eventsOf(sid)).toEqual([
      'subscription.created 1 past_due',
      'subscription.activated 1 active',
      'subscription.past_due 2 past_due',
      'subscription.canceled 2 canceled',
    ]);
    // Canceled, it is still looked at while period 2's payment is open: once the expirer closes that payment,
    // its failure is announced, once.
    expect(await expirePayments({ ledger: h.stores.ledger, clock: h.clock })).toEqual([
      expect.objectContaining({ paymentId: secondPayment, to: 'expired' }),
    ]);
    await at(second + 3 * DAY + 1 + 60_000);
    // Nothing more is billed or announced once canceled.
    await at(second + 40 * DAY);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).payments).toHaveLength(2);
    expect(await eventsOf(sid)).toEqual([
      'subscription.created 1 past_due',
      'subscription.activated 1 active',
      'subscription.past_due 2 past_due',
      'subscription.canceled 2 canceled',
      'subscription.payment_failed 2 canceled',
    ]);
  });

  it('a period paid before it starts renews it, announced once as renewed', async () => {
    const t0 = new Date('2028-01-31T10:00:00.000Z').getTime();
    h.clock.set(new Date(t0));
    const plan = await call('POST', '/payments/api/plans/', {
      name: 'Two months',
      amount: '10',
      currency: 'USDC',
      interval: 'month',
      periods: 2,
    });
    const sub = await call('POST', '/payments/api/subscriptions/', {
      plan_id: plan.plan_id,
      customer_email: 'bo@example.com',
    });
    const sid = sub.subscription_id;
    await markPaid(sub.payments[0].payment_id, new Date(t0));
    // Leap year: period 2 starts Feb 29.
    const second = new Date('2028-02-29T10:00:00.000Z').getTime();
    await at(second - 3 * DAY);
    const secondPayment = (await call('GET', `/payments/api/subscriptions/${sid}/`)).payments[1].payment_id;
    await markPaid(secondPayment, new Date(second - DAY));
    await at(second - DAY + 60_000);
    await at(second);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).status).toBe('active');
    // The plan's two periods end Mar 31; the end is announced, and no third period is billed.
    const end = new Date('2028-03-31T10:00:00.000Z').getTime();
    await at(end - 3 * DAY);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).payments).toHaveLength(2);
    await at(end);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).status).toBe('ended');
    expect(await eventsOf(sid)).toEqual([
      'subscription.created 1 past_due',
      'subscription.activated 1 active',
      'subscription.renewed 2 active',
      'subscription.ended 2 ended',
    ]);
  });
});
