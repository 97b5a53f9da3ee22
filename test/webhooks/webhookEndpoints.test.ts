import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchWebhooks } from '../../src/app/webhooks/dispatchWebhooks.ts';
import { dialects } from '../helpers/database.ts';
import { startWebhookHarness, type WebhookHarness } from '../helpers/webhookHarness.ts';
import { type ReceivedWebhook, verifyAsMerchant, WebhookReceiver } from '../helpers/webhookReceiver.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

/**
 * Webhook endpoints (decision 0058) over real HTTP, delivering to real receivers: each enabled endpoint that
 * wants the event gets it, signed with its own secret, retried and recorded on its own, beside the payment's
 * `webhook_url`, which keeps getting every event as before.
 */
describe.each(dialects)('webhook endpoints on %s', (dialect) => {
  let h: WebhookHarness;
  let base: string;
  let first: WebhookReceiver;
  let second: WebhookReceiver;

  beforeAll(async () => {
    h = await startWebhookHarness(dialect);
    first = await new WebhookReceiver().start();
    second = await new WebhookReceiver().start();
    base = await h.api.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await first.stop();
    await second.stop();
    await h.close();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        'x-api-key': h.merchant.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Body };
  };
  const createEndpoint = async (fields: Body) => {
    const created = await call('POST', '/payments/api/webhook_endpoints/', fields);
    expect(created.status, created.text).toBe(201);
    return created.body;
  };
  const dispatch = () => dispatchWebhooks(h.dispatcher());
  /** A paid payment whose own webhook_url is the harness's receiver: the event id it owes. */
  const paidEvent = async () => h.pay(await h.createPayment());
  const signatures = (request: ReceivedWebhook) => String(request.headers['webhook-signature']).split(' ');
  const deleteAll = async () => {
    for (const endpoint of (await call('GET', '/payments/api/webhook_endpoints/')).body.webhook_endpoints) {
      expect((await call('DELETE', `/payments/api/webhook_endpoints/${endpoint.id}/`)).status).toBe(200);
    }
  };

  it('makes, lists, shows, changes and deletes an endpoint; its secret is answered only on create', async () => {
    const created = await createEndpoint({ url: first.url('/a'), description: ' Bookkeeping ' });
    expect(created).toMatchObject({
      url: first.url('/a'),
      description: 'Bookkeeping',
      event_types: ['*'],
      enabled: true,
      livemode: true,
      previous_secret_expires_at: null,
    });
    expect(created.id).toMatch(/^we_[0-9A-Za-z]{22}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const { secret: _shownOnce, ...described } = created;
    const listed = await call('GET', '/payments/api/webhook_endpoints/');
    expect(listed.body.webhook_endpoints).toStrictEqual([described]);
    expect(listed.text).not.toContain(created.secret);
    expect((await call('GET', `/payments/api/webhook_endpoints/${created.id}/`)).body).toStrictEqual(
      described,
    );

    const changed = await call('PATCH', `/payments/api/webhook_endpoints/${created.id}/`, {
      event_types: ['refund.created', 'payment.paid'],
      enabled: false,
    });
    expect(changed.status, changed.text).toBe(200);
    // Each once, in the order of the event list; what was not given stays.
    expect(changed.body).toMatchObject({
      event_types: ['payment.paid', 'refund.created'],
      enabled: false,
      description: 'Bookkeeping',
      url: first.url('/a'),
    });

    const deleted = await call('DELETE', `/payments/api/webhook_endpoints/${created.id}/`);
    expect(deleted.body).toStrictEqual({ id: created.id, deleted: true });
    expect((await call('GET', `/payments/api/webhook_endpoints/${created.id}/`)).status).toBe(404);
    expect((await call('DELETE', `/payments/api/webhook_endpoints/${created.id}/`)).status).toBe(404);
    expect((await call('GET', '/payments/api/webhook_endpoints/')).body.webhook_endpoints).toStrictEqual([]);
  });

  it('refuses bad input naming each field, and writes nothing', async () => {
    const refused = await call('POST', '/payments/api/webhook_endpoints/', {
      url: 'ftp://example.com/hooks',
      event_types: ['payment.paid', 'payment.bogus'],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('VALIDATION_ERROR');
    expect(refused.body.details.map((detail: Body) => detail.field)).toStrictEqual(['url', 'event_types']);
    expect(refused.text).toContain('payment.bogus');
    const long = await call('POST', '/payments/api/webhook_endpoints/', {
      url: first.url(),
      description: 'x'.repeat(201),
    });
    expect(long.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'description' }] });
    const noUrl = await call('POST', '/payments/api/webhook_endpoints/', {});
    expect(noUrl.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'url' }] });
    const noTypes = await call('POST', '/payments/api/webhook_endpoints/', {
      url: first.url(),
      event_types: [],
    });
    expect(noTypes.body.details).toMatchObject([{ field: 'event_types' }]);
    const badEnabled = await call('POST', '/payments/api/webhook_endpoints/', {
      url: first.url(),
      enabled: 'no',
    });
    expect(badEnabled.status).toBe(400);
    expect((await call('GET', '/payments/api/webhook_endpoints/')).body.webhook_endpoints).toStrictEqual([]);
  });

  it('sends each event to every enabled endpoint that wants it, and still to the payment’s webhook_url', async () => {
    const everything = await createEndpoint({ url: first.url('/all') });
    const refundsOnly = await createEndpoint({
      url: second.url('/refunds'),
      event_types: ['refund.created'],
    });
    const disabled = await createEndpoint({ url: second.url('/off'), enabled: false });
    const before = {
      legacy: h.receiver.received.length,
      first: first.received.length,
      second: second.received.length,
    };

    const eventId = await paidEvent();
    await dispatch();

    expect(h.receiver.received.length - before.legacy).toBe(1);
    expect(first.received.length - before.first).toBe(1);
    expect(second.received.length - before.second).toBe(0);
    const legacy = h.receiver.received.at(-1)!;
    const toEndpoint = first.received.at(-1)!;
    expect(toEndpoint.path).toBe('/all');
    expect(toEndpoint.headers['webhook-id']).toBe(eventId);
    // The same bytes, each signed with its own secret: the endpoint's does not verify the account's and back.
    expect(toEndpoint.body.equals(legacy.body)).toBe(true);
    expect(verifyAsMerchant(everything.secret, toEndpoint)).toMatchObject({
      id: eventId,
      event: 'payment.paid',
    });
    expect(verifyAsMerchant(h.merchant.webhookSecret, legacy)).toMatchObject({ id: eventId });
    expect(() => verifyAsMerchant(h.merchant.webhookSecret, toEndpoint)).toThrow();
    expect(() => verifyAsMerchant(refundsOnly.secret, toEndpoint)).toThrow();

    // The events API shows the very event, by the id the webhooks carried.
    const shown = await call('GET', `/payments/api/events/${eventId}/`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: eventId, event: 'payment.paid', livemode: true });
    expect(shown.body.data).toStrictEqual(JSON.parse(toEndpoint.body.toString('utf8')));
    expect(disabled.enabled).toBe(false);
    await deleteAll();
  });

  it('retries each delivery on its own: a failing endpoint does not resend to the others', async () => {
    const endpoint = await createEndpoint({ url: first.url('/flaky') });
    first.respond = () => ({ status: 500 });
    const before = { legacy: h.receiver.received.length, first: first.received.length };
    await paidEvent();
    await dispatch();
    expect(h.receiver.received.length - before.legacy).toBe(1);
    expect(first.received.length - before.first).toBe(1);

    // Disabled, its retry waits however late it gets; enabled again, it goes out.
    await call('PATCH', `/payments/api/webhook_endpoints/${endpoint.id}/`, { enabled: false });
    first.respond = () => ({ status: 204 });
    h.api.clock.advance(60_000);
    await dispatch();
    expect(first.received.length - before.first).toBe(1);
    await call('PATCH', `/payments/api/webhook_endpoints/${endpoint.id}/`, { enabled: true });
    await dispatch();
    expect(first.received.length - before.first).toBe(2);
    expect(first.received.at(-1)!.headers['webhook-id']).toBe(first.received.at(-2)!.headers['webhook-id']);
    expect(h.receiver.received.length - before.legacy).toBe(1);
    const deliveries = await h.api.database.handle.db
      .selectFrom('webhook_delivery_attempts')
      .select(['attempt_number', 'status_code', 'outcome'])
      .where('delivery_id', 'like', `%:${endpoint.id}`)
      .orderBy('attempt_number')
      .execute();
    expect(
      deliveries.map((row) => [Number(row.attempt_number), Number(row.status_code), row.outcome]),
    ).toStrictEqual([
      [1, 500, 'retry'],
      [2, 204, 'delivered'],
    ]);
    await deleteAll();
  });

  it('sends nothing more to a deleted endpoint, not even what it was owed', async () => {
    const endpoint = await createEndpoint({ url: first.url('/gone') });
    first.respond = () => ({ status: 503 });
    const before = first.received.length;
    await paidEvent();
    await dispatch();
    expect(first.received.length - before).toBe(1);
    await call('DELETE', `/payments/api/webhook_endpoints/${endpoint.id}/`);
    first.respond = () => ({ status: 204 });
    h.api.clock.advance(3_600_000);
    await dispatch();
    expect(first.received.length - before).toBe(1);
  });

  it('lets a receiver that was down for an hour reconcile every event it missed through the events API', async () => {
    const endpoint = await createEndpoint({ url: second.url('/down') });
    second.respond = () => ({ status: 503 });
    const downSince = h.api.clock.now();
    const missed: string[] = [];
    for (let minute = 0; minute < 60; minute += 20) {
      h.api.clock.advance(20 * 60_000);
      missed.push(await paidEvent());
      await dispatch();
    }
    second.respond = () => ({ status: 204 });
    const listed: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const query = `created_after=${encodeURIComponent(downSince.toISOString())}&limit=2`;
      const page = await call(
        'GET',
        `/payments/api/events/?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      listed.push(...page.body.events.map((event: Body) => event.id));
      cursor = page.body.next_cursor;
    }
    expect(listed).toStrictEqual([...missed].reverse());
    // What the receiver was sent (and refused) is exactly what the list gives it.
    const refused = second.received
      .filter((request) => request.path === '/down')
      .map((r) => r.headers['webhook-id']);
    expect(new Set(refused)).toStrictEqual(new Set(missed));
    await call('DELETE', `/payments/api/webhook_endpoints/${endpoint.id}/`);
  });

  it('signs with the old and the new secret during the overlap, and with the new one alone from its end', async () => {
    const endpoint = await createEndpoint({ url: first.url('/rotating') });
    const rotated = await call('POST', `/payments/api/webhook_endpoints/${endpoint.id}/rotate-secret/`, {
      overlap: '1h',
    });
    expect(rotated.status, rotated.text).toBe(200);
    const overlapEnd = new Date(h.api.clock.now().getTime() + 3_600_000);
    expect(rotated.body.previous_secret_expires_at).toBe(overlapEnd.toISOString());
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(rotated.body.secret).toMatch(/^whsec_/);

    h.api.clock.set(new Date(overlapEnd.getTime() - 1));
    await paidEvent();
    await dispatch();
    const during = first.received.at(-1)!;
    expect(signatures(during)).toHaveLength(2);
    expect(verifyAsMerchant(rotated.body.secret, during)).toBeTruthy();
    expect(verifyAsMerchant(endpoint.secret, during)).toBeTruthy();

    h.api.clock.set(overlapEnd);
    await paidEvent();
    await dispatch();
    const after = first.received.at(-1)!;
    expect(after.headers['webhook-id']).not.toBe(during.headers['webhook-id']);
    expect(signatures(after)).toHaveLength(1);
    expect(verifyAsMerchant(rotated.body.secret, after)).toBeTruthy();
    expect(() => verifyAsMerchant(endpoint.secret, after)).toThrow();
    const shown = await call('GET', `/payments/api/webhook_endpoints/${endpoint.id}/`);
    expect(shown.body.previous_secret_expires_at).toBeNull();

    const badOverlap = await call('POST', `/payments/api/webhook_endpoints/${endpoint.id}/rotate-secret/`, {
      overlap: '31d',
    });
    expect(badOverlap.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'overlap' }] });
    await deleteAll();
  });
});
