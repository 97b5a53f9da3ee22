import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { paymentRow } from '../../src/adapters/db/paymentRepository.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, merchantRow } from '../helpers/migrationRows.ts';

/**
 * Migration 0046 (decision 0058) on a database holding events written before it: they stay as they were and
 * readable by the events API's query, endpoints and their deliveries can be written beside them, a delivery is
 * refused twice for one event and endpoint, and the way down leaves the events untouched.
 */
const NOW = '2026-01-01T01:00:00.000Z';

describe.each(dialects)('migration 0046 (webhook endpoints) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let migrateDown: () => Promise<unknown>;
  const payment = testPayment(1);

  beforeAll(async () => {
    const migrated = await databaseMigratedTo(dialect, '0044_restricted_keys');
    ({ handle, drop } = migrated);
    migrateDown = async () => (await migrated.migrator.migrateTo('0044_restricted_keys')).error;
    await handle.db.insertInto('merchants').values(merchantRow('mch_1', NOW)).execute();
    await handle.db.insertInto('payments').values(paymentRow(payment)).execute();
    await handle.db
      .insertInto('events')
      .values({
        id: 'evt_before',
        payment_id: payment.id,
        merchant_id: 'mch_1',
        sequence: 1,
        type: 'payment.paid',
        payload: '{"id":"evt_before"}',
        created_at: NOW,
      })
      .execute();
    expect((await migrated.migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  it('keeps earlier events and takes endpoints and deliveries beside them', async () => {
    expect(
      await handle.db.selectFrom('events').select(['id', 'payload', 'delivery_status']).execute(),
    ).toStrictEqual([{ id: 'evt_before', payload: '{"id":"evt_before"}', delivery_status: 'pending' }]);
    await handle.db
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
    const endpoint = await handle.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
    expect(endpoint).toMatchObject({ event_types: '*', description: '', deleted_at: null });
    expect(Number(endpoint.enabled)).toBe(1);
    const delivery = { id: 'evt_before:we_1', event_id: 'evt_before', endpoint_id: 'we_1', created_at: NOW };
    await handle.db.insertInto('webhook_deliveries').values(delivery).execute();
    const again = handle.db
      .insertInto('webhook_deliveries')
      .values({ ...delivery, id: 'another' })
      .execute();
    await expect(again).rejects.toThrow();
    await expect(
      handle.db
        .insertInto('webhook_endpoints')
        .values({ ...endpoint, id: 'we_2', mode: 'sandbox' as 'live' })
        .execute(),
    ).rejects.toThrow();
  });

  it('goes down leaving the events as they were', async () => {
    await handle.db.deleteFrom('webhook_deliveries').execute();
    expect(await migrateDown()).toBeUndefined();
    expect(await handle.db.selectFrom('events').select('id').execute()).toStrictEqual([{ id: 'evt_before' }]);
    await expect(handle.db.selectFrom('webhook_endpoints').selectAll().execute()).rejects.toThrow();
  });
});
