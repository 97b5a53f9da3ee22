import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { runCli } from '../helpers/cli.ts';
import { dialects } from '../helpers/database.ts';

/** `paylink settlements list` and `retry`, as an operator runs them, against payouts in each state. */
describe.each(dialects)('paylink settlements on %s', (dialect) => {
  let h: ApiHarness;
  let delayed: string;
  let withheld: string;
  let waiting: string;
  const env = () => ({ PAYLINK_DATABASE_URL: h.database.url, PAYLINK_NETWORK: 'polygon' });

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    const { apiKey } = await h.merchant();
    const create = async (amount: number) => {
      h.clock.advance(1_000); // created one after the other: the listing is oldest first
      return (
        await h.app.inject({
          method: 'POST',
          url: '/payments/api/create/',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          payload: { amount, currency: 'USDC' },
        })
      ).json().payment_id as string;
    };
    [delayed, withheld, waiting] = [await create(10), await create(20), await create(30)];
    await create(40); // pending, nothing received: no payout owed
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const inAMinute = new Date(Date.now() + 60_000).toISOString();
    const db = h.database.handle.db;
    const paid = (id: string, fields: Record<string, string | number>) =>
      db
        .updateTable('payments')
        .set((eb) => ({
          status: 'paid',
          amount_received_base_units: eb.ref('usdc_amount_base_units'),
          ...fields,
        }))
        .where('id', '=', id)
        .execute();
    await paid(delayed, {
      settlement_failures: 9,
      settlement_retry_at: inAMinute,
      payout_blocked_since: hourAgo,
      payout_blocked_reason: 'Blacklistable: account is blacklisted',
    });
    // The merchant was paid; only the treasury's commission (0.20) is held.
    await paid(withheld, {
      merchant_paid_base_units: '19800000',
      settled_base_units: '19800000',
      settlement_failures: 2,
      settlement_retry_at: inAMinute,
      commission_blocked_since: hourAgo,
      commission_blocked_reason: 'Pausable: paused',
    });
    await paid(waiting, {});
  });
  afterAll(() => h.close());

  it('lists the payouts still owed, oldest first, with a header, why each waits and its next attempt', async () => {
    const result = await runCli(['settlements', 'list'], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PAYMENT\s+PAYOUT\s+UNSETTLED\s+TRIES\s+NEXT ATTEMPT\s+WHY$/);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${delayed}\\s+delayed\\s+10\\.00\\s+9\\s+\\S+Z\\s+merchant share since .+: Blacklistable: account is blacklisted$`,
      ),
    );
    expect(lines[2]).toMatch(
      new RegExp(`^${withheld}\\s+sent\\s+0\\.20\\s+2\\s+\\S+Z\\s+commission since .+: Pausable: paused$`),
    );
    expect(lines[3]).toMatch(
      new RegExp(`^${waiting}\\s+pending\\s+30\\.00\\s+0\\s+next pass\\s+waiting for the next flush$`),
    );
  });

  it('lists only the failing ones with --delayed, and everything as JSON with --json', async () => {
    const failing = await runCli(['settlements', 'list', '--delayed', '--json'], env());
    expect(failing.code).toBe(0);
    const { payouts } = JSON.parse(failing.stdout) as { payouts: Record<string, unknown>[] };
    expect(payouts.map((p) => p.payment_id)).toEqual([delayed, withheld]);
    expect(payouts[0]).toMatchObject({
      payout_status: 'delayed',
      amount_received: '10.00',
      merchant_paid: '0.00',
      unsettled: '10.00',
      failures: 9,
      payout_blocked_reason: 'Blacklistable: account is blacklisted',
      commission_blocked_reason: null,
      livemode: true,
    });
    expect(payouts[1]).toMatchObject({
      payout_status: 'sent',
      merchant_paid: '19.80',
      treasury_paid: '0.00',
    });
  });

  it('retries one payout now, or every one waiting; says so when there is none', async () => {
    const retryAt = async (id: string) =>
      (
        await h.database.handle.db
          .selectFrom('payments')
          .select('settlement_retry_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).settlement_retry_at;

    const one = await runCli(['settlements', 'retry', delayed], env());
    expect(one.stderr).toBe('');
    expect(one.stdout).toContain(`Payment ${delayed} will be tried again on the next settler pass.`);
    expect(await retryAt(delayed)).toBeNull();
    expect(await retryAt(withheld)).not.toBeNull();

    const again = await runCli(['settlements', 'retry', delayed], env());
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('No payment with a payout waiting has this id');

    const all = await runCli(['settlements', 'retry', '--all'], env());
    expect(all.stdout).toContain('1 payout will be tried again on the next settler pass.');
    expect(await retryAt(withheld)).toBeNull();

    const neither = await runCli(['settlements', 'retry'], env());
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give either a payment id or --all');
  });
});
