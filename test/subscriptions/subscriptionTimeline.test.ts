import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateApiKey } from '../../src/app/merchants/merchantAdmin.ts';
import { type RenewalDeps, renewDueSubscriptions } from '../../src/app/subscriptions/renewal.ts';
import { dispatchWebhooks } from '../../src/app/webhooks/dispatchWebhooks.ts';
import { payLinkDeps } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { startWebhookHarness, type WebhookHarness } from '../helpers/webhookHarness.ts';
import { type ReceivedWebhook, verifyAsMerchant, WebhookReceiver } from '../helpers/webhookReceiver.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

const DAY = 86_400_000;

/**
 * A subscription's own timeline (decision 0063), over real HTTP to real receivers, on SQLite and PostgreSQL: a
 * subscription with a trial announces `subscription.created` when it is made (no payment exists yet), to the
 * merchant's default webhook URL, signed with the merchant's secret; canceled in its trial, `subscription.canceled`
 * goes out too, to an endpoint that wants only that type as well; the events API lists each under the id its
 * webhooks carry, with no payment. `created` is announced once: not again when the first period is billed,
 * whose events go on that period's payment.
 */
describe.each(dialects)('a subscription’s own timeline on %s', (dialect) => {
  let h: WebhookHarness;
  let endpointReceiver: WebhookReceiver;
  let renewal: RenewalDeps;

  beforeAll(async () => {
    h = await startWebhookHarness(dialect);
    endpointReceiver = await new WebhookReceiver().start();
    await h.setMerchantWebhookUrl(h.receiver.url('/default'));
    renewal = {
      ...payLinkDeps(h.api),
      subscriptions: h.api.stores.subscriptions,
      merchants: h.api.stores.merchants,
      renewalLeadMs: 3 * DAY,
      renewalRecheckMs: 60_000,
    };
  });
  afterAll(async () => {
    await endpointReceiver?.stop();
    await h?.close();
  });

  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, key?: string) => {
    const answer = await h.api.app.inject({
      method,
      url,
      headers: {
        'x-api-key': key ?? h.merchant.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: answer.statusCode, body: answer.json() as Body };
  };
  const trialSubscription = async (email: string, idempotencyKey?: string, key = h.merchant.apiKey) => {
    const plan = await call(
      'POST',
      '/payments/api/plans/',
      { name: 'Tea club', amount: '10', currency: 'USDC', interval: 'month', trial_days: 14 },
      key,
    );
    expect(plan.status).toBe(201);
    const subscribe = () =>
      h.api.app.inject({
        method: 'POST',
        url: '/payments/api/subscriptions/',
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        payload: JSON.stringify({ plan_id: plan.body.plan_id, customer_email: email }),
      });
    const first = await subscribe();
    const sub = { status: first.statusCode, body: first.json() as Body };
    expect(sub.status).toBe(201);
    // A replay of its Idempotency-Key answers the same subscription and announces nothing more.
    if (idempotencyKey)
      expect((await subscribe()).json()).toMatchObject({ subscription_id: sub.body.subscription_id });
    expect(sub.body).toMatchObject({ status: 'trialing', payments: [] });
    return sub.body.subscription_id as string;
  };
  const dispatch = () => dispatchWebhooks(h.dispatcher());
  const webhookId = (request: ReceivedWebhook) => String(request.headers['webhook-id']);
  /** The merchant's events of one subscription through the events API (the key's mode), oldest first. */
  const listed = async (subscriptionId: string, key?: string) => {
    const page = await call('GET', '/payments/api/events/?limit=100', undefined, key);
    expect(page.status).toBe(200);
    return (page.body.events as Body[])
      .filter((event) => event.data.subscription_id === subscriptionId)
      .reverse();
  };

  it('announces created at once and canceled in the trial, to the default URL and a wanting endpoint', async () => {
    const endpoint = await call('POST', '/payments/api/webhook_endpoints/', {
      url: endpointReceiver.url('/canceled-only'),
      event_types: ['subscription.canceled'],
    });
    expect(endpoint.status).toBe(201);
    const atDefault = h.receiver.received.length;

    const sid = await trialSubscription('ann@example.com');
    expect((await dispatch()).delivered).toBe(1);
    const created = h.receiver.received[atDefault]!;
    expect(created.path).toBe('/default');
    const createdBody = verifyAsMerchant(h.merchant.webhookSecret, created) as Body;
    expect(createdBody).toMatchObject({
      id: webhookId(created),
      event: 'subscription.created',
      subscription_id: sid,
      status: 'trialing',
      period: 0,
      payment_id: null,
    });
    expect(endpointReceiver.received).toHaveLength(0);

    // An hour later (events of one moment are listed by id, not in the order they were written).
    h.api.clock.set(new Date(h.api.clock.now().getTime() + 3_600_000));
    const canceled = await call('POST', `/payments/api/subscriptions/${sid}/cancel/`, {
      at_period_end: false,
    });
    expect(canceled.body).toMatchObject({ status: 'canceled', payments: [] });
    expect((await dispatch()).delivered).toBe(2);
    const toDefault = h.receiver.received[atDefault + 1]!;
    const toEndpoint = endpointReceiver.received[0]!;
    expect(endpointReceiver.received).toHaveLength(1);
    expect(toEndpoint.path).toBe('/canceled-only');
    const canceledBody = verifyAsMerchant(h.merchant.webhookSecret, toDefault) as Body;
    expect(verifyAsMerchant(endpoint.body.secret, toEndpoint)).toStrictEqual(canceledBody);
    expect(webhookId(toEndpoint)).toBe(webhookId(toDefault));
    expect(canceledBody).toMatchObject({
      id: webhookId(toDefault),
      event: 'subscription.canceled',
      subscription_id: sid,
      status: 'canceled',
      canceled_reason: 'requested',
      payment_id: null,
    });

    // The events API lists both under their webhooks' ids, on the subscription's timeline, with the same body.
    const events = await listed(sid);
    expect(events.map((e) => [e.id, e.event, e.payment_id, e.subscription_id])).toStrictEqual([
      [webhookId(created), 'subscription.created', null, sid],
      [webhookId(toDefault), 'subscription.canceled', null, sid],
    ]);
    expect(events[1]!.data).toStrictEqual(canceledBody);
    const shown = await call('GET', `/payments/api/events/${webhookId(toDefault)}/`);
    expect(shown.body).toMatchObject({ id: webhookId(toDefault), payment_id: null, subscription_id: sid });
    // The webhook log shows each delivered to the default URL.
    const log = await call('GET', '/payments/api/webhooks/');
    const logged = (log.body.events as Body[]).find((e) => e.id === webhookId(toDefault));
    expect(logged).toMatchObject({ payment_id: null, subscription_id: sid, delivery_status: 'delivered' });
    expect(logged?.attempts).toMatchObject([{ url: h.receiver.url('/default'), status_code: 204 }]);
    // Nothing more is owed: each was sent once.
    expect((await dispatch()).attempted).toBe(0);
    const removed = await call('DELETE', `/payments/api/webhook_endpoints/${endpoint.body.id}/`);
    expect(removed.status).toBe(200);
  });

  it('announces created once: not again when the first period is billed, whose events are on its payment', async () => {
    const start = h.api.clock.now().getTime();
    const sid = await trialSubscription('bo@example.com', 'sub-bo');
    const due = start + 14 * DAY;
    h.api.clock.set(new Date(due - 3 * DAY));
    await renewDueSubscriptions(renewal, 50);
    const billed = (await call('GET', `/payments/api/subscriptions/${sid}/`)).body.payments as Body[];
    expect(billed.map((p) => p.period)).toEqual([1]);
    h.api.clock.set(new Date(due));
    await renewDueSubscriptions(renewal, 50);
    expect((await call('GET', `/payments/api/subscriptions/${sid}/`)).body.status).toBe('past_due');
    const events = await listed(sid);
    expect(
      events.map((e) => [e.event, e.data.period, e.data.status, e.payment_id, e.subscription_id]),
    ).toEqual([
      ['subscription.created', 0, 'trialing', null, sid],
      ['subscription.past_due', 1, 'past_due', billed[0]!.payment_id, null],
    ]);
    for (const event of events) expect(event.data.payment_id).toBe(event.payment_id);
  });

  it('is of its subscription’s mode: a test subscription’s events go to test endpoints and test keys only', async () => {
    const admin = { merchants: h.api.stores.merchants, clock: h.api.clock, webhookAllowPrivate: false };
    const testKey = (await rotateApiKey(admin, h.merchant.id, 0, 'test')).apiKey;
    const testReceiver = await new WebhookReceiver().start();
    try {
      const live = await call('POST', '/payments/api/webhook_endpoints/', {
        url: endpointReceiver.url('/live'),
      });
      const test = await call(
        'POST',
        '/payments/api/webhook_endpoints/',
        { url: testReceiver.url('/test') },
        testKey,
      );
      expect([live.status, test.status]).toEqual([201, 201]);
      const atLive = endpointReceiver.received.length;
      const sid = await trialSubscription('cy@example.com', undefined, testKey);
      await dispatch();
      expect(testReceiver.received).toHaveLength(1);
      const body = verifyAsMerchant(test.body.secret, testReceiver.received[0]!) as Body;
      expect(body).toMatchObject({ event: 'subscription.created', subscription_id: sid, livemode: false });
      expect(endpointReceiver.received).toHaveLength(atLive);
      expect((await listed(sid, testKey)).map((e) => [e.id, e.livemode])).toEqual([[body.id, false]]);
      expect(await listed(sid)).toEqual([]);
      expect((await call('GET', `/payments/api/events/${body.id}/`)).status).toBe(404);
      await call('DELETE', `/payments/api/webhook_endpoints/${live.body.id}/`);
      await call('DELETE', `/payments/api/webhook_endpoints/${test.body.id}/`, undefined, testKey);
    } finally {
      await testReceiver.stop();
    }
  });
});
