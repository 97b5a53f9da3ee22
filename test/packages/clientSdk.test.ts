import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PaylinkApiError,
  PaylinkClient,
  type PaylinkClientOptions,
  PaylinkConnectionError,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from '../../packages/client/src/index.ts';
import { parseRetryAfter } from '../../packages/client/src/retry.ts';
import { GENERATED_TYPES_PATH, generateClientTypes } from '../../scripts/generate-client-types.ts';
import { dispatchWebhooks } from '../../src/app/webhooks/dispatchWebhooks.ts';
import { signWebhook } from '../../src/domain/webhookSignature.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { UUID_V4, UUID_V7 } from '../helpers/ids.ts';
import { freePort } from '../helpers/net.ts';
import { startWebhookHarness, type WebhookHarness } from '../helpers/webhookHarness.ts';
import { WebhookReceiver } from '../helpers/webhookReceiver.ts';

const UNKNOWN_PAYMENT = '00000000-0000-4000-8000-000000000000';

/** A fetch that records each request's method, URL and headers, then sends it for real. */
function recordingFetch() {
  const requests: { method: string; url: string; headers: Record<string, string> }[] = [];
  const fetchAndRecord: typeof fetch = (input, init) => {
    requests.push({
      method: init?.method ?? 'GET',
      url: String(input),
      headers: { ...(init?.headers as Record<string, string>) },
    });
    return fetch(input, init);
  };
  return { requests, fetch: fetchAndRecord };
}

/**
 * The merchant's webhook endpoint of docs/merchant-guide.md's quick start, as written there (node:http, the raw
 * body, verifyWebhook, 204 or 400): the events it accepted are kept for the test.
 */
async function quickStartWebhookEndpoint(secret: string) {
  const accepted: WebhookEvent[] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    try {
      const event = await verifyWebhook(Buffer.concat(chunks), request.headers, secret);
      accepted.push(event);
      response.writeHead(204).end();
    } catch (error) {
      response.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    accepted,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/paylink`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(dialects)('the client SDK against the real server on %s', (dialect) => {
  let h: WebhookHarness;
  let baseUrl: string;
  let endpoint: Awaited<ReturnType<typeof quickStartWebhookEndpoint>>;
  let paylink: PaylinkClient;

  beforeAll(async () => {
    h = await startWebhookHarness(dialect);
    // Webhooks are signed at the server's "now", and the quick start verifies against the real clock.
    h.api.clock.set(new Date());
    baseUrl = await h.api.app.listen({ host: '127.0.0.1', port: 0 });
    endpoint = await quickStartWebhookEndpoint(h.merchant.webhookSecret);
    paylink = new PaylinkClient({ apiKey: h.merchant.apiKey, baseUrl });
  });
  afterAll(async () => {
    await endpoint?.close();
    await h?.close();
  });

  it('runs the quick start: creates a payment, reads its status, verifies its webhook in an HTTP handler', async () => {
    const payment = await paylink.createPayment(
      { amount: '49.90', currency: 'EUR', order_id: 'order-1042', webhook_url: endpoint.url },
      { idempotencyKey: 'order-1042' },
    );
    expect(payment).toMatchObject({
      success: true,
      payment_id: expect.stringMatching(UUID_V7),
      details: { amount: '49.90', currency: 'EUR', usdc_amount: '53.90' },
    });
    expect(payment.payment_url).toBe(`https://pay.example.test/pay/${payment.payment_id}`);

    const pending = await paylink.getPayment(payment.payment_id);
    expect(pending).toMatchObject({ payment_id: payment.payment_id, status: 'pending', amount: '49.90' });

    const eventId = await h.pay(payment.payment_id);
    await dispatchWebhooks(h.dispatcher());
    expect(endpoint.accepted).toHaveLength(1);
    const event = endpoint.accepted[0]!;
    expect(event).toMatchObject({
      id: eventId,
      event: 'payment.paid',
      payment_id: payment.payment_id,
      order_id: 'order-1042',
      amount: '49.90',
      amount_received: '53.90',
    });
    expect((await paylink.getPayment(payment.payment_id)).status).toBe('paid');
  });

  it('sends a fresh idempotency key with every create, and the same key gives the same payment', async () => {
    const recorder = recordingFetch();
    const client = new PaylinkClient({ apiKey: h.merchant.apiKey, baseUrl, fetch: recorder.fetch });
    const first = await client.createPayment({ amount: '5', currency: 'USDC' });
    const second = await client.createPayment({ amount: '5', currency: 'USDC' });
    const keys = recorder.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toStrictEqual([expect.stringMatching(UUID_V4), expect.stringMatching(UUID_V4)]);
    expect(keys[0]).not.toBe(keys[1]);
    expect(second.payment_id).not.toBe(first.payment_id);

    const again = await client.createPayment({ amount: '5', currency: 'USDC' }, { idempotencyKey: keys[0]! });
    expect(again.payment_id).toBe(first.payment_id);

    await client.createPayment({ amount: '5', currency: 'USDC' }, { idempotencyKey: null });
    expect(recorder.requests.at(-1)!.headers).not.toHaveProperty('idempotency-key');
  });

  it('lists payments by order and page, converts, and exports CSV', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      // Newest first: each a second after the last (the server's clock stands still otherwise).
      h.api.clock.advance(1_000);
      ids.push(
        (await paylink.createPayment({ amount: `1.0${i}`, currency: 'USDC', order_id: 'sdk-list' }))
          .payment_id,
      );
    }
    const firstPage = await paylink.listPayments({ order_id: 'sdk-list', limit: 2 });
    expect(firstPage.payments.map((p) => p.payment_id)).toStrictEqual([ids[2], ids[1]]);
    expect(firstPage.next_cursor).toEqual(expect.any(String));
    const lastPage = await paylink.listPayments({ order_id: 'sdk-list', cursor: firstPage.next_cursor! });
    expect(lastPage).toMatchObject({ payments: [{ payment_id: ids[0], amount: '1.00' }], next_cursor: null });

    expect(await paylink.convert({ amount: '100.10', currency: 'EUR' })).toStrictEqual({
      amount: '100.10',
      currency: 'EUR',
      usdc_amount: '108.11',
      exchange_rate: '1.08',
    });

    const csv = await paylink.exportPayments();
    expect(csv.split('\n')[0]).toMatch(/^payment_id,/);
    for (const id of ids) expect(csv).toContain(id);
  });

  it('creates, reads, lists, exports and cancels a refund', async () => {
    const paymentId = await h.createPayment();
    await h.pay(paymentId);
    const recorder = recordingFetch();
    const client = new PaylinkClient({ apiKey: h.merchant.apiKey, baseUrl, fetch: recorder.fetch });

    const refund = await client.createRefund({
      payment_id: paymentId,
      amount: '4.00',
      reason: 'one item back',
    });
    expect(recorder.requests[0]!.headers['idempotency-key']).toMatch(UUID_V4);
    expect(refund).toMatchObject({
      payment_id: paymentId,
      status: 'awaiting_address',
      amount: '4.00',
      currency: 'USDC',
      claim_url: expect.any(String),
    });
    expect(await client.getRefund(refund.refund_id)).toMatchObject({
      refund_id: refund.refund_id,
      amount: '4.00',
    });
    expect(
      (await client.listRefunds({ payment_id: paymentId })).refunds.map((r) => r.refund_id),
    ).toStrictEqual([refund.refund_id]);
    expect(await client.exportRefunds()).toContain(refund.refund_id);

    expect(await client.cancelRefund(refund.refund_id)).toMatchObject({ status: 'canceled' });
    const again = await client.cancelRefund(refund.refund_id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(PaylinkApiError);
    expect(again).toMatchObject({ status: 409, code: 'REFUND_NOT_CANCELABLE' });
  });

  it('makes a reusable link, pays through it, reads who paid, and deactivates it', async () => {
    const link = await paylink.createLink({
      title: 'Tips',
      price_type: 'open',
      currency: 'USDC',
      min_amount: '1',
      max_amount: '100',
      suggested_amounts: ['5', '10'],
      max_uses: 5,
      success_url: 'https://shop.example/thanks',
      metadata: { jar: 'bar' },
    });
    expect(link).toMatchObject({
      url: `https://pay.example.test/l/${link.link_id}`,
      price_type: 'open',
      min_amount: '1.00',
      max_amount: '100.00',
      suggested_amounts: ['5.00', '10.00'],
      max_uses: 5,
      active: true,
    });
    const created = await paylink.payLink(link.link_id, { amount: '7.25' });
    expect(created.details).toMatchObject({ amount: '7.25', currency: 'USDC' });
    await h.pay(created.payment_id);
    expect(await paylink.getPayment(created.payment_id)).toMatchObject({
      status: 'paid',
      link_id: link.link_id,
      metadata: { jar: 'bar' },
      success_url: `https://shop.example/thanks?payment_id=${created.payment_id}`,
    });
    expect(await paylink.getLink(link.link_id)).toMatchObject({ payments_paid: 1, amount_paid: '7.25' });
    expect((await paylink.listLinks({ limit: 100 })).links.map((l) => l.link_id)).toContain(link.link_id);

    expect(await paylink.deactivateLink(link.link_id)).toMatchObject({ active: false });
    const refused = await paylink.payLink(link.link_id, { amount: '5' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaylinkApiError);
    expect(refused).toMatchObject({ status: 409, code: 'LINK_UNAVAILABLE' });

    const fixed = await paylink.createLink({
      title: 'Mug',
      price_type: 'fixed',
      currency: 'EUR',
      amount: '12.00',
      max_quantity: 4,
    });
    expect((await paylink.payLink(fixed.link_id, { quantity: 4 })).details.amount).toBe('48.00');
  });

  it('sends metadata and the customer URLs with a payment', async () => {
    const created = await paylink.createPayment({
      amount: '3',
      currency: 'USDC',
      cancel_url: 'https://shop.example/cart?step=2',
      metadata: { cart_id: 'c_1234' },
    });
    expect(await paylink.getPayment(created.payment_id)).toMatchObject({
      cancel_url: `https://shop.example/cart?step=2&payment_id=${created.payment_id}`,
      metadata: { cart_id: 'c_1234' },
    });
  });

  it('asks for the payment request e-mail, in the customer’s language, with an expiry', async () => {
    const created = await paylink.createPayment({
      amount: '18.00',
      currency: 'EUR',
      customer_email: 'eve@example.es',
      customer_language: 'es-MX',
      send_email: true,
      expires_in: 7_200,
    });
    expect(new Date(created.details.expires_at).getTime() - h.api.clock.now().getTime()).toBe(7_200_000);
    expect(await paylink.getPayment(created.payment_id)).toMatchObject({ customer_language: 'es' });
    const queued = await h.api.stores.emails.list({ paymentId: created.payment_id, limit: 10 });
    expect(queued.map((m) => [m.kind, m.recipient, m.language])).toEqual([
      ['payment_request', 'eve@example.es', 'es'],
    ]);
    const refused = await paylink
      .createPayment({ amount: '1', currency: 'USDC', send_email: true })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', field: 'customer_email' });
  });

  it('reads the webhook delivery log of a payment', async () => {
    const paymentId = await h.createPayment();
    const eventId = await h.pay(paymentId);
    await dispatchWebhooks(h.dispatcher());
    const { events } = await paylink.listWebhookEvents({ payment_id: paymentId, limit: 5 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      id: eventId,
      event: 'payment.paid',
      delivery_status: 'delivered',
      attempts: [{ attempt: 1, status_code: 204, outcome: 'delivered' }],
    });
  });

  it('manages a webhook endpoint, verifies what it receives with its secret, and reads the event back', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const made = await paylink.createWebhookEndpoint({
        url: receiver.url(),
        event_types: ['payment.paid'],
      });
      expect(made).toMatchObject({
        enabled: true,
        event_types: ['payment.paid'],
        secret: expect.any(String),
      });
      const eventId = await h.pay(await h.createPayment());
      await dispatchWebhooks(h.dispatcher());
      const [received] = receiver.received;
      const verified = await verifyWebhook(received!.body, received!.headers, made.secret);
      expect(verified.id).toBe(eventId);
      const event = await paylink.getEvent(eventId);
      expect(event).toMatchObject({ id: eventId, event: 'payment.paid', data: { id: eventId } });
      // Every event of this file shares the clock's moment: the page holds them all, this one among them.
      const page = await paylink.listEvents({ type: 'payment.paid', limit: 100 });
      expect(page.events.map((listed) => listed.id)).toContain(eventId);
      expect(page.events.every((listed) => listed.event === 'payment.paid')).toBe(true);

      const rotated = await paylink.rotateWebhookEndpointSecret(made.id, { overlap: '0' });
      expect(rotated.secret).not.toBe(made.secret);
      expect(rotated.previous_secret_expires_at).toBeNull();
      const disabled = await paylink.updateWebhookEndpoint(made.id, { enabled: false });
      expect(disabled.enabled).toBe(false);
      expect((await paylink.listWebhookEndpoints()).webhook_endpoints.map((e) => e.id)).toContain(made.id);
      expect(await paylink.deleteWebhookEndpoint(made.id)).toStrictEqual({ id: made.id, deleted: true });
      await expect(paylink.getWebhookEndpoint(made.id)).rejects.toMatchObject({
        code: 'NOT_FOUND',
        status: 404,
      });
    } finally {
      await receiver.stop();
    }
  });

  it('makes a restricted key that works only within its scopes, lists it, and revokes it', async () => {
    const created = await paylink.createKey({ name: 'Bookkeeping', scopes: ['payments:read'] });
    expect(created).toMatchObject({ kind: 'restricted', scopes: ['payments:read'], status: 'active' });
    const reader = new PaylinkClient({ apiKey: created.key, baseUrl });
    expect((await reader.listPayments({ limit: 1 })).payments).toBeInstanceOf(Array);
    await expect(reader.createPayment({ amount: '5', currency: 'USDC' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      message: 'This restricted API key lacks the scope payments:write',
    });
    await expect(reader.createKey({ name: 'Wider', scopes: ['payments:write'] })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const { keys } = await paylink.listKeys();
    expect(keys.find((key) => key.id === created.id)).not.toHaveProperty('key');
    expect((await paylink.revokeKey(created.id)).status).toBe('revoked');
    await expect(reader.listPayments()).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it('throws typed errors carrying the API’s code, and does not retry them', async () => {
    const recorder = recordingFetch();
    const client = new PaylinkClient({ apiKey: h.merchant.apiKey, baseUrl, fetch: recorder.fetch });
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );

    const invalid = await failure(client.createPayment({ amount: '10', currency: 'NOPE' }));
    expect(invalid).toBeInstanceOf(PaylinkApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', field: 'currency', attempts: 1 });
    expect((invalid as PaylinkApiError).requestId).toEqual(expect.any(String));
    // Every bad field, not only the first.
    const twoBad = await failure(client.createPayment({ amount: '-1', currency: 'NOPE' }));
    expect((twoBad as PaylinkApiError).details.map((d) => d.field).sort()).toEqual(['amount', 'currency']);

    expect(await failure(client.getPayment(UNKNOWN_PAYMENT))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      attempts: 1,
    });
    expect(recorder.requests).toHaveLength(3);

    const wrongKey = new PaylinkClient({ apiKey: 'sk_live_not-a-real-key', baseUrl });
    const unauthorized = await failure(wrongKey.listPayments());
    expect(unauthorized).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
      message: 'Invalid or missing API key',
    });
    // The key is never repeated in what the client throws.
    expect(JSON.stringify(unauthorized) + String(unauthorized)).not.toContain('not-a-real-key');
  });
});

describe.each(dialects)('the client SDK against the real server’s rate limit on %s', (dialect) => {
  let h: ApiHarness;
  let baseUrl: string;
  let apiKey: string;

  beforeAll(async () => {
    // One request a minute per key; the harness's clock stands still unless the test moves it.
    h = await startApiHarness(dialect, { env: { PAYLINK_RATE_LIMIT: '1/m', PAYLINK_RATE_LIMIT_BURST: '1' } });
    baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
    apiKey = (await h.merchant()).apiKey;
  });
  afterAll(() => h?.close());

  it('waits as long as Retry-After says, then succeeds', async () => {
    const waits: number[] = [];
    const client = new PaylinkClient({
      apiKey,
      baseUrl,
      // Waiting moves the server's clock: its bucket refills exactly as it would have in real time.
      sleep: async (ms) => {
        waits.push(ms);
        h.clock.advance(ms);
      },
    });
    const created = await client.createPayment({ amount: '2', currency: 'USDC' }, { idempotencyKey: null });
    expect((await client.getPayment(created.payment_id)).status).toBe('pending');
    expect(waits).toStrictEqual([60_000]);
  });

  it('gives up after the configured attempts, with the last answer’s code', async () => {
    const waits: number[] = [];
    const client = new PaylinkClient({
      apiKey,
      baseUrl,
      retry: { maxAttempts: 4 },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const error = await client.listPayments().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaylinkApiError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', attempts: 4 });
    expect(waits).toStrictEqual([60_000, 60_000, 60_000]);
  });
});

interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** A stand-in API answering from a script, one answer per request, recording what it was sent. */
class ScriptedServer {
  readonly requests: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];
  private server: Server | undefined;
  baseUrl = '';

  constructor(private readonly answers: ScriptedAnswer[]) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      this.requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
      request.resume();
      const answer = this.answers.shift();
      if (!answer) return; // Hold the request: a server that never answers.
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body ?? '{}');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

const error = (status: number, code: string, headers: Record<string, string> = {}): ScriptedAnswer => ({
  status,
  headers,
  body: JSON.stringify({ error: `${code} happened`, code }),
});
const OK_STATUS: ScriptedAnswer = {
  status: 200,
  body: JSON.stringify({ payment_id: UNKNOWN_PAYMENT, status: 'pending' }),
};
const CREATED: ScriptedAnswer = {
  status: 201,
  body: JSON.stringify({ success: true, payment_id: UNKNOWN_PAYMENT }),
};

describe('the client SDK’s retries', () => {
  let server: ScriptedServer;
  let waits: number[];
  const client = (options: Partial<PaylinkClientOptions> = {}) =>
    new PaylinkClient({
      apiKey: 'sk_test_scripted',
      baseUrl: server.baseUrl,
      sleep: async (ms) => {
        waits.push(ms);
      },
      ...options,
    });
  const serve = async (...answers: ScriptedAnswer[]) => {
    server = await new ScriptedServer(answers).start();
    waits = [];
  };
  afterEach(() => server?.stop());

  it('retries a read after 503 and 429, waiting what Retry-After says', async () => {
    await serve(
      error(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' }),
      error(429, 'RATE_LIMITED', { 'retry-after': '2' }),
      OK_STATUS,
    );
    expect(await client().getPayment('p-1')).toMatchObject({ status: 'pending' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toStrictEqual(
      Array(3).fill('GET /payments/api/status/p-1/'),
    );
    expect(waits).toStrictEqual([1_000, 2_000]);
  });

  it('reads Retry-After as delay-seconds or as an HTTP date', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:02:00 GMT', now)).toBe(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('backs off exponentially with jitter when no Retry-After is given, and gives up after maxAttempts', async () => {
    await serve(...Array(4).fill(error(503, 'SERVICE_UNAVAILABLE')));
    const failure = await client({ retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 250 } })
      .listPayments()
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', attempts: 4 });
    expect(server.requests).toHaveLength(4);
    expect(waits).toHaveLength(3);
    // Up to 100, 200, then 250 (the cap) ms.
    for (const [i, ceiling] of [100, 200, 250].entries()) {
      expect(waits[i]).toBeGreaterThanOrEqual(0);
      expect(waits[i]).toBeLessThan(ceiling);
    }
  });

  it('does not retry a 400, nor wait for a Retry-After beyond maxRetryAfterMs', async () => {
    await serve(error(400, 'VALIDATION_ERROR'), error(429, 'RATE_LIMITED', { 'retry-after': '3600' }));
    expect(
      await client()
        .getPayment('p-1')
        .catch((e: unknown) => e),
    ).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      attempts: 1,
    });
    expect(
      await client()
        .getPayment('p-1')
        .catch((e: unknown) => e),
    ).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      attempts: 1,
    });
    expect(server.requests).toHaveLength(2);
    expect(waits).toStrictEqual([]);
  });

  it('retries a create with the same idempotency key on every attempt', async () => {
    await serve(error(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }), CREATED);
    await client().createPayment({ amount: '1', currency: 'USDC' });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(UUID_V4);
    expect(keys[1]).toBe(keys[0]);
  });

  it('asks again while the first attempt of the same idempotency key is still running', async () => {
    await serve(error(409, 'IDEMPOTENCY_IN_PROGRESS'), CREATED, error(409, 'IDEMPOTENCY_KEY_REUSED'));
    await client().createPayment({ amount: '1', currency: 'USDC' }, { idempotencyKey: 'order-7' });
    // Reused for another body is final: not asked again.
    expect(
      await client()
        .createPayment({ amount: '1', currency: 'USDC' })
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED', attempts: 1 });
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toStrictEqual([
      'order-7',
      'order-7',
      expect.stringMatching(UUID_V4),
    ]);
  });

  it('retries a create without idempotency key only after a 429 or a 503 TOO_MANY_CONNECTIONS, which the server gives without handling it', async () => {
    await serve(error(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }), CREATED);
    const failure = await client()
      .createPayment({ amount: '1', currency: 'USDC' }, { idempotencyKey: null })
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', attempts: 1 });
    expect(server.requests).toHaveLength(1);
    await server.stop();

    await serve(error(429, 'RATE_LIMITED', { 'retry-after': '0' }), CREATED);
    expect(
      await client().createPayment({ amount: '1', currency: 'USDC' }, { idempotencyKey: null }),
    ).toMatchObject({ payment_id: UNKNOWN_PAYMENT });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.headers).not.toHaveProperty('idempotency-key');
    await server.stop();

    await serve(error(503, 'TOO_MANY_CONNECTIONS', { 'retry-after': '0' }), CREATED);
    expect(
      await client().createPayment({ amount: '1', currency: 'USDC' }, { idempotencyKey: null }),
    ).toMatchObject({ payment_id: UNKNOWN_PAYMENT });
    expect(server.requests).toHaveLength(2);
  });

  it('keeps the status of an answer that is not the API’s error shape', async () => {
    await serve({ status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad gateway</h1>' });
    expect(
      await client()
        .getPayment('p-1')
        .catch((e: unknown) => e),
    ).toMatchObject({
      status: 502,
      code: 'HTTP_502',
      attempts: 1,
    });
  });

  it('retries a read that got no answer, then reports TIMEOUT; a create without key is sent once', async () => {
    await serve();
    const read = await client({ timeoutMs: 200, retry: { maxAttempts: 2 } })
      .getPayment('p-1')
      .catch((e: unknown) => e);
    expect(read).toBeInstanceOf(PaylinkConnectionError);
    expect(read).toMatchObject({ code: 'TIMEOUT', attempts: 2 });
    expect(server.requests).toHaveLength(2);

    const create = await client({ timeoutMs: 200, retry: { maxAttempts: 2 } })
      .createPayment({ amount: '1', currency: 'USDC' }, { idempotencyKey: null })
      .catch((e: unknown) => e);
    expect(create).toMatchObject({ code: 'TIMEOUT', attempts: 1 });
    expect(server.requests).toHaveLength(3);
  });

  it('reports CONNECTION_ERROR when nothing listens', async () => {
    await serve();
    const port = await freePort();
    const failure = await client({ baseUrl: `http://127.0.0.1:${port}`, retry: { maxAttempts: 3 } })
      .listRefunds()
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PaylinkConnectionError);
    expect(failure).toMatchObject({ code: 'CONNECTION_ERROR', attempts: 3 });
    expect(waits).toHaveLength(2);
  });
});

describe('the client SDK as a package of its own', () => {
  const packageDir = fileURLToPath(new URL('../../packages/client/', import.meta.url));
  let outDir: string;
  afterAll(() => outDir && rmSync(outDir, { recursive: true, force: true }));

  it('has no runtime dependencies, compiles alone, and its built code runs on plain Node', async () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@paylink/client', type: 'module' });
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      expect(manifest).not.toHaveProperty(field);
    }

    outDir = mkdtempSync(join(tmpdir(), 'paylink-client-'));
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', packageDir, '--outDir', outDir]);
    // Everything it imports is its own: nothing from the server, nothing from node_modules.
    const built = readdirSync(outDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    expect(built).toContain('index.js');
    for (const file of built) {
      const imports = [...readFileSync(join(outDir, file), 'utf8').matchAll(/from\s+["']([^"']+)["']/g)];
      for (const [, specifier] of imports) expect(specifier, file).toMatch(/^\.\.?\/.*\.js$/);
    }

    // The built module, outside vitest and tsx, verifies a signature made by the server's signer.
    writeFileSync(join(outDir, 'package.json'), '{"type": "module"}');
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = '{"id":"evt_1","event":"payment.paid"}';
    const headers = signWebhook({ id: 'evt_1', timestamp: new Date(), body, secrets: [secret] });
    const script = `
      import { verifyWebhook, PaylinkClient } from ${JSON.stringify(join(outDir, 'index.js'))};
      const event = await verifyWebhook(process.argv[1], JSON.parse(process.argv[2]), process.argv[3]);
      console.log(JSON.stringify({ event: event.event, client: typeof PaylinkClient }));
    `;
    const output = await run(process.execPath, [
      '--input-type=module',
      '-e',
      script,
      body,
      JSON.stringify(headers),
      secret,
    ]);
    expect(JSON.parse(output)).toStrictEqual({ event: 'payment.paid', client: 'function' });
  });
});

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stdout}${stderr}`)) : resolve(stdout),
    ),
  );
}

describe('the client SDK’s generated types', () => {
  it('are what `npm run generate:client` makes from the server’s routes now', async () => {
    // Fails when a merchant route changed without regenerating the SDK's types.
    expect(
      await generateClientTypes(),
      'packages/client is out of date: run `npm run generate:client` and commit the result',
    ).toBe(readFileSync(GENERATED_TYPES_PATH, 'utf8'));
  });
});
