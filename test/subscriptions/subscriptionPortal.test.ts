import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerEmails } from '../../src/adapters/email/customerEmails.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { type RenewalDeps, renewDueSubscriptions } from '../../src/app/subscriptions/renewal.ts';
import { loadConfig } from '../../src/config/index.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ApiHarness, payLinkDeps, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

const DAY = 86_400_000;
const SANDBOX = { name: 'Sandbox (local anvil)', chainId: 31337, explorerUrl: '' };
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };
const CHECKOUT_URL = 'https://pay.example.test';

/**
 * The customer's side of subscriptions (decision 0062) over real sockets, on SQLite and PostgreSQL: a plan's
 * subscribe page (its terms in words, the e-mail form, its refusals and rate), the portal its e-mails link to
 * (reached by token only), the customer's cancellation at period end; and the merchant's plan change, billed from
 * the next period by the renewal job and made the plan when that period starts.
 */
describe.each(dialects)('subscribe page, portal and plan change on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let otherKey: string;
  let checkout: FastifyInstance;
  let base: string;
  let renewal: RenewalDeps;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    apiKey = (await h.merchant({ name: 'Corner Café' })).apiKey;
    otherKey = (await h.merchant({ name: 'Other Shop' })).apiKey;
    const config = loadConfig({
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_CHECKOUT_URL: CHECKOUT_URL,
    });
    renewal = {
      ...payLinkDeps(h),
      subscriptions: h.stores.subscriptions,
      merchants: h.stores.merchants,
      paymentRequests: customerEmails(config, () => undefined)?.paymentRequests,
      renewalLeadMs: 3 * DAY,
      renewalRecheckMs: 60_000,
    };
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: SANDBOX,
      subscriptionPages: {
        renewal,
        buckets: memoryBucketStore(),
        receiptTokens: h.stores.receiptTokens,
        checkoutUrl: CHECKOUT_URL,
      },
    });
    base = await checkout.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await checkout?.close();
    await h?.close();
  });

  const api = async (method: 'GET' | 'POST', url: string, body?: unknown, key = apiKey) => {
    const answer = await h.app.inject({
      method,
      url,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: answer.statusCode, body: answer.json() as Body };
  };
  const plan = async (fields: Body) =>
    (await api('POST', '/payments/api/plans/', { currency: 'USDC', interval: 'month', ...fields })).body;
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = SAME_ORIGIN) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
  /** Marks a period's payment paid as the watcher stores it (status and the block time that paid it). */
  const markPaid = (paymentId: string) =>
    h.database.handle.db
      .updateTable('payments')
      .set({ status: 'paid', paid_at: h.clock.now().toISOString(), amount_received_base_units: '10000000' })
      .where('id', '=', paymentId)
      .execute();
  const subscriptionCount = async () =>
    (await h.database.handle.db.selectFrom('subscriptions').select('id').execute()).length;
  const tokenOf = async (id: string) =>
    (
      await h.database.handle.db
        .selectFrom('subscriptions')
        .select('portal_token')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).portal_token!;

  it('shows a plan’s terms in words; a bad or foreign post is refused and subscribes nobody', async () => {
    h.clock.set(new Date('2027-03-01T09:00:00.000Z'));
    const pro = await plan({
      name: 'Beans <monthly>',
      amount: '12.50',
      trial_days: 14,
      grace_days: 1,
      periods: 6,
    });
    const page = await fetch(`${base}/subscribe/${pro.plan_id}`);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('<h1>Beans &lt;monthly&gt;</h1>');
    expect(text).toContain('12.50 USDC per month');
    expect(text).toContain('A free trial of 14 days: the first payment is due on');
    expect(text).toContain('A period not paid within 1 day of its due date ends the subscription.');
    expect(text).toContain('It lasts 6 periods.');
    expect(text).toContain(`action="/subscribe/${pro.plan_id}?lang=en"`);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    const french = await (await fetch(`${base}/subscribe/${pro.plan_id}?lang=fr`)).text();
    expect(french).toContain('12,50 USDC par mois');

    const before = await subscriptionCount();
    const bad = await post(`/subscribe/${pro.plan_id}`, { email: 'not-an-address' });
    expect(bad.status).toBe(400);
    const badText = await bad.text();
    expect(badText).toContain('Enter a valid e-mail address.');
    expect(badText).toContain('value="not-an-address"');
    const foreign = await post(
      `/subscribe/${pro.plan_id}`,
      { email: 'ada@example.com' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(foreign.status).toBe(403);
    expect(await subscriptionCount()).toBe(before);
    expect((await fetch(`${base}/subscribe/00000000-0000-7000-8000-000000000000`)).status).toBe(404);
    expect((await fetch(`${base}/subscribe/nope`)).status).toBe(404);
    await api('POST', `/payments/api/plans/${pro.plan_id}/archive/`);
    expect((await fetch(`${base}/subscribe/${pro.plan_id}`)).status).toBe(410);
  });

  it('subscribes by e-mail into the portal, whose e-mail links it; the customer cancels at period end', async () => {
    const coffee = await plan({ name: 'Coffee club', amount: '10', grace_days: 3 });
    const subscribed = await post(`/subscribe/${coffee.plan_id}?lang=fr`, { email: ' Ada@Example.com ' });
    expect(subscribed.status).toBe(303);
    const location = subscribed.headers.get('location') ?? '';
    const match = /^\/subscriptions\/([A-Za-z0-9_-]{43})\?lang=fr&done=subscribed$/.exec(location);
    expect(match).not.toBeNull();
    const token = match![1]!;
    const [listed] = (await api('GET', '/payments/api/subscriptions/?limit=1')).body.subscriptions;
    expect(listed).toMatchObject({
      plan_id: coffee.plan_id,
      customer_email: 'Ada@Example.com',
      status: 'past_due',
    });
    expect(await tokenOf(listed.subscription_id)).toBe(token);
    // The first period's request e-mail, in the page's language, links the portal.
    const emails = await h.database.handle.db
      .selectFrom('email_messages')
      .selectAll()
      .where('payment_id', '=', listed.payments[0].payment_id)
      .execute();
    expect(emails).toHaveLength(1);
    expect(emails[0]!.text_body).toContain(`${CHECKOUT_URL}/subscriptions/${token}`);
    expect(emails[0]!.text_body).toContain('Gérer votre abonnement');

    const portal = await fetch(`${base}${location}`);
    expect(portal.status).toBe(200);
    const shown = await portal.text();
    expect(shown).toContain('Vous êtes abonné. Nous avons envoyé les liens à Ada@Example.com.');
    expect(shown).toContain(`href="/pay/${listed.payments[0].payment_id}?lang=fr"`);
    expect(shown).toContain(`action="/subscriptions/${token}/cancel?lang=fr"`);
    // A token one character off, or malformed, opens nothing.
    const other = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect((await fetch(`${base}/subscriptions/${other}`)).status).toBe(404);
    expect((await fetch(`${base}/subscriptions/short`)).status).toBe(404);

    // Another site's form cancels nothing.
    const forged = await post(`/subscriptions/${token}/cancel`, {}, { 'sec-fetch-site': 'cross-site' });
    expect(forged.status).toBe(403);
    expect(
      (await api('GET', `/payments/api/subscriptions/${listed.subscription_id}/`)).body.cancel_at,
    ).toBeNull();

    const canceled = await post(`/subscriptions/${token}/cancel?lang=en`, {});
    expect(canceled.status).toBe(303);
    expect(canceled.headers.get('location')).toBe(`/subscriptions/${token}?lang=en&done=canceled`);
    const periodEnd = new Date(h.clock.now().getTime());
    periodEnd.setUTCMonth(periodEnd.getUTCMonth() + 1);
    const after = (await api('GET', `/payments/api/subscriptions/${listed.subscription_id}/`)).body;
    expect(after).toMatchObject({
      status: 'past_due',
      canceled_by: 'customer',
      cancel_at: periodEnd.toISOString(),
    });
    const page = await (await fetch(`${base}/subscriptions/${token}?lang=en&done=canceled`)).text();
    expect(page).toContain('Your subscription is canceled.');
    expect(page).not.toContain('/cancel?');
    // Paid, the period links its receipt page (its token issued once), no longer the payment to pay.
    await markPaid(listed.payments[0].payment_id);
    const paid = await (await fetch(`${base}/subscriptions/${token}`)).text();
    const receipt = /href="(https:\/\/pay\.example\.test\/receipts\/[A-Za-z0-9_-]+)">Receipt</.exec(paid);
    expect(receipt).not.toBeNull();
    expect(paid).not.toContain(`href="/pay/${listed.payments[0].payment_id}`);
    expect(await (await fetch(`${base}/subscriptions/${token}`)).text()).toContain(receipt![1]!);
  });

  it('limits subscriptions per client address: the sixth in a row is refused with 429', async () => {
    const limited = await plan({ name: 'Tea', amount: '3', trial_days: 7 });
    const before = await subscriptionCount();
    // The clock stands still: the bucket of this address (five, the earlier test's one included) never refills.
    const answers: number[] = [];
    for (let i = 0; i < 5; i++)
      answers.push((await post(`/subscribe/${limited.plan_id}`, { email: `t${i}@example.com` })).status);
    expect(answers).toEqual([303, 303, 303, 303, 429]);
    expect(await subscriptionCount()).toBe(before + 4);
  });

  it('changes a plan from the next period: billed with the new plan, then made the plan', async () => {
    const t0 = new Date('2027-05-31T10:00:00.000Z').getTime();
    h.clock.set(new Date(t0));
    const basic = await plan({ name: 'Basic', amount: '10' });
    const premium = await plan({ name: 'Premium', amount: '25' });
    const weekly = await plan({ name: 'Weekly', amount: '3', interval: 'week' });
    const sub = (
      await api('POST', '/payments/api/subscriptions/', {
        plan_id: basic.plan_id,
        customer_email: 'bo@example.com',
      })
    ).body;
    await markPaid(sub.payments[0].payment_id);
    const change = (plan_id: unknown, key = apiKey) =>
      api('POST', `/payments/api/subscriptions/${sub.subscription_id}/change-plan/`, { plan_id }, key);

    expect((await change(weekly.plan_id)).body.code).toBe('CONFLICT');
    const missing = await change(undefined);
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: Body) => d.field)).toEqual(['plan_id']);
    expect((await change('00000000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await change(premium.plan_id, otherKey)).status).toBe(404);

    const changed = await change(premium.plan_id);
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      plan_id: basic.plan_id,
      amount: '10.00',
      pending_plan_id: premium.plan_id,
      pending_plan_from_period: 2,
    });
    // Its own plan withdraws the change; asked again, it is the same change.
    expect((await change(basic.plan_id)).body).toMatchObject({
      pending_plan_id: null,
      pending_plan_from_period: null,
    });
    expect((await change(premium.plan_id)).body).toMatchObject({ pending_plan_from_period: 2 });
    // Period 2 starts on June 30 (the 31st clamped); its payment is made three days before, not a ms sooner.
    const period2 = new Date('2027-06-30T10:00:00.000Z').getTime();
    const run = (ms: number) => {
      h.clock.set(new Date(ms));
      return renewDueSubscriptions(renewal, 50);
    };
    const shown = async () => (await api('GET', `/payments/api/subscriptions/${sub.subscription_id}/`)).body;
    await run(period2 - 3 * DAY - 1);
    expect((await shown()).payments).toHaveLength(1);
    await run(period2 - 3 * DAY);
    const billed = await shown();
    expect(billed.payments.map((p: Body) => p.period)).toEqual([1, 2]);
    const second = await api('GET', `/payments/api/status/${billed.payments[1].payment_id}/`);
    expect(second.body).toMatchObject({ amount: '25.00', currency: 'USDC', title: 'Premium' });
    expect(billed).toMatchObject({ plan_id: basic.plan_id, pending_plan_id: premium.plan_id });

    // Billed already at the new price: the change stands until period 2 starts, neither withdrawn nor replaced.
    const withdrawn = await change(basic.plan_id);
    expect(withdrawn).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect((await shown()).pending_plan_id).toBe(premium.plan_id);
  });

  it('makes the new plan the plan once its first period starts, and refuses a change once canceled', async () => {
    h.clock.set(new Date('2027-08-01T00:00:00.000Z'));
    const basic = await plan({ name: 'Basic', amount: '10' });
    const premium = await plan({ name: 'Premium', amount: '25' });
    const sub = (
      await api('POST', '/payments/api/subscriptions/', {
        plan_id: basic.plan_id,
        customer_email: 'cy@example.com',
      })
    ).body;
    const url = `/payments/api/subscriptions/${sub.subscription_id}/`;
    await markPaid(sub.payments[0].payment_id);
    await api('POST', `${url}change-plan/`, { plan_id: premium.plan_id });
    const period2 = new Date('2027-09-01T00:00:00.000Z').getTime();
    h.clock.set(new Date(period2 - 1));
    await renewDueSubscriptions(renewal, 50);
    expect((await api('GET', url)).body).toMatchObject({
      plan_id: basic.plan_id,
      pending_plan_id: premium.plan_id,
    });
    h.clock.set(new Date(period2));
    await renewDueSubscriptions(renewal, 50);
    expect((await api('GET', url)).body).toMatchObject({
      plan_id: premium.plan_id,
      amount: '25.00',
      pending_plan_id: null,
    });
    // Period 2 billed and started: a new change applies from period 3.
    expect((await api('POST', `${url}change-plan/`, { plan_id: basic.plan_id })).body).toMatchObject({
      pending_plan_id: basic.plan_id,
      pending_plan_from_period: 3,
    });
    await api('POST', `${url}cancel/`, { at_period_end: true });
    const refused = await api('POST', `${url}change-plan/`, { plan_id: basic.plan_id });
    expect(refused).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
  });
});
