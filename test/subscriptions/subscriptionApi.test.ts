import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaylinkClient } from '../../packages/client/src/index.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

/**
 * Plans and subscriptions on the merchant API over a real socket, on SQLite and PostgreSQL: idempotent creates,
 * every bad field named, listing, archive, a subscription's first period billed as an ordinary payment, cancel.
 */
describe.each(dialects)('the subscriptions API on %s', (dialect) => {
  let h: ApiHarness;
  let base: string;
  let apiKey: string;
  let otherKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    ({ apiKey } = await h.merchant({ name: 'Corner Shop' }));
    otherKey = (await h.merchant({ name: 'Other Shop' })).apiKey;
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => h.close());

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        'x-api-key': apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      replayed: response.headers.get('idempotent-replayed'),
      body: (text.startsWith('{') ? JSON.parse(text) : {}) as Body,
    };
  };
  const monthly = { name: 'Pro', amount: '9.90', currency: 'EUR', interval: 'month' };

  it('creates a plan once per Idempotency-Key; the key with another body is refused', async () => {
    const first = await call('POST', '/payments/api/plans/', monthly, { 'idempotency-key': 'plan-1' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      name: 'Pro',
      amount: '9.90',
      currency: 'EUR',
      interval: 'month',
      interval_count: 1,
      trial_days: 0,
      grace_days: 3,
      periods: null,
      active: true,
      livemode: true,
    });
    const again = await call('POST', '/payments/api/plans/', monthly, { 'idempotency-key': 'plan-1' });
    expect(again).toMatchObject({ status: 201, replayed: 'true' });
    expect(again.body.plan_id).toBe(first.body.plan_id);
    const other = await call(
      'POST',
      '/payments/api/plans/',
      { ...monthly, amount: '10' },
      { 'idempotency-key': 'plan-1' },
    );
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const listed = await call('GET', '/payments/api/plans/');
    expect(listed.body.plans.map((p: Body) => p.plan_id)).toEqual([first.body.plan_id]);
  });

  it.each([
    [{ ...monthly, interval: 'fortnight' }, 'interval'],
    [{ ...monthly, amount: '0' }, 'amount'],
    [{ ...monthly, amount: '1.001' }, 'amount'],
    [{ ...monthly, currency: 'XXX' }, 'currency'],
    [{ ...monthly, trial_days: 366 }, 'trial_days'],
    [{ ...monthly, grace_days: -1 }, 'grace_days'],
    [{ ...monthly, interval: 'year', interval_count: 4 }, 'interval_count'],
    [{ ...monthly, periods: 0 }, 'periods'],
    [{ ...monthly, name: '' }, 'name'],
  ])('refuses %o with 400 naming %s, and stores nothing', async (body, field) => {
    const answer = await call('POST', '/payments/api/plans/', body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details.map((d: Body) => d.field)).toContain(field);
    expect((await call('GET', '/payments/api/plans/')).body.plans).toHaveLength(1);
  });

  it('subscribes a customer: the first period is an ordinary payment, carrying the subscription', async () => {
    const plan = (await call('GET', '/payments/api/plans/')).body.plans[0];
    const body = { plan_id: plan.plan_id, customer_email: 'ada@example.com', customer_language: 'fr' };
    const created = await call('POST', '/payments/api/subscriptions/', body, { 'idempotency-key': 'sub-1' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      plan_id: plan.plan_id,
      status: 'past_due',
      current_period: 1,
      current_period_start: h.clock.now().toISOString(),
      trial_end: null,
      amount: '9.90',
      currency: 'EUR',
    });
    expect(created.body.payments).toHaveLength(1);
    const [first] = created.body.payments;
    const payment = await call('GET', `/payments/api/status/${first.payment_id}/`);
    expect(payment.body).toMatchObject({
      status: 'pending',
      amount: '9.90',
      currency: 'EUR',
      metadata: { subscription_id: created.body.subscription_id, subscription_period: '1' },
    });
    // Payable until the grace's end: 3 days.
    expect(payment.body.expires_at).toBe(new Date(h.clock.now().getTime() + 3 * 86_400_000).toISOString());
    const again = await call('POST', '/payments/api/subscriptions/', body, { 'idempotency-key': 'sub-1' });
    expect(again).toMatchObject({ status: 201, replayed: 'true' });
    expect(again.body.payments).toEqual(created.body.payments);
    const shown = await call('GET', `/payments/api/subscriptions/${created.body.subscription_id}/`);
    expect(shown.body.subscription_id).toBe(created.body.subscription_id);
    expect((await call('GET', '/payments/api/subscriptions/')).body.subscriptions).toHaveLength(1);
    // Another merchant sees none of it.
    const foreign = await call(
      'GET',
      `/payments/api/subscriptions/${created.body.subscription_id}/`,
      undefined,
      {
        'x-api-key': otherKey,
      },
    );
    expect(foreign.status).toBe(404);
  });

  it('names every bad field of a subscription, and refuses an unknown or archived plan', async () => {
    const bad = await call('POST', '/payments/api/subscriptions/', {
      customer_email: 'not-an-address',
      customer_wallet: '0x1234',
      customer_language: 'xx',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: Body) => d.field)).toEqual([
      'plan_id',
      'customer_email',
      'customer_wallet',
      'customer_language',
    ]);
    const unknown = await call('POST', '/payments/api/subscriptions/', {
      plan_id: 'nope',
      customer_email: 'ada@example.com',
    });
    expect(unknown.status).toBe(404);
    const plan = (await call('POST', '/payments/api/plans/', { ...monthly, trial_days: 14 })).body;
    const archived = await call('POST', `/payments/api/plans/${plan.plan_id}/archive/`);
    expect(archived.body).toMatchObject({ active: false, archived_at: h.clock.now().toISOString() });
    const refused = await call('POST', '/payments/api/subscriptions/', {
      plan_id: plan.plan_id,
      customer_email: 'ada@example.com',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('CONFLICT');
  });

  it('a trial bills nothing yet; canceled at period end it stays trialing until the trial’s end', async () => {
    const plan = (await call('POST', '/payments/api/plans/', { ...monthly, trial_days: 14 })).body;
    const sub = (
      await call('POST', '/payments/api/subscriptions/', {
        plan_id: plan.plan_id,
        customer_email: 'bo@example.com',
      })
    ).body;
    const trialEnd = new Date(h.clock.now().getTime() + 14 * 86_400_000).toISOString();
    expect(sub).toMatchObject({ status: 'trialing', current_period: 0, trial_end: trialEnd, payments: [] });
    const canceled = await call('POST', `/payments/api/subscriptions/${sub.subscription_id}/cancel/`, {});
    expect(canceled.body).toMatchObject({ status: 'trialing', cancel_at: trialEnd, canceled_by: 'merchant' });
    const now = await call('POST', `/payments/api/subscriptions/${sub.subscription_id}/cancel/`, {
      at_period_end: false,
    });
    expect(now.body).toMatchObject({
      status: 'canceled',
      canceled_reason: 'requested',
      cancel_at: h.clock.now().toISOString(),
    });
    const bad = await call('POST', `/payments/api/subscriptions/${sub.subscription_id}/cancel/`, {
      at_period_end: 'soon',
    });
    expect(bad.status).toBe(400);
  });

  it('the SDK makes a plan once per key, subscribes, lists and cancels at once', async () => {
    const paylink = new PaylinkClient({ apiKey, baseUrl: base });
    const plan = await paylink.createPlan(
      { name: 'SDK', amount: '5.00', currency: 'USDC', interval: 'week', interval_count: 2, periods: 3 },
      { idempotencyKey: 'sdk-plan' },
    );
    const again = await paylink.createPlan(
      { name: 'SDK', amount: '5.00', currency: 'USDC', interval: 'week', interval_count: 2, periods: 3 },
      { idempotencyKey: 'sdk-plan' },
    );
    expect(again.plan_id).toBe(plan.plan_id);
    expect(plan).toMatchObject({ interval: 'week', interval_count: 2, periods: 3, amount: '5.00' });
    const sub = await paylink.createSubscription({ plan_id: plan.plan_id, customer_email: 'cy@example.com' });
    expect(sub.status).toBe('past_due');
    expect((await paylink.getSubscription(sub.subscription_id)).payments).toHaveLength(1);
    expect((await paylink.listSubscriptions({ limit: 1 })).subscriptions[0]?.subscription_id).toBe(
      sub.subscription_id,
    );
    const bigger = await paylink.createPlan({
      name: 'SDK plus',
      amount: '8.00',
      currency: 'USDC',
      interval: 'week',
      interval_count: 2,
    });
    const changed = await paylink.changeSubscriptionPlan(sub.subscription_id, bigger.plan_id);
    expect(changed).toMatchObject({ pending_plan_id: bigger.plan_id, pending_plan_from_period: 2 });
    const canceled = await paylink.cancelSubscription(sub.subscription_id, { atPeriodEnd: false });
    expect(canceled).toMatchObject({
      status: 'canceled',
      canceled_reason: 'requested',
      canceled_by: 'merchant',
    });
    expect((await paylink.archivePlan(plan.plan_id)).active).toBe(false);
  });
});
