import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from './helpers/apiHarness.ts';
import { runCli } from './helpers/cli.ts';
import { dialects } from './helpers/database.ts';

describe.each(dialects)('paylink settlements retry on %s', (dialect) => {
  let h: ApiHarness;
  let paymentId: string;
  beforeAll(async () => {
    h = await startApiHarness(dialect);
    const { apiKey } = await h.merchant();
    const created = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: '{"amount": 10, "currency": "USDC"}',
    });
    paymentId = created.json().payment_id;
  });
  afterAll(() => h.close());

  const failures = async () =>
    Number(
      (
        await h.database.handle.db
          .selectFrom('payments')
          .select('settlement_failures')
          .where('id', '=', paymentId)
          .executeTakeFirstOrThrow()
      ).settlement_failures,
    );

  it('puts a payment the settler gave up on back in its queue', async () => {
    // The settler leaves a payment alone after 5 failed flushes.
    await h.database.handle.db
      .updateTable('payments')
      .set({ settlement_failures: 5 })
      .where('id', '=', paymentId)
      .execute();
    const result = await runCli(['settlements', 'retry', paymentId], {
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_NETWORK: 'polygon',
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('it had 5 failed attempts');
    expect(await failures()).toBe(0);
  });

  it('says so when there is no such payment', async () => {
    const result = await runCli(['settlements', 'retry', '6f1c1f2e-8a4b-4c1e-9d3a-2b7e5f0a9c11'], {
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_NETWORK: 'polygon',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Payment not found');
  });
});
