import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { merchantRow } from '../../src/adapters/db/merchantRepository.ts';
import { testMerchant } from '../fakes/merchantFixture.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, planRowAt0048, subscriptionRowAt0048 } from '../helpers/migrationRows.ts';

const NOW = '2027-01-31T10:00:00.000Z';

/**
 * Migration 0050 on subscriptions made before it: each gets a portal token of its own (43 base64url characters,
 * unique), no plan change pending; a second subscription cannot take a token already given; down() takes the
 * columns away and leaves the subscriptions.
 */
describe.each(dialects)('migration 0050 (subscription portal) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let migrator: Awaited<ReturnType<typeof databaseMigratedTo>>['migrator'];

  const subscription = (id: string) =>
    subscriptionRowAt0048(id, NOW, { customer_email: `${id}@example.com`, announced_status: 'trialing' });

  beforeAll(async () => {
    ({ handle, drop, migrator } = await databaseMigratedTo(dialect, '0048_subscriptions'));
    const { db } = handle;
    await db.insertInto('merchants').values(merchantRow(testMerchant())).execute();
    await db
      .insertInto('subscription_plans')
      .values(planRowAt0048('p1', NOW, { amount_minor_units: '990000', trial_days: 14 }))
      .execute();
    await db
      .insertInto('subscriptions')
      .values([subscription('s1'), subscription('s2')])
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  it('gives each earlier subscription a token of its own, and no plan change', async () => {
    const rows = await handle.db
      .selectFrom('subscriptions')
      .select(['id', 'portal_token', 'pending_plan_id', 'pending_plan_from'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.id, r.pending_plan_id, r.pending_plan_from])).toEqual([
      ['s1', null, null],
      ['s2', null, null],
    ]);
    for (const row of rows) expect(row.portal_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rows[0]!.portal_token).not.toBe(rows[1]!.portal_token);
    await expect(
      handle.db
        .insertInto('subscriptions')
        .values({
          ...subscription('s3'),
          portal_token: rows[0]!.portal_token,
          pending_plan_id: null,
          pending_plan_from: null,
        })
        .execute(),
    ).rejects.toThrow();
  });

  it('goes down to 0048 keeping the subscriptions', async () => {
    expect((await migrator.migrateTo('0048_subscriptions')).error).toBeUndefined();
    const columns = (await handle.db.introspection.getTables())
      .find((table) => table.name === 'subscriptions')
      ?.columns.map((column) => column.name);
    expect(columns).not.toContain('portal_token');
    expect(columns).not.toContain('pending_plan_id');
    const ids = await handle.db.selectFrom('subscriptions').select('id').orderBy('id').execute();
    expect(ids).toEqual([{ id: 's1' }, { id: 's2' }]);
  });
});
