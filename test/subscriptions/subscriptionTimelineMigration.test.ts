import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { eventRepository } from '../../src/adapters/db/eventRepository.ts';
import { paymentRow } from '../../src/adapters/db/paymentRepository.ts';
import { webhookRepository } from '../../src/adapters/db/webhookRepository.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { dialects } from '../helpers/database.ts';
import {
  databaseMigratedTo,
  merchantRow,
  planRowAt0048,
  subscriptionRowAt0048,
} from '../helpers/migrationRows.ts';

const NOW = '2027-01-31T10:00:00.000Z';

/**
 * Migration 0052 (decision 0063) on a database holding a payment's events, their attempts and an endpoint's
 * delivery written before it: every row reads the same after it, through the tables and the events API's and the
 * webhook log's reads, and the rows that refer to an event still must (SQLite's table was made again); an event
 * may now be on a subscription's own timeline, on exactly one timeline, numbered per subscription; down() takes
 * the subscriptions' events away (with their deliveries) and leaves the payments' as they were.
 */
describe.each(dialects)('migration 0052 (subscription timeline) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let migrator: Awaited<ReturnType<typeof databaseMigratedTo>>['migrator'];
  const payment = testPayment(1);
  const eventRow = (id: string, sequence: number, delivery: Record<string, unknown> = {}) => ({
    id,
    payment_id: payment.id,
    merchant_id: 'mch_1',
    sequence,
    type: sequence === 1 ? 'payment.pending' : 'payment.paid',
    payload: `{"id":"${id}"}`,
    created_at: `2027-01-31T10:0${sequence}:00.000Z`,
    ...delivery,
  });
  let before: Record<string, unknown>[];
  let attemptsBefore: Record<string, unknown>[];

  const allEvents = () => handle.db.selectFrom('events').selectAll().orderBy('id').execute();
  /** The names of the indexes on `events` (SQLite's automatic ones left out: they are named by position). */
  const eventIndexes = async () => {
    const query =
      dialect === 'sqlite'
        ? sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'events'
            and name not like 'sqlite_autoindex_%'`
        : sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'events'`;
    return (await query.execute(handle.db)).rows.map((row) => row.name).sort();
  };
  let indexesBefore: string[];

  beforeAll(async () => {
    ({ handle, drop, migrator } = await databaseMigratedTo(dialect, '0051_x402_account_terms'));
    const { db } = handle;
    await db.insertInto('merchants').values(merchantRow('mch_1', NOW)).execute();
    await db.insertInto('payments').values(paymentRow(payment)).execute();
    await db.insertInto('subscription_plans').values(planRowAt0048('p1', NOW)).execute();
    await db.insertInto('subscriptions').values(subscriptionRowAt0048('s1', NOW)).execute();
    // biome-ignore lint/suspicious/noExplicitAny: rows as the table was at 0051, without today's columns
    const events = db.insertInto('events') as any;
    await events
      .values([
        eventRow('evt_a', 1, {
          delivery_status: 'delivered',
          attempt_count: 1,
          schedule_step: 1,
          next_attempt_at: null,
          delivered_at: '2027-01-31T10:01:01.000Z',
        }),
        eventRow('evt_b', 2, {
          delivery_status: 'pending',
          attempt_count: 2,
          schedule_step: 2,
          next_attempt_at: '2027-01-31T11:00:00.000Z',
          delivered_at: null,
        }),
      ])
      .execute();
    await db
      .insertInto('webhook_attempts')
      .values({
        event_id: 'evt_a',
        attempt_number: 1,
        url: 'https://a.example/',
        started_at: NOW,
        status_code: 200,
      })
      .execute();
    await db
      .insertInto('webhook_endpoints')
      .values({
        id: 'we_1',
        merchant_id: 'mch_1',
        mode: 'live',
        url: 'https://hooks.example.com/',
        secret: 'whsec_x',
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    await db
      .insertInto('webhook_deliveries')
      .values({ id: 'evt_b:we_1', event_id: 'evt_b', endpoint_id: 'we_1', created_at: NOW })
      .execute();
    before = (await allEvents()) as Record<string, unknown>[];
    attemptsBefore = await db.selectFrom('webhook_attempts').selectAll().execute();
    indexesBefore = await eventIndexes();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  it('reads every earlier event, attempt and delivery the same, through the tables and the reads', async () => {
    expect(await allEvents()).toStrictEqual(before.map((row) => ({ ...row, subscription_id: null })));
    expect(indexesBefore).toContain('events_merchant_undelivered');
    expect(await eventIndexes()).toStrictEqual([...indexesBefore, 'events_subscription_sequence'].sort());
    expect(await handle.db.selectFrom('webhook_attempts').selectAll().execute()).toStrictEqual(
      attemptsBefore,
    );
    const listed = await eventRepository(handle.db).list({ merchantId: 'mch_1', mode: 'live', limit: 10 });
    expect(listed.map((e) => [e.id, e.type, e.paymentId, e.subscriptionId, e.payload])).toStrictEqual([
      ['evt_b', 'payment.paid', payment.id, null, '{"id":"evt_b"}'],
      ['evt_a', 'payment.pending', payment.id, null, '{"id":"evt_a"}'],
    ]);
    const log = webhookRepository(handle);
    expect(await log.listEndpointDeliveries(['evt_b'])).toEqual([
      expect.objectContaining({ eventId: 'evt_b', endpointId: 'we_1', deliveryStatus: 'pending' }),
    ]);
    // The rows referring to an event still must: none may name a missing one.
    await expect(
      handle.db
        .insertInto('webhook_attempts')
        .values({ event_id: 'evt_missing', attempt_number: 1, url: null, started_at: NOW })
        .execute(),
    ).rejects.toThrow();
  });

  it('takes an event on a subscription’s own timeline, on exactly one timeline, numbered per subscription', async () => {
    const own = {
      id: 'evt_s1',
      payment_id: null,
      subscription_id: 's1',
      merchant_id: 'mch_1',
      sequence: 1,
      type: 'subscription.created',
      payload: '{"id":"evt_s1"}',
      created_at: NOW,
    };
    await handle.db.insertInto('events').values(own).execute();
    const listed = await eventRepository(handle.db).list({ merchantId: 'mch_1', mode: 'live', limit: 10 });
    expect(listed.map((e) => [e.id, e.paymentId, e.subscriptionId])).toContainEqual(['evt_s1', null, 's1']);
    expect(await eventRepository(handle.db).list({ merchantId: 'mch_1', mode: 'test', limit: 10 })).toEqual(
      [],
    );
    const refused = async (row: typeof own) =>
      expect(handle.db.insertInto('events').values(row).execute()).rejects.toThrow();
    await refused({ ...own, id: 'evt_same_sequence' });
    await refused({ ...own, id: 'evt_no_timeline', subscription_id: null as unknown as string, sequence: 2 });
    await refused({
      ...own,
      id: 'evt_two_timelines',
      payment_id: payment.id as unknown as null,
      sequence: 3,
    });
    await refused({ ...own, id: 'evt_no_subscription', subscription_id: 's_missing', sequence: 4 });
  });

  it('goes down to 0051 keeping the payments’ events and dropping the subscriptions’', async () => {
    await handle.db
      .insertInto('webhook_deliveries')
      .values({ id: 'evt_s1:we_1', event_id: 'evt_s1', endpoint_id: 'we_1', created_at: NOW })
      .execute();
    expect((await migrator.migrateTo('0051_x402_account_terms')).error).toBeUndefined();
    expect(await allEvents()).toStrictEqual(before);
    expect(await eventIndexes()).toStrictEqual(indexesBefore);
    const deliveries = await handle.db.selectFrom('webhook_deliveries').select('id').execute();
    expect(deliveries).toEqual([{ id: 'evt_b:we_1' }]);
    await expect(
      handle.db
        .insertInto('events')
        // biome-ignore lint/suspicious/noExplicitAny: a row of no payment, which 0051's table refuses
        .values({ ...eventRow('evt_none', 9), payment_id: null } as any)
        .execute(),
    ).rejects.toThrow();
  });
});
