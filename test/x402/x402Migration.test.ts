import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { paymentRow, toPayment } from '../../src/adapters/db/paymentRepository.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, merchantRow } from '../helpers/migrationRows.ts';

/**
 * Migrations 0047 and 0051 (decision 0059) on a database with payments already in it: they stay as they were, a
 * merchant gets at most one x402 address per mode and terms (wallet, commission: a second is refused by the partial
 * unique index, which ignores every other kind), a call's record ties one payment to one authorization, and `down` takes both away again.
 */
const NOW = new Date('2026-01-01T01:00:00.000Z').toISOString();

describe.each(dialects)('migration 0047 (the x402 facilitator) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let migrator: Awaited<ReturnType<typeof databaseMigratedTo>>['migrator'];
  const before = [testPayment(1), testPayment(2, { status: 'paid' })];

  beforeAll(async () => {
    const migrated = await databaseMigratedTo(dialect, '0044_restricted_keys');
    ({ handle, drop, migrator } = migrated);
    await handle.db.insertInto('merchants').values(merchantRow('mch_1', NOW)).execute();
    await handle.db.insertInto('payments').values(before.map(paymentRow)).execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  const x402Account = (n: number, mode: 'live' | 'test' = 'live') =>
    paymentRow({ ...testPayment(n, { mode }), kind: 'x402' });

  it('keeps the payments there were, as they were', async () => {
    const rows = await handle.db.selectFrom('payments').selectAll().orderBy('id').execute();
    expect(rows.map(toPayment)).toEqual(before);
  });

  it('allows one x402 address per merchant and mode, and any number of payments beside it', async () => {
    await handle.db.insertInto('payments').values(x402Account(10)).execute();
    await expect(handle.db.insertInto('payments').values(x402Account(11)).execute()).rejects.toThrow();
    await handle.db.insertInto('payments').values(x402Account(12, 'test')).execute();
    await handle.db
      .insertInto('payments')
      .values([paymentRow(testPayment(13)), paymentRow(testPayment(14))])
      .execute();
    const kinds = await handle.db
      .selectFrom('payments')
      .select(['kind', 'mode'])
      .where('kind', '=', 'x402')
      .execute();
    expect(kinds).toHaveLength(2);
  });

  it('0051: another x402 address once the merchant’s wallet or commission changed, never two under the same terms', async () => {
    const wallet = `0x${'0d'.repeat(20)}`;
    await handle.db
      .insertInto('payments')
      .values([
        { ...x402Account(15), payout_address: wallet },
        { ...x402Account(16), commission_bps: 250 },
      ])
      .execute();
    await expect(
      handle.db
        .insertInto('payments')
        .values({ ...x402Account(17), payout_address: wallet })
        .execute(),
    ).rejects.toThrow();
    const accounts = handle.db.selectFrom('payments').select('id').where('kind', '=', 'x402');
    expect(await accounts.execute()).toHaveLength(4);
    // Back to one per merchant and mode, so that going down below 0051 fits.
    await handle.db
      .deleteFrom('payments')
      .where('id', 'in', [testPayment(15).id, testPayment(16).id])
      .execute();
    expect(await accounts.execute()).toHaveLength(2);
  });

  it('ties one call’s payment to one authorization', async () => {
    const gasless = (id: string, paymentId: string, nonce: string) => ({
      id,
      payment_id: paymentId,
      chain_id: 137,
      token_address: `0x${'aa'.repeat(20)}`,
      from_address: `0x${'bb'.repeat(20)}`,
      to_address: `0x${'cc'.repeat(20)}`,
      value_base_units: '10000',
      valid_after: '0',
      valid_before: '1800000000',
      nonce,
      signature: '0x00',
      client_address: 'x402:mch_1',
      status: 'pending',
      created_at: NOW,
    });
    const call = testPayment(20);
    const other = testPayment(21);
    await handle.db
      .insertInto('payments')
      .values([paymentRow(call), paymentRow(other)])
      .execute();
    await handle.db
      .insertInto('gasless_authorizations')
      .values([
        gasless('gas_1', call.id, `0x${'01'.repeat(32)}`),
        gasless('gas_2', other.id, `0x${'02'.repeat(32)}`),
      ])
      .execute();
    const record = (paymentId: string, authorizationId: string) => ({
      payment_id: paymentId,
      authorization_id: authorizationId,
      merchant_id: 'mch_1',
      network: 'eip155:137',
      resource_url: 'https://api.example.test/report',
      payer: `0x${'bb'.repeat(20)}`,
      created_at: NOW,
    });
    await handle.db.insertInto('x402_payments').values(record(call.id, 'gas_1')).execute();
    // The same authorization for another payment, or a second record of the same payment: refused.
    await expect(
      handle.db.insertInto('x402_payments').values(record(other.id, 'gas_1')).execute(),
    ).rejects.toThrow();
    await expect(
      handle.db.insertInto('x402_payments').values(record(call.id, 'gas_2')).execute(),
    ).rejects.toThrow();
    expect(await handle.db.selectFrom('x402_payments').selectAll().execute()).toEqual([
      record(call.id, 'gas_1'),
    ]);
  });

  it('goes down again: the table and the index are gone, a second x402 address then fits', async () => {
    expect((await migrator.migrateTo('0044_restricted_keys')).error).toBeUndefined();
    await handle.db.insertInto('payments').values(x402Account(30)).execute();
    await expect(
      handle.db
        .selectFrom('x402_payments' as never)
        .selectAll()
        .execute(),
    ).rejects.toThrow();
  });
});
