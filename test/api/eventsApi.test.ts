import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateApiKey } from '../../src/app/merchants/merchantAdmin.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { countRows, dialects } from '../helpers/database.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

/**
 * The events API (decision 0058) over real HTTP: a merchant's events of its key's mode, newest first, filtered by
 * type and by creation time (both ends exclusive, to the millisecond), paged by cursor; and the URL rules of a
 * webhook endpoint where private addresses are not allowed (as in production).
 */
describe.each(dialects)('events API on %s', (dialect) => {
  let h: ApiHarness;
  let base: string;
  let liveKey: string;
  let testKey: string;
  let otherKey: string;
  /** Paid events, oldest first, each a minute after the previous. */
  const paid: { id: string; at: Date }[] = [];
  let refundEventId: string;

  const call = async (path: string, key = liveKey, init: RequestInit = {}) => {
    const response = await fetch(`${base}${path}`, {
      ...init,
      headers: { 'x-api-key': key, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Body };
  };
  const createPayment = async () => {
    const created = await call('/payments/api/create/', liveKey, {
      method: 'POST',
      body: JSON.stringify({ amount: '10', currency: 'USDC' }),
    });
    expect(created.status, created.text).toBe(201);
    return created.body.payment_id as string;
  };

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    const merchant = await h.merchant();
    liveKey = merchant.apiKey;
    otherKey = (await h.merchant({ name: 'Other Shop' })).apiKey;
    const admin = { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false };
    testKey = (await rotateApiKey(admin, merchant.id, 0, 'test')).apiKey;
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    for (let i = 0; i < 3; i++) {
      h.clock.advance(60_000);
      const paymentId = await createPayment();
      paid.push({ id: await payInFull(h, paymentId), at: h.clock.now() });
    }
    h.clock.advance(60_000);
    const refund = await call('/payments/api/refunds/', liveKey, {
      method: 'POST',
      body: JSON.stringify({
        amount: '1.00',
        payment_id: (await call(`/payments/api/events/${paid[0]!.id}/`)).body.payment_id,
      }),
    });
    expect(refund.status, refund.text).toBe(201);
    const refunds = await call('/payments/api/events/?type=refund.created');
    refundEventId = refunds.body.events[0].id;
  });
  afterAll(() => h.close());

  it('lists the events newest first, each as its webhook carried it', async () => {
    const listed = await call('/payments/api/events/');
    expect(listed.status).toBe(200);
    expect(listed.body.events.map((event: Body) => event.id)).toStrictEqual([
      refundEventId,
      ...paid.map((event) => event.id).reverse(),
    ]);
    const [, newestPaid] = listed.body.events;
    expect(newestPaid).toMatchObject({
      event: 'payment.paid',
      livemode: true,
      created_at: paid[2]!.at.toISOString(),
    });
    expect(newestPaid.data).toMatchObject({ id: newestPaid.id, event: 'payment.paid', status: 'paid' });
    expect(listed.body.next_cursor).toBeNull();
  });

  it('filters by type and by a creation range whose ends are excluded to the millisecond', async () => {
    const ids = async (query: string) =>
      (await call(`/payments/api/events/?${query}`)).body.events.map((event: Body) => event.id);
    expect(await ids('type=payment.paid')).toStrictEqual(paid.map((event) => event.id).reverse());
    expect(await ids('type=refund.created')).toStrictEqual([refundEventId]);
    const [first, second, third] = paid.map((event) => event.at.getTime());
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    // Exactly at an event's moment, it is outside; a millisecond away, inside.
    expect(await ids(`type=payment.paid&created_after=${iso(first!)}`)).toStrictEqual([
      paid[2]!.id,
      paid[1]!.id,
    ]);
    expect(await ids(`type=payment.paid&created_after=${iso(first! - 1)}`)).toHaveLength(3);
    expect(await ids(`created_before=${iso(third!)}`)).toStrictEqual([paid[1]!.id, paid[0]!.id]);
    expect(await ids(`created_before=${iso(third! + 1)}`)).toStrictEqual([
      paid[2]!.id,
      paid[1]!.id,
      paid[0]!.id,
    ]);
    expect(await ids(`created_after=${iso(first!)}&created_before=${iso(third!)}`)).toStrictEqual([
      paid[1]!.id,
    ]);
    expect(second).toBeGreaterThan(first!);
  });

  it('pages by cursor, a cursor holding to its own filters', async () => {
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await call(
        `/payments/api/events/?type=payment.paid&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status, page.text).toBe(200);
      expect(page.body.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.events.map((event: Body) => event.id));
      cursor = page.body.next_cursor;
    }
    expect(seen).toStrictEqual(paid.map((event) => event.id).reverse());
    const firstPage = await call('/payments/api/events/?type=payment.paid&limit=1');
    const elsewhere = await call(
      `/payments/api/events/?limit=1&cursor=${encodeURIComponent(firstPage.body.next_cursor)}`,
    );
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.code).toBe('VALIDATION_ERROR');
  });

  it('refuses bad filters naming the field', async () => {
    for (const [query, field] of [
      ['type=payment.bogus', 'type'],
      ['created_after=yesterday', 'created_after'],
      ['created_before=2026-13-01T00:00:00Z', 'created_before'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
    ] as const) {
      const refused = await call(`/payments/api/events/?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.details?.[0]?.field ?? refused.body.field, query).toBe(field);
    }
  });

  it("keeps each mode's and each merchant's events and endpoints apart", async () => {
    expect((await call('/payments/api/events/', testKey)).body.events).toStrictEqual([]);
    expect((await call(`/payments/api/events/${paid[0]!.id}/`, testKey)).status).toBe(404);
    expect((await call(`/payments/api/events/${paid[0]!.id}/`, otherKey)).status).toBe(404);
    expect((await call('/payments/api/events/evt_unknown/')).status).toBe(404);

    const testEndpoint = await call('/payments/api/webhook_endpoints/', testKey, {
      method: 'POST',
      body: JSON.stringify({ url: 'https://hooks.example.com/test' }),
    });
    expect(testEndpoint.status, testEndpoint.text).toBe(201);
    expect(testEndpoint.body.livemode).toBe(false);
    expect((await call('/payments/api/webhook_endpoints/')).body.webhook_endpoints).toStrictEqual([]);
    expect((await call(`/payments/api/webhook_endpoints/${testEndpoint.body.id}/`)).status).toBe(404);
    // A live payment's event owes nothing to the test endpoint.
    const deliveries = await countRows(h.database.handle.db, 'webhook_deliveries');
    await payInFull(h, await createPayment());
    expect(await countRows(h.database.handle.db, 'webhook_deliveries')).toBe(deliveries);
  });

  it("refuses an endpoint URL as a payment's webhook_url is refused: internal addresses and plain http", async () => {
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://[::ffff:10.0.0.1]/hooks',
      'https://169.254.169.254/latest',
      'https://metadata.google.internal/x',
      'http://hooks.example.com/x',
      'https://user:pass@hooks.example.com/x',
    ]) {
      const refused = await call('/payments/api/webhook_endpoints/', liveKey, {
        method: 'POST',
        body: JSON.stringify({ url }),
      });
      expect(refused.status, url).toBe(400);
      expect(refused.body.details, url).toMatchObject([{ field: 'url' }]);
    }
    const made = await call('/payments/api/webhook_endpoints/', liveKey, {
      method: 'POST',
      body: JSON.stringify({ url: 'https://hooks.example.com/live' }),
    });
    const moved = await call(`/payments/api/webhook_endpoints/${made.body.id}/`, liveKey, {
      method: 'PATCH',
      body: JSON.stringify({ url: 'https://10.1.2.3/hooks' }),
    });
    expect(moved.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'url' }] });
  });
});
