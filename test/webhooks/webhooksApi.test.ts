import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { dispatchWebhooks } from '../../src/app/webhooks/dispatchWebhooks.ts';
import type { HostResolver } from '../../src/app/webhooks/ports.ts';
import { ValidationError } from '../../src/domain/errors.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { startWebhookHarness, type WebhookHarness } from '../helpers/webhookHarness.ts';
import { verifyAsMerchant } from '../helpers/webhookReceiver.ts';

const NOT_FOUND = { error: 'Payment not found', code: 'NOT_FOUND' };

describe.each(dialects)('webhook log and operations over HTTP, %s', (dialect) => {
  let h: WebhookHarness;
  let other: { id: string; apiKey: string };
  let paymentId: string;
  let deliveredId: string;
  let failingPaymentId: string;
  let failingId: string;

  beforeAll(async () => {
    h = await startWebhookHarness(dialect);
    other = await h.api.merchant({ name: 'Other Shop' });
    h.receiver.respond = (request) =>
      request.path === '/broken' ? { status: 500, body: 'boom' } : { status: 200 };
    paymentId = await h.createPayment();
    deliveredId = await h.pay(paymentId);
    h.api.clock.advance(1_000); // distinct creation times: "newest first" is then well defined
    failingPaymentId = await h.createPayment({ webhookUrl: h.receiver.url('/broken') });
    failingId = await h.pay(failingPaymentId);
    await dispatchWebhooks(h.dispatcher());
  });
  afterAll(() => h.close());

  const merchantGet = (query: string, key = h.merchant.apiKey) =>
    h.api.app.inject({
      method: 'GET',
      url: `/payments/api/webhooks/${query}`,
      headers: { 'x-api-key': key },
    });

  describe('GET /payments/api/webhooks/ (merchants)', () => {
    it('lists the merchant’s recent events, newest first, with every attempt', async () => {
      const response = await merchantGet('');
      expect(response.statusCode).toBe(200);
      const { events } = response.json();
      expect(events.map((e: { id: string }) => e.id)).toStrictEqual([failingId, deliveredId]);
      const delivered = events[1];
      expect(delivered).toMatchObject({
        id: deliveredId,
        event: 'payment.paid',
        payment_id: paymentId,
        merchant_id: h.merchant.id,
        delivery_status: 'delivered',
        attempt_count: 1,
        next_attempt_at: null,
        delivered_at: expect.any(String),
        payload: { id: deliveredId, event: 'payment.paid', payment_id: paymentId, status: 'paid' },
      });
      expect(delivered.attempts).toStrictEqual([
        {
          attempt: 1,
          url: h.receiver.url(),
          started_at: expect.any(String),
          finished_at: expect.any(String),
          duration_ms: expect.any(Number),
          status_code: 200,
          outcome: 'delivered',
          error: null,
          response_body: '',
          next_attempt_at: null,
        },
      ]);
      expect(events[0]).toMatchObject({
        delivery_status: 'pending',
        next_attempt_at: expect.any(String),
        attempts: [
          { status_code: 500, outcome: 'retry', response_body: 'boom', next_attempt_at: expect.any(String) },
        ],
      });
    });

    it('filters by payment', async () => {
      const { events } = (await merchantGet(`?payment_id=${paymentId}`)).json();
      expect(events.map((e: { id: string }) => e.id)).toStrictEqual([deliveredId]);
    });

    it('shows another merchant nothing: its list is empty and our payment is the same 404 as a missing one', async () => {
      expect((await merchantGet('', other.apiKey)).json()).toStrictEqual({ events: [] });
      for (const id of [paymentId, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const response = await merchantGet(`?payment_id=${id}`, other.apiKey);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toStrictEqual(NOT_FOUND);
      }
    });

    it('requires the API key, before anything else', async () => {
      const response = await h.api.app.inject({ method: 'GET', url: '/payments/api/webhooks/?limit=nope' });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toStrictEqual({ error: 'Invalid or missing API key', code: 'UNAUTHORIZED' });
    });

    it('refuses a bad limit with a validation error', async () => {
      for (const limit of ['0', '101', 'x']) {
        const response = await merchantGet(`?limit=${limit}`);
        expect(response.statusCode, limit).toBe(400);
        expect(response.json()).toMatchObject({
          code: 'VALIDATION_ERROR',
          field: expect.stringMatching(/limit/),
        });
      }
    });
  });

  describe('/admin/api/webhooks/', () => {
    it('lists events of every merchant, filtered by status, payment or merchant', async () => {
      const pending = (await h.api.admin('GET', '/admin/api/webhooks/?status=pending')).json();
      expect(pending.events.map((e: { id: string }) => e.id)).toStrictEqual([failingId]);
      const byPayment = (await h.api.admin('GET', `/admin/api/webhooks/?payment_id=${paymentId}`)).json();
      expect(byPayment.events.map((e: { id: string }) => e.id)).toStrictEqual([deliveredId]);
      const byMerchant = (await h.api.admin('GET', `/admin/api/webhooks/?merchant_id=${other.id}`)).json();
      expect(byMerchant.events).toStrictEqual([]);
      const bad = await h.api.admin('GET', '/admin/api/webhooks/?status=lost');
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'status' });
    });

    it('shows one event, and 404s an unknown one', async () => {
      const shown = await h.api.admin('GET', `/admin/api/webhooks/${deliveredId}/`);
      expect(shown.json()).toMatchObject({ id: deliveredId, attempts: [{ attempt: 1 }] });
      const missing = await h.api.admin('GET', '/admin/api/webhooks/evt_nope/');
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toStrictEqual({ error: 'Webhook event not found', code: 'NOT_FOUND' });
    });

    it('resends an event: due at once, fresh schedule, same id and body', async () => {
      const response = await h.api.admin('POST', `/admin/api/webhooks/${deliveredId}/resend/`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        id: deliveredId,
        delivery_status: 'pending',
        next_attempt_at: h.api.clock.now().toISOString(),
      });
      const before = h.receiver.received.length;
      await dispatchWebhooks(h.dispatcher());
      const resent = h.receiver.received.slice(before).filter((r) => r.headers['webhook-id'] === deliveredId);
      expect(resent).toHaveLength(1);
      const original = h.receiver.received.find((r) => r.headers['webhook-id'] === deliveredId)!;
      expect(resent[0]!.body.equals(original.body)).toBe(true);
      const shown = (await h.api.admin('GET', `/admin/api/webhooks/${deliveredId}/`)).json();
      expect(shown).toMatchObject({ delivery_status: 'delivered', attempt_count: 2 });
      expect((await h.api.admin('POST', '/admin/api/webhooks/evt_nope/resend/')).statusCode).toBe(404);
    });

    it('refuses to resend an event a worker is delivering right now', async () => {
      const eventId = await h.pay(await h.createPayment());
      const claimed = await h.api.stores.webhooks.claimDue(h.api.clock.now(), 100, 60_000);
      expect(claimed.map((j) => j.eventId)).toContain(eventId);
      const response = await h.api.admin('POST', `/admin/api/webhooks/${eventId}/resend/`);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ code: 'CONFLICT' });
      // Once the lease has run out the worker is presumed dead, and a resend is allowed.
      h.api.clock.advance(60_000);
      expect((await h.api.admin('POST', `/admin/api/webhooks/${eventId}/resend/`)).statusCode).toBe(200);
    });

    it('rotates a merchant’s webhook secret, showing the new one once', async () => {
      const response = await h.api.admin('POST', `/admin/api/merchants/${other.id}/rotate-webhook-secret/`, {
        overlap: '2h',
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(body.merchant).toMatchObject({ public_id: other.id });
      expect(body.merchant.webhook_secret).toBeUndefined();
      expect(body.previous_secret_valid_until).toBe(
        new Date(h.api.clock.now().getTime() + 7_200_000).toISOString(),
      );
      expect(
        (await h.api.admin('POST', '/admin/api/merchants/mch_nope/rotate-webhook-secret/', {})).json(),
      ).toStrictEqual({ error: 'Merchant not found', code: 'NOT_FOUND' });
      const bad = await h.api.admin('POST', `/admin/api/merchants/${other.id}/rotate-webhook-secret/`, {
        overlap: 'later',
      });
      expect(bad.statusCode).toBe(400);
      expect(h.api.logs()).not.toContain(body.webhook_secret.slice(6));
    });

    it('a rotated secret signs the next webhook (the old one too, during the overlap)', async () => {
      const rotated = (
        await h.api.admin('POST', `/admin/api/merchants/${h.merchant.id}/rotate-webhook-secret/`, {
          overlap: '1h',
        })
      ).json();
      const before = h.receiver.received.length;
      await h.pay(await h.createPayment());
      await dispatchWebhooks(h.dispatcher());
      const received = h.receiver.received[before]!;
      verifyAsMerchant(rotated.webhook_secret, received);
      verifyAsMerchant(h.merchant.webhookSecret, received);
    });

    it('is behind the admin token', async () => {
      for (const [method, url] of [
        ['GET', '/admin/api/webhooks/'],
        ['GET', `/admin/api/webhooks/${deliveredId}/`],
        ['POST', `/admin/api/webhooks/${deliveredId}/resend/`],
        ['POST', `/admin/api/merchants/${other.id}/rotate-webhook-secret/`],
      ] as const) {
        const response = await h.api.admin(method, url, undefined, 'wrong-token-wrong-token-wrong');
        expect(response.statusCode, url).toBe(401);
        expect(response.json()).toStrictEqual({
          error: 'Invalid or missing admin token',
          code: 'UNAUTHORIZED',
        });
      }
    });
  });
});

describe.each(dialects)('webhook URLs refused when configured, %s', (dialect) => {
  let api: ApiHarness;
  let apiKey: string;
  beforeAll(async () => {
    api = await startApiHarness(dialect);
    apiKey = (await api.merchant()).apiKey;
  });
  afterAll(() => api.close());

  const BLOCKED: [string, string][] = [
    ['https://127.0.0.1/hooks', 'a loopback'],
    ['https://2130706433/hooks', 'a loopback'],
    ['https://0x7f000001/hooks', 'a loopback'],
    ['https://[::1]/hooks', 'a loopback'],
    ['https://10.0.0.5/hooks', 'a private'],
    ['https://[fd00::5]/hooks', 'a private'],
    ['https://169.254.0.9/hooks', 'a link-local'],
    ['https://[fe80::9]/hooks', 'a link-local'],
    ['https://100.64.0.9/hooks', 'a carrier-grade NAT'],
    ['https://239.0.0.9/hooks', 'a multicast'],
    ['https://0.0.0.0/hooks', 'an unspecified'],
    ['https://169.254.169.254/hooks', 'a cloud metadata'],
    ['https://[::ffff:10.0.0.5]/hooks', 'an IPv4-mapped'],
  ];

  it('as a merchant’s default URL (admin API), for each blocked address family', async () => {
    for (const [url, reason] of [
      ...BLOCKED,
      ['https://localhost/hooks', 'public host'] as [string, string],
    ]) {
      const response = await api.admin('POST', '/admin/api/merchants/', { name: 'Shop', webhook_url: url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'webhook_url' });
      expect(response.json().error).toContain(reason);
    }
  });

  it('as a payment’s own URL (merchant API), for each blocked address family', async () => {
    for (const [url, reason] of BLOCKED) {
      const response = await api.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: JSON.stringify({ amount: '10', currency: 'USD', webhook_url: url }),
      });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toStrictEqual({
        error: `webhook_url: must not point to ${reason} address`,
        code: 'VALIDATION_ERROR',
        field: 'webhook_url',
        details: [{ field: 'webhook_url', message: `must not point to ${reason} address` }],
      });
    }
  });

  it('when the name resolves to a blocked address; an unresolvable name is left to the connect-time check', async () => {
    const resolver: HostResolver = {
      async resolve(host) {
        if (host === 'hooks.internal-corp.example') return ['93.184.215.14', '10.20.30.40'];
        if (host === 'hooks.shop.example') return ['93.184.215.14'];
        throw new Error('ENOTFOUND');
      },
    };
    const deps = {
      merchants: api.stores.merchants,
      clock: api.clock,
      webhookAllowPrivate: false,
      hostResolver: resolver,
    };
    const create = (webhookUrl: string) => createMerchant(deps, { name: 'Shop', webhookUrl });
    await expect(create('https://hooks.internal-corp.example/x')).rejects.toThrow(
      new ValidationError(
        'webhook_url',
        'must not point to a private address (hooks.internal-corp.example resolves to 10.20.30.40)',
      ),
    );
    await expect(create('https://hooks.shop.example/x')).resolves.toBeDefined();
    await expect(create('https://not-yet.shop.example/x')).resolves.toBeDefined();
  });
});
