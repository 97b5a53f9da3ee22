import { describe, expect, it } from 'vitest';
import { testPayment } from '../../../test/fakes/paymentFixture.ts';
import { DEFAULT_PAYOUT_POLICY, NO_PAYOUT_YET } from '../../domain/payout.ts';
import { listPayouts } from './listPayouts.ts';
import type { SettlementStore, UnsettledPayout } from './ports.ts';

const NOW = new Date('2026-12-04T12:00:00.000Z');
const clock = { now: () => NOW };
const policy = DEFAULT_PAYOUT_POLICY;

/** A store that answers `rows` and records the filter it was asked with. */
function store(rows: UnsettledPayout[]) {
  const asked: Parameters<SettlementStore['listUnsettled']>[0][] = [];
  const settlements = {
    listUnsettled: async (filter: Parameters<SettlementStore['listUnsettled']>[0]) => {
      asked.push(filter);
      return rows;
    },
  } as unknown as SettlementStore;
  return { settlements, asked };
}

describe('listPayouts', () => {
  it('shows each payout still owed in exact USDC, with its back-off and the reasons of each share', async () => {
    const blockedSince = new Date(NOW.getTime() - policy.delayedAfterMs);
    const payment = testPayment(1, {
      status: 'paid',
      amountReceivedBaseUnits: 10_000_001n,
      payout: {
        ...NO_PAYOUT_YET,
        merchantPaidBaseUnits: 1n,
        treasuryPaidBaseUnits: 2n,
        failures: 3,
        retryAt: new Date('2026-12-04T12:01:00.000Z'),
        blockedSince,
        blockedReason: 'Blacklistable: account is blacklisted',
        commissionBlockedSince: new Date('2026-12-04T11:00:00.000Z'),
        commissionBlockedReason: 'treasury refused',
      },
    });
    const { settlements, asked } = store([{ payment, unsettledBaseUnits: 9_999_998n }]);
    expect(await listPayouts({ settlements, clock }, policy, { failingOnly: true, limit: 500 })).toEqual([
      {
        payment_id: payment.id,
        merchant_id: 'mch_1',
        chain_id: 137,
        livemode: true,
        status: 'paid',
        // Failing for exactly the configured time: delayed.
        payout_status: 'delayed',
        amount_received: '10.000001',
        merchant_paid: '0.000001',
        treasury_paid: '0.000002',
        unsettled: '9.999998',
        failures: 3,
        next_attempt_at: '2026-12-04T12:01:00.000Z',
        payout_blocked_since: blockedSince.toISOString(),
        payout_blocked_reason: 'Blacklistable: account is blacklisted',
        commission_blocked_since: '2026-12-04T11:00:00.000Z',
        commission_blocked_reason: 'treasury refused',
      },
    ]);
    expect(asked).toEqual([{ dustThresholdBaseUnits: 10_000n, failingOnly: true, limit: 500 }]);
  });

  it('shows a test-mode payout with nothing failing, and no chain for a payment without a deposit', async () => {
    const payment = testPayment(2, {
      status: 'paid',
      amountReceivedBaseUnits: 10_000_000n,
      mode: 'test',
      deposit: null,
    });
    const { settlements } = store([{ payment, unsettledBaseUnits: 10_000_000n }]);
    const [view] = await listPayouts({ settlements, clock }, policy, { failingOnly: false, limit: 1 });
    expect(view).toMatchObject({
      chain_id: null,
      livemode: false,
      payout_status: 'pending',
      next_attempt_at: null,
      payout_blocked_since: null,
      commission_blocked_since: null,
    });
  });

  it('takes a limit from 1 to 500, whole', async () => {
    const { settlements, asked } = store([]);
    for (const limit of [0, 501, 1.5])
      await expect(
        listPayouts({ settlements, clock }, policy, { failingOnly: false, limit }),
      ).rejects.toThrow('limit must be 1..500');
    expect(asked).toEqual([]);
    for (const limit of [1, 500])
      await listPayouts({ settlements, clock }, policy, { failingOnly: false, limit });
    expect(asked.map((a) => a.limit)).toEqual([1, 500]);
  });
});
