import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/db/database.ts';
import { webhookRepository } from '../../src/adapters/db/webhookRepository.ts';
import { createWebhookSender } from '../../src/adapters/outbound/webhookSender.ts';
import { dispatchWebhooks, runWebhookDispatcher } from '../../src/app/webhooks/dispatchWebhooks.ts';
import { getWebhookEvent } from '../../src/app/webhooks/listWebhookEvents.ts';
import { rotateWebhookSecret } from '../../src/app/webhooks/rotateWebhookSecret.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../../src/domain/webhookRetry.ts';
import { dialects } from '../helpers/database.ts';
import {
  startWebhookHarness,
  TEST_WEBHOOK_TIMEOUT_MS,
  type WebhookHarness,
} from '../helpers/webhookHarness.ts';
import { plainHeaders, verifyAsMerchant } from '../helpers/webhookReceiver.ts';

describe.each(dialects)('webhook delivery on %s', (dialect) => {
  let h: WebhookHarness;
  beforeEach(async () => {
    h = await startWebhookHarness(dialect);
  });
  afterEach(() => h.close());

  const dispatch = () => dispatchWebhooks(h.dispatcher());
  const logged = (eventId: string) => getWebhookEvent(h.api.stores, eventId);
  const storedPayload = async (eventId: string) => (await h.api.stores.webhooks.findEvent(eventId))!.payload;

  it('delivers a status change to the payment’s URL, signed so that standardwebhooks verifies it', async () => {
    const paymentId = await h.createPayment();
    const eventId = await h.pay(paymentId);

    expect(await dispatch()).toMatchObject({ attempted: 1, delivered: 1, more: false });
    expect(h.receiver.received).toHaveLength(1);
    const request = h.receiver.received[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^Paylink-Webhook\/\d+\.\d+\.\d+$/);
    expect(request.headers['webhook-id']).toBe(eventId);
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(h.api.clock.now().getTime() / 1000)));
    // The stored bytes, unchanged, and a body a merchant's verifier accepts.
    expect(request.body.toString('utf8')).toBe(await storedPayload(eventId));
    const body = verifyAsMerchant(h.merchant.webhookSecret, request);
    expect(body).toMatchObject({
      id: eventId,
      event: 'payment.paid',
      payment_id: paymentId,
      merchant_order_id: 'order-1',
      order_id: 'order-1',
      status: 'paid',
      amount: '10.00',
      currency: 'USDC',
      usdc_amount: '10.00',
      payout_amount: expect.stringMatching(/^\d+\.\d+ USDC$/),
      coin_type: 'polygon_usdc',
      txid: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      paid_at: expect.any(String),
    });
    // Another merchant's secret does not verify it.
    expect(() =>
      new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify(
        request.body,
        plainHeaders(request.headers),
      ),
    ).toThrow();

    const { event, attempts } = await logged(eventId);
    expect(event).toMatchObject({
      deliveryStatus: 'delivered',
      attemptCount: 1,
      deliveredAt: h.api.clock.now(),
    });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      attemptNumber: 1,
      url: h.receiver.url(),
      statusCode: 204,
      outcome: 'delivered',
      error: null,
      nextAttemptAt: null,
      durationMs: expect.any(Number),
    });
    // Delivered means done: later passes send nothing.
    h.api.clock.advance(86_400_000);
    expect(await dispatch()).toMatchObject({ attempted: 0 });
    expect(h.receiver.received).toHaveLength(1);
  });

  it('500 then 200: retried after 5 s with the same webhook-id and byte-identical body', async () => {
    h.receiver.respond = (_request, index) =>
      index === 0 ? { status: 500, body: 'database is down' } : { status: 200, body: 'ok' };
    const eventId = await h.pay(await h.createPayment());

    expect(await dispatch()).toMatchObject({ attempted: 1, retrying: 1 });
    const afterFirst = await logged(eventId);
    expect(afterFirst.event).toMatchObject({ deliveryStatus: 'pending', attemptCount: 1 });
    expect(afterFirst.event.nextAttemptAt).toStrictEqual(new Date(h.api.clock.now().getTime() + 5_000));
    expect(afterFirst.attempts[0]).toMatchObject({
      statusCode: 500,
      outcome: 'retry',
      responseBody: 'database is down',
    });

    // Not due yet: nothing is sent before the retry time.
    h.api.clock.advance(4_999);
    expect(await dispatch()).toMatchObject({ attempted: 0 });
    h.api.clock.advance(1);
    expect(await dispatch()).toMatchObject({ attempted: 1, delivered: 1 });

    const [first, second] = h.receiver.received;
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(Number(second!.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp'])).toBe(
      5,
    );
    for (const request of [first!, second!]) verifyAsMerchant(h.merchant.webhookSecret, request);
    const { event, attempts } = await logged(eventId);
    expect(event.deliveryStatus).toBe('delivered');
    expect(attempts.map((a) => [a.attemptNumber, a.statusCode, a.outcome])).toStrictEqual([
      [1, 500, 'retry'],
      [2, 200, 'delivered'],
    ]);
  });

  it('410 Gone stops delivery for good', async () => {
    h.receiver.respond = () => ({ status: 410 });
    const eventId = await h.pay(await h.createPayment());
    expect(await dispatch()).toMatchObject({ attempted: 1, stopped: 1 });
    expect((await logged(eventId)).event).toMatchObject({ deliveryStatus: 'stopped', nextAttemptAt: null });
    h.api.clock.advance(7 * 86_400_000);
    expect(await dispatch()).toMatchObject({ attempted: 0 });
    expect(h.receiver.received).toHaveLength(1);
    expect(h.logs()).toContain('410 Gone');
  });

  it('a slow receiver: the timeout is recorded, then the retry delivers', async () => {
    h.receiver.respond = (_request, index) =>
      index === 0
        ? new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), TEST_WEBHOOK_TIMEOUT_MS * 4))
        : { status: 200 };
    const eventId = await h.pay(await h.createPayment());
    expect(await dispatch()).toMatchObject({ attempted: 1, retrying: 1 });
    const [timedOut] = (await logged(eventId)).attempts;
    expect(timedOut).toMatchObject({
      statusCode: null,
      outcome: 'retry',
      error: `timeout: no response within ${TEST_WEBHOOK_TIMEOUT_MS} ms`,
    });
    h.api.clock.advance(5_000);
    expect(await dispatch()).toMatchObject({ delivered: 1 });
    expect((await logged(eventId)).event.deliveryStatus).toBe('delivered');
  });

  it('a slow receiver holds one slot only: the other webhooks go out while it is still being waited for', async () => {
    const slow = await h.pay(await h.createPayment({ webhookUrl: h.receiver.url('/slow') }));
    h.api.clock.advance(1_000); // the slow event is the oldest, so it is claimed first
    for (let i = 0; i < 6; i++) await h.pay(await h.createPayment());
    const slowStillInFlight: boolean[] = [];
    h.receiver.respond = async (request) => {
      if (request.path === '/slow') return new Promise(() => {}); // never answers: the sender's timeout ends it
      const [slowAttempt] = await h.api.stores.webhooks.listAttempts([slow], 10);
      slowStillInFlight.push(slowAttempt?.finishedAt === null);
      return { status: 200 };
    };
    const result = await dispatchWebhooks(h.dispatcher({ config: { batchSize: 2 } }));
    expect(result).toMatchObject({ attempted: 7, delivered: 6, retrying: 1, more: false });
    expect(slowStillInFlight).toStrictEqual(Array(6).fill(true));
  });

  it('a redirect is a failure and is never followed', async () => {
    h.receiver.respond = (request) =>
      request.path === '/hooks'
        ? { status: 301, headers: { location: h.receiver.url('/elsewhere') } }
        : { status: 200 };
    const eventId = await h.pay(await h.createPayment());
    expect(await dispatch()).toMatchObject({ attempted: 1, retrying: 1 });
    expect(h.receiver.received.map((r) => r.path)).toStrictEqual(['/hooks']);
    expect((await logged(eventId)).attempts[0]).toMatchObject({ statusCode: 301, outcome: 'retry' });
  });

  it('walks the whole schedule, then fails the event and says so loudly', async () => {
    h.receiver.respond = () => ({ status: 503 });
    const eventId = await h.pay(await h.createPayment());
    const gaps: number[] = [];
    for (let attempt = 1; attempt <= 10; attempt++) {
      expect(await dispatch()).toMatchObject({ attempted: 1 });
      const { event } = await logged(eventId);
      if (event.nextAttemptAt) {
        gaps.push(event.nextAttemptAt.getTime() - h.api.clock.now().getTime());
        h.api.clock.advance(event.nextAttemptAt.getTime() - h.api.clock.now().getTime());
      }
    }
    expect(gaps).toStrictEqual([...DEFAULT_RETRY_SCHEDULE_MS]);
    const { event, attempts } = await logged(eventId);
    expect(event).toMatchObject({ deliveryStatus: 'failed', attemptCount: 10, nextAttemptAt: null });
    expect(attempts.map((a) => a.outcome)).toStrictEqual([...Array(9).fill('retry'), 'failed']);
    const failure = h
      .logs()
      .split('\n')
      .find((line) => line.includes('WEBHOOK DELIVERY FAILED'));
    expect(failure && JSON.parse(failure)).toMatchObject({ level: 50, event: eventId, attempt: 10 });
    h.api.clock.advance(30 * 86_400_000);
    expect(await dispatch()).toMatchObject({ attempted: 0 });
  });

  it('honours Retry-After within its bounds', async () => {
    h.receiver.respond = (_request, index) =>
      index === 0
        ? { status: 429, headers: { 'retry-after': '120' } }
        : { status: 503, headers: { 'retry-after': '1' } };
    const eventId = await h.pay(await h.createPayment());
    await dispatch();
    const start = h.api.clock.now().getTime();
    expect((await logged(eventId)).event.nextAttemptAt!.getTime() - start).toBe(120_000);
    h.api.clock.advance(120_000);
    await dispatch();
    // "Retry in 1 s" is clamped to the 5 s floor.
    expect((await logged(eventId)).event.nextAttemptAt!.getTime() - h.api.clock.now().getTime()).toBe(5_000);
  });

  it('uses the merchant’s default URL when the payment has none, and records an attempt when neither is set', async () => {
    await h.setMerchantWebhookUrl(h.receiver.url('/default'));
    const eventId = await h.pay(await h.createPayment({ webhookUrl: null }));
    await dispatch();
    expect(h.receiver.received.map((r) => r.path)).toStrictEqual(['/default']);
    expect((await logged(eventId)).event.deliveryStatus).toBe('delivered');

    const orphan = await h.pay(await h.createPayment({ webhookUrl: null }));
    await h.setMerchantWebhookUrl(null);
    await dispatch();
    expect((await logged(orphan)).attempts[0]).toMatchObject({
      url: null,
      error: 'no webhook URL configured',
      outcome: 'retry',
    });
  });

  it('signs with both secrets during a rotation’s overlap, then with the new one only', async () => {
    const rotated = await rotateWebhookSecret(
      { ...h.api.stores, clock: h.api.clock },
      h.merchant.id,
      3_600_000,
    );
    await h.pay(await h.createPayment());
    await dispatch();
    const during = h.receiver.received[0]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifyAsMerchant(rotated.webhookSecret, during);
    verifyAsMerchant(h.merchant.webhookSecret, during);

    h.api.clock.advance(3_600_000);
    await h.pay(await h.createPayment());
    await dispatch();
    const after = h.receiver.received[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    verifyAsMerchant(rotated.webhookSecret, after);
    expect(() => verifyAsMerchant(h.merchant.webhookSecret, after)).toThrow();
    // Secrets never reach the log.
    for (const secret of [h.merchant.webhookSecret, rotated.webhookSecret]) {
      expect(h.logs() + h.api.logs()).not.toContain(secret.slice('whsec_'.length));
    }
  });

  it('refuses at connect time a name resolving to a loopback address when private addresses are not allowed', async () => {
    const port = new URL(h.receiver.base).port;
    const eventId = await h.pay(await h.createPayment({ webhookUrl: `https://localhost:${port}/hooks` }));
    const production = createWebhookSender({ allowPrivate: false, timeoutMs: TEST_WEBHOOK_TIMEOUT_MS });
    await dispatchWebhooks(h.dispatcher({ sender: production }));
    production.close();
    expect(h.receiver.received).toHaveLength(0);
    expect((await logged(eventId)).attempts[0]).toMatchObject({
      statusCode: null,
      outcome: 'retry',
      error: expect.stringMatching(
        /^refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address$/,
      ),
    });
  });

  it('the loop delivers what appears while it runs, and returns when aborted', async () => {
    const controller = new AbortController();
    const loop = runWebhookDispatcher(h.dispatcher(), { intervalMs: 10, signal: controller.signal });
    const eventId = await h.pay(await h.createPayment());
    await h.receiver.waitForRequests(1);
    controller.abort();
    await loop;
    expect(h.receiver.received[0]!.headers['webhook-id']).toBe(eventId);
  });

  // PostgreSQL only: that is where many workers run. SQLite deployments run one worker process (and two
  // connections of the synchronous driver in one process would wait on each other's transactions).
  const onPostgres = dialect === 'postgres' ? it : () => {};
  onPostgres('two dispatchers running at once never send the same attempt twice', async () => {
    const events = new Set<string>();
    for (let i = 0; i < 40; i++) events.add(await h.pay(await h.createPayment()));
    // Answers take a little while, so both dispatchers are mid-batch together.
    h.receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 5));
    const second = openDatabase(h.api.database.url);
    const other = h.dispatcher();
    const run = (deps: typeof other) =>
      dispatchWebhooks({ ...deps, config: { ...deps.config, batchSize: 4 } });
    try {
      const results = await Promise.all([
        run(h.dispatcher()),
        run({ ...other, webhooks: webhookRepository(second) }),
        run(h.dispatcher()),
        run({ ...other, webhooks: webhookRepository(second) }),
      ]);
      expect(results.reduce((sum, r) => sum + r.delivered, 0)).toBe(40);
    } finally {
      await second.close();
    }
    const ids = h.receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(40);
    expect(new Set(ids)).toStrictEqual(events);
    const attempts = await h.api.database.handle.db.selectFrom('webhook_attempts').selectAll().execute();
    expect(attempts).toHaveLength(40);
    expect(attempts.every((a) => Number(a.attempt_number) === 1 && a.outcome === 'delivered')).toBe(true);
  });
});
