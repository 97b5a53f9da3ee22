import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { merchantRow } from '../../src/adapters/db/merchantRepository.ts';
import { paymentRow } from '../../src/adapters/db/paymentRepository.ts';
import { testMerchant } from '../fakes/merchantFixture.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, planRowAt0048, subscriptionRowAt0048 } from '../helpers/migrationRows.ts';

/**
 * Migration 0049 on a database holding a subscription from before it: the mandates and charges come, the keys
 * hold (one mandate per subscription, one charge per period), no customer token table of its own (the portal's
 * token of 0050 is the subscription's one public token), and down() takes them away with the subscription untouched.
 */
describe.each(dialects)('migration 0049 (subscription mandates) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let migrator: Awaited<ReturnType<typeof databaseMigratedTo>>['migrator'];
  const NOW = '2027-01-31T10:00:00.000Z';
  const payment = testPayment(1);

  beforeAll(async () => {
    ({ handle, drop, migrator } = await databaseMigratedTo(dialect, '0048_subscriptions'));
    const { db } = handle;
    await db.insertInto('merchants').values(merchantRow(testMerchant())).execute();
    await db.insertInto('payments').values(paymentRow(payment)).execute();
    await db.insertInto('subscription_plans').values(planRowAt0048('p1', NOW)).execute();
    await db.insertInto('subscriptions').values(subscriptionRowAt0048('s1', NOW)).execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  it('adds the tables, with one mandate per subscription and one charge per period, and no token table', async () => {
    const { db } = handle;
    const tables = (await db.introspection.getTables()).map((table) => table.name);
    expect(tables).toContain('subscription_mandates');
    expect(tables).not.toContain('subscription_tokens');
    const mandate = {
      subscription_id: 's1',
      chain_id: 137,
      charger: '0xc',
      mandate_id: '0xm',
      customer: '0xa',
      terms: '{}',
      signature: '0xs',
      permit: null,
      status: 'active',
      created_at: NOW,
      updated_at: NOW,
    };
    await db.insertInto('subscription_mandates').values(mandate).execute();
    await expect(db.insertInto('subscription_mandates').values(mandate).execute()).rejects.toThrow();
    const charge = {
      subscription_id: 's1',
      period: 1,
      payment_id: payment.id,
      chain_id: 137,
      mandate_id: '0xm',
      amount_base_units: '10000000',
      status: 'pending',
      attempts: 0,
      next_attempt_at: NOW,
      tx_hash: null,
      raw_tx: null,
      relayer_nonce: null,
      gas_used: null,
      fee_wei: null,
      failure_reason: null,
      created_at: NOW,
      updated_at: NOW,
    };
    await db.insertInto('subscription_charges').values(charge).execute();
    await expect(db.insertInto('subscription_charges').values(charge).execute()).rejects.toThrow();
    await db
      .insertInto('subscription_charges')
      .values({ ...charge, period: 2 })
      .execute();
  });

  it('goes down to 0048 leaving the subscription as it was', async () => {
    expect((await migrator.migrateTo('0048_subscriptions')).error).toBeUndefined();
    const tables = (await handle.db.introspection.getTables()).map((table) => table.name);
    for (const table of ['subscription_tokens', 'subscription_mandates', 'subscription_charges'])
      expect(tables).not.toContain(table);
    expect(await handle.db.selectFrom('subscriptions').select('id').execute()).toEqual([{ id: 's1' }]);
  });
});

/**
 * Migration 0054 on a database holding a mandate from before it: the mandate stays, not canceled on chain; the
 * charger's cursor is one per chain and charger; down() takes both away with the mandate untouched.
 */
describe.each(dialects)('migration 0054 (mandates canceled on chain) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let migrator: Awaited<ReturnType<typeof databaseMigratedTo>>['migrator'];
  const NOW = '2027-01-31T10:00:00.000Z';

  beforeAll(async () => {
    ({ handle, drop, migrator } = await databaseMigratedTo(dialect, '0051_x402_account_terms'));
    const { db } = handle;
    await db.insertInto('merchants').values(merchantRow(testMerchant())).execute();
    await db.insertInto('subscription_plans').values(planRowAt0048('p1', NOW)).execute();
    await db.insertInto('subscriptions').values(subscriptionRowAt0048('s1', NOW)).execute();
    const before = {
      subscription_id: 's1',
      chain_id: 137,
      charger: '0xc',
      mandate_id: '0xm',
      customer: '0xa',
      terms: '{}',
      signature: '0xs',
      permit: null,
      status: 'active',
      created_at: NOW,
      updated_at: NOW,
    };
    await db.insertInto('subscription_mandates').values(before).execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  it('keeps the mandate, not canceled on chain, and keeps one cursor per chain and charger', async () => {
    const { db } = handle;
    const mandate = await db.selectFrom('subscription_mandates').selectAll().executeTakeFirstOrThrow();
    expect(mandate).toMatchObject({ status: 'active', chain_canceled_tx: null, chain_canceled_at: null });
    const cursor = { chain_id: 137, charger: '0xc', next_block: '100', updated_at: NOW };
    await db.insertInto('charger_cursors').values(cursor).execute();
    await expect(db.insertInto('charger_cursors').values(cursor).execute()).rejects.toThrow();
    await db
      .insertInto('charger_cursors')
      .values({ ...cursor, charger: '0xd' })
      .execute();
  });

  it('goes down to 0051 leaving the mandate as it was', async () => {
    expect((await migrator.migrateTo('0051_x402_account_terms')).error).toBeUndefined();
    const tables = (await handle.db.introspection.getTables()).map((table) => table.name);
    expect(tables).not.toContain('charger_cursors');
    const mandates = (await handle.db.introspection.getTables()).find(
      (t) => t.name === 'subscription_mandates',
    );
    const columns = mandates?.columns.map((c) => c.name);
    expect(columns).not.toContain('chain_canceled_tx');
    expect(
      await handle.db.selectFrom('subscription_mandates').select(['subscription_id', 'status']).execute(),
    ).toEqual([{ subscription_id: 's1', status: 'active' }]);
  });
});
