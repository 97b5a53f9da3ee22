import { createServer, type Server } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchWebhooks } from '../../src/app/webhooks/dispatchWebhooks.ts';
import { getWebhookEvent } from '../../src/app/webhooks/listWebhookEvents.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { countRows, dialects } from '../helpers/database.ts';
import { eventually, freePort } from '../helpers/net.ts';
import { startWebhookHarness, type WebhookHarness } from '../helpers/webhookHarness.ts';

describe.runIf(dialects.includes('postgres'))('the PostgreSQL connection dropped mid-request', () => {
  let h: ApiHarness;
  let apiKey: string;
  beforeAll(async () => {
    h = await startApiHarness('postgres');
    ({ apiKey } = await h.merchant());
  });
  afterAll(() => h.close());

  const create = () =>
    h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: '{"amount": 10, "currency": "USD"}',
    });

  it('answers 503 with Retry-After, writes nothing, and the next request succeeds', async () => {
    expect((await create()).statusCode).toBe(201); // the pool is warm
    const count = () => countRows(h.database.handle.db, 'payments');
    const admin = new pg.Client({ connectionString: h.database.url });
    await admin.connect();
    // Hold the table so the request is mid-flight (waiting on its insert) when its connection is killed.
    await admin.query('begin');
    await admin.query('lock table payments in access exclusive mode');
    const inFlight = create();
    await eventually(
      async () =>
        (
          await admin.query(
            // This database's: a table's oid is the same in every database copied from the migrated template.
            `select count(*)::int as n from pg_locks where not granted and relation = 'payments'::regclass
             and database = (select oid from pg_database where datname = current_database())`,
          )
        ).rows[0].n as number,
      (waiting) => waiting > 0,
      1000,
      20,
    );
    await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    const response = await inFlight;
    await admin.query('rollback');
    await admin.end();

    expect(response.statusCode).toBe(503);
    expect(response.json()).toStrictEqual({
      error: 'Service temporarily unavailable; retry shortly',
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(response.headers['retry-after']).toBe('1');
    const before = await count();
    let recovered = await create();
    for (let i = 0; i < 5 && recovered.statusCode === 503; i += 1) recovered = await create(); // dead idle clients are dropped one by one
    expect(recovered.statusCode).toBe(201);
    expect(await count()).toBe(before + 1);
  });
});

describe.each(dialects)('the webhook receiver down throughout, then back (%s)', (dialect) => {
  let h: WebhookHarness;
  let server: Server | undefined;
  beforeAll(async () => {
    h = await startWebhookHarness(dialect);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await h.close();
  });

  it('keeps retrying on schedule while nothing listens, then delivers the same event once it is back', async () => {
    const port = await freePort();
    const paymentId = await h.createPayment({ webhookUrl: `http://127.0.0.1:${port}/hooks` });
    const eventId = await h.pay(paymentId);
    const dispatch = () => dispatchWebhooks(h.dispatcher());

    // Immediately, then 5 s, then 5 min: connection refused every time.
    expect(await dispatch()).toMatchObject({ attempted: 1, retrying: 1 });
    h.api.clock.advance(5_000);
    expect(await dispatch()).toMatchObject({ attempted: 1, retrying: 1 });
    h.api.clock.advance(5 * 60_000);
    expect(await dispatch()).toMatchObject({ attempted: 1, retrying: 1 });
    const down = await getWebhookEvent(h.api.stores, eventId);
    expect(down.attempts).toHaveLength(3);
    expect(down.attempts.every((a) => a.statusCode === null && /ECONNREFUSED/.test(a.error ?? ''))).toBe(
      true,
    );

    const received: { id: string | undefined; body: string }[] = [];
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        received.push({ id: request.headers['webhook-id'] as string | undefined, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    h.api.clock.advance(30 * 60_000);
    expect(await dispatch()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(received).toHaveLength(1);
    expect(received[0]!.id).toBe(eventId);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ event: 'payment.paid', payment_id: paymentId });
    expect((await getWebhookEvent(h.api.stores, eventId)).event.deliveryStatus).toBe('delivered');
  });
});
