import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { merchantRow } from '../../src/adapters/db/merchantRepository.ts';
import { paymentRow } from '../../src/adapters/db/paymentRepository.ts';
import { testMerchant } from '../fakes/merchantFixture.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, planRowAt0048, subscriptionRowAt0048 } from '../helpers/migrationRows.ts';

/**
 * Migration 0048 on a database holding payments from before it: the three tables come, a period's payment can
 * name an earlier payment, the keys hold (one payment per period, one plan per Idempotency-Key and mode), and
 * down() takes them away again with the payments untouched.
 */
describe.each(dialects)('migration 0048 (subscriptions) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let migrator: Awaited<ReturnType<typeof databaseMigratedTo>>['migrator'];
  const NOW = '2027-01-31T10:00:00.000Z';
  const earlier = testPayment(1);

  beforeAll(async () => {
    ({ handle, drop, migrator } = await databaseMigratedTo(dialect, '0044_restricted_keys'));
    await handle.db.insertInto('merchants').values(merchantRow(testMerchant())).execute();
    await handle.db.insertInto('payments').values(paymentRow(earlier)).execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  const planValues = (id: string, key: string | null) =>
    planRowAt0048(id, NOW, {
      currency: 'EUR',
      amount_minor_units: '990',
      idempotency_key: key,
      request_hash: key && 'h',
    });

  it('adds the tables, with one payment per period and one plan per key', async () => {
    const { db } = handle;
    await db
      .insertInto('subscription_plans')
      .values([planValues('p1', 'k'), planValues('p2', null), planValues('p3', null)])
      .execute();
    await expect(
      db.insertInto('subscription_plans').values(planValues('p4', 'k')).execute(),
    ).rejects.toThrow();
    await db.insertInto('subscriptions').values(subscriptionRowAt0048('s1', NOW)).execute();
    const period = {
      subscription_id: 's1',
      period: 1,
      payment_id: earlier.id,
      reminded_at: null,
      created_at: NOW,
    };
    await db.insertInto('subscription_payments').values(period).execute();
    await expect(db.insertInto('subscription_payments').values(period).execute()).rejects.toThrow();
  });

  it('goes down to 0044 leaving the payments as they were', async () => {
    expect((await migrator.migrateTo('0044_restricted_keys')).error).toBeUndefined();
    const tables = (await handle.db.introspection.getTables()).map((table) => table.name);
    expect(tables).not.toContain('subscriptions');
    expect(tables).not.toContain('subscription_plans');
    expect(tables).not.toContain('subscription_payments');
    const ids = await handle.db.selectFrom('payments').select('id').execute();
    expect(ids).toEqual([{ id: earlier.id }]);
  });
});
