import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOutboxEvent } from '../../src/adapters/db/outbox.ts';
import { paymentRow } from '../../src/adapters/db/paymentRepository.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { newEventId, newWebhookSecret } from '../../src/domain/credentials.ts';
import type { PaymentEventType } from '../../src/domain/paymentStatus.ts';
import { newWebhookEndpointId, type WebhookEndpoint } from '../../src/domain/webhookEndpoint.ts';
import { createStores } from '../../src/main/wiring.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { TestClock } from '../helpers/clock.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';

/**
 * The stores of webhook endpoints and events (decision 0058) on each database: endpoints kept per merchant and
 * mode, the fan-out written with each event, the claim shared between the events' own deliveries and the
 * endpoints', and the events read back however old.
 */
describe.each(dialects)('webhook endpoint and event stores on %s', (dialect) => {
  let database: TestDatabase;
  let stores: ReturnType<typeof createStores>;
  const clock = new TestClock(new Date('2026-03-01T00:00:00.000Z'));
  let merchantId: string;
  let payment = 0;

  const endpoint = (fields: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
    id: newWebhookEndpointId(),
    merchantId,
    mode: 'live',
    url: 'https://hooks.example.com/a',
    description: '',
    eventTypes: 'all',
    enabled: true,
    secret: newWebhookSecret(),
    previousSecret: null,
    createdAt: clock.now(),
    updatedAt: clock.now(),
    ...fields,
  });
  const made = async (fields: Partial<WebhookEndpoint> = {}) => {
    const record = endpoint(fields);
    await stores.webhookEndpoints.insert(record);
    return record;
  };
  /** An event of a new payment of `mode`, written as every writer writes one. */
  const event = async (type: PaymentEventType, mode: 'live' | 'test' = 'live', createdAt = clock.now()) => {
    const row = paymentRow(testPayment(++payment, { merchantId, mode }));
    await database.handle.db.insertInto('payments').values(row).execute();
    const id = newEventId();
    await database.handle.db.transaction().execute((trx) =>
      insertOutboxEvent(trx, {
        id,
        paymentId: row.id,
        merchantId,
        type,
        payload: `{"id":"${id}"}`,
        createdAt,
      }),
    );
    return id;
  };
  const deliveriesOf = async (eventId: string) =>
    (
      await database.handle.db
        .selectFrom('webhook_deliveries')
        .select('endpoint_id')
        .where('event_id', '=', eventId)
        .execute()
    )
      .map((row) => row.endpoint_id)
      .sort();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    stores = createStores(database.handle);
    merchantId = (
      await createMerchant(
        { merchants: stores.merchants, clock, webhookAllowPrivate: false },
        { name: 'Shop', wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', commissionPercent: '1' },
      )
    ).merchant.id;
  });
  afterAll(() => database.drop());

  it('keeps endpoints per mode, changes what is given, rotates to at most two secrets, and deletes', async () => {
    const live = await made({ description: 'books' });
    const test = await made({ mode: 'test' });
    expect((await stores.webhookEndpoints.list(merchantId, 'live')).map((e) => e.id)).toStrictEqual([
      live.id,
    ]);
    expect(await stores.webhookEndpoints.find(merchantId, 'test', live.id)).toBeUndefined();
    expect(await stores.webhookEndpoints.find(merchantId, 'test', test.id)).toStrictEqual(test);

    clock.advance(1_000);
    const changed = await stores.webhookEndpoints.update(
      merchantId,
      'live',
      live.id,
      { eventTypes: ['payment.paid'], enabled: false },
      clock.now(),
    );
    expect(changed).toStrictEqual({
      ...live,
      eventTypes: ['payment.paid'],
      enabled: false,
      updatedAt: clock.now(),
    });
    // The other mode's key cannot reach it.
    expect(
      await stores.webhookEndpoints.update(merchantId, 'test', live.id, { enabled: true }, clock.now()),
    ).toBe(undefined);

    const until = new Date(clock.now().getTime() + 3_600_000);
    const second = newWebhookSecret();
    const once = await stores.webhookEndpoints.rotateSecret(
      merchantId,
      'live',
      live.id,
      second,
      until,
      clock.now(),
    );
    expect(once).toMatchObject({ secret: second, previousSecret: { secret: live.secret, until } });
    const third = newWebhookSecret();
    const twice = await stores.webhookEndpoints.rotateSecret(
      merchantId,
      'live',
      live.id,
      third,
      until,
      clock.now(),
    );
    // Rotating within the overlap ends the oldest secret at once.
    expect(twice).toMatchObject({ secret: third, previousSecret: { secret: second, until } });

    expect(await stores.webhookEndpoints.delete(merchantId, 'test', live.id, clock.now())).toBe(false);
    expect(await stores.webhookEndpoints.delete(merchantId, 'live', live.id, clock.now())).toBe(true);
    expect(await stores.webhookEndpoints.delete(merchantId, 'live', live.id, clock.now())).toBe(false);
    expect(await stores.webhookEndpoints.list(merchantId, 'live')).toStrictEqual([]);
    expect(await stores.webhookEndpoints.delete(merchantId, 'test', test.id, clock.now())).toBe(true);
  });

  it('writes with each event a delivery for each enabled endpoint of its mode that wants its type', async () => {
    const all = await made();
    const paidOnly = await made({ eventTypes: ['payment.paid', 'refund.refunded'] });
    await made({ enabled: false });
    const testAll = await made({ mode: 'test' });
    const deleted = await made();
    await stores.webhookEndpoints.delete(merchantId, 'live', deleted.id, clock.now());

    expect(await deliveriesOf(await event('payment.paid'))).toStrictEqual([all.id, paidOnly.id].sort());
    expect(await deliveriesOf(await event('refund.created'))).toStrictEqual([all.id]);
    expect(await deliveriesOf(await event('payment.expired', 'test'))).toStrictEqual([testAll.id]);
    for (const e of await stores.webhookEndpoints.list(merchantId, 'live'))
      await stores.webhookEndpoints.delete(merchantId, 'live', e.id, clock.now());
    await stores.webhookEndpoints.delete(merchantId, 'test', testAll.id, clock.now());
  });

  it("shares a claim between the events' own deliveries and the endpoints', and fences a late result", async () => {
    // What earlier tests left due is leased away, for longer than this test runs on its clock.
    await stores.webhooks.claimDue(clock.now(), 100, 3_600_000);
    clock.advance(1_000);
    const target = await made({ url: 'https://hooks.example.com/b' });
    for (let i = 0; i < 3; i++) await event('payment.paid');

    const firstClaim = await stores.webhooks.claimDue(clock.now(), 2, 60_000);
    expect(firstClaim.map((job) => job.delivery?.endpointId ?? null)).toStrictEqual([null, target.id]);
    const [, toEndpoint] = firstClaim;
    expect(toEndpoint).toMatchObject({ url: target.url, webhookSecret: target.secret, attemptNumber: 1 });
    // Nothing else of the endpoints is left, so the events take the rest of a claim.
    const rest = await stores.webhooks.claimDue(clock.now(), 4, 60_000);
    expect(rest.map((job) => job.delivery?.endpointId ?? null)).toStrictEqual([
      null,
      null,
      target.id,
      target.id,
    ]);

    const result = {
      finishedAt: clock.now(),
      durationMs: 5,
      statusCode: 204,
      error: null,
      responseBody: '',
      outcome: 'delivered' as const,
      nextAttemptAt: null,
    };
    const next = {
      status: 'delivered' as const,
      nextAttemptAt: null,
      scheduleStep: 1,
      deliveredAt: clock.now(),
    };
    expect(await stores.webhooks.completeAttempt(toEndpoint!, result, next)).toBe(true);
    // A worker whose claim was taken over records history only.
    expect(await stores.webhooks.completeAttempt({ ...toEndpoint!, attemptNumber: 0 }, result, next)).toBe(
      false,
    );
    const delivery = await database.handle.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', toEndpoint!.delivery!.id)
      .executeTakeFirstOrThrow();
    expect(delivery).toMatchObject({ delivery_status: 'delivered', delivered_at: clock.now().toISOString() });
    await stores.webhookEndpoints.delete(merchantId, 'live', target.id, clock.now());
  });

  it('reads back events of any age, newest first, of the mode asked for', async () => {
    const old = await event('payment.failed', 'live', new Date(clock.now().getTime() - 31 * 86_400_000));
    const listed = await stores.events.list({ merchantId, mode: 'live', type: 'payment.failed', limit: 10 });
    expect(listed.map((e) => e.id)).toStrictEqual([old]);
    expect(await stores.events.find(merchantId, 'test', old)).toBeUndefined();
    expect(await stores.events.find(merchantId, 'live', old)).toMatchObject({
      id: old,
      type: 'payment.failed',
    });
  });
});
