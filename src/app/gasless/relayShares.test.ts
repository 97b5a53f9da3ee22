import { describe, expect, it } from 'vitest';
import type { GaslessSpend } from './ports.ts';
import { overShare } from './relayAuthorizations.ts';

const CAP = 1_000n; // a share is a tenth: 100 wei
const spend = (from: string, paymentId: string, client: string, feeWei: bigint): GaslessSpend => ({
  from,
  paymentId,
  client,
  feeWei,
});

describe('the hourly shares of the gasless relayer', () => {
  it('holds an x402 merchant to its share once its calls together spent it, whoever paid them', () => {
    const calls = [
      spend('0xa', 'p1', 'x402:mch_1', 40n),
      spend('0xb', 'p2', 'x402:mch_1', 40n),
      spend('0xc', 'p3', 'x402:mch_1', 19n),
    ];
    // 99 wei: one below its share, still served.
    expect(overShare(calls, CAP).skipClients).toEqual([]);
    // 100 wei: its share spent (as the cap, spent ≥ share), though no payer and no payment spent theirs.
    const spent = overShare([...calls, spend('0xd', 'p4', 'x402:mch_1', 1n)], CAP);
    expect(spent).toEqual({ skipPayers: [], skipPayments: [], skipClients: ['x402:mch_1'] });
  });

  it('does not group a checkout’s customers by where they submitted from', () => {
    const checkout = [spend('0xa', 'p1', '203.0.113.7', 60n), spend('0xb', 'p2', '203.0.113.7', 60n)];
    expect(overShare(checkout, CAP).skipClients).toEqual([]);
  });

  it('holds nobody without a cap', () => {
    expect(overShare([spend('0xa', 'p1', 'x402:mch_1', 10_000n)], undefined)).toEqual({
      skipPayers: [],
      skipPayments: [],
      skipClients: [],
    });
  });
});
