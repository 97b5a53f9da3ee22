import { describe, expect, it } from 'vitest';
import { FORWARDER } from '../../../test/fakes/fakeBridgeChains.ts';
import { testPayment, testTransfer } from '../../../test/fakes/paymentFixture.ts';
import type { TransferRecord } from '../chain/ports.ts';
import { fastBurnPlan } from './fastBurnPlan.ts';
import type { FastBurnCandidate } from './ports.ts';

/**
 * Whether a fast chain's money is burnt now, and how much (decision 0037): its transfers count once
 * `deepestBlock` deep, the burn goes once they make the payment paid (or it failed), less what was burnt, above
 * the dust threshold, carrying the transfers no burn carries yet.
 */
const payment = testPayment(1);
const forwarder = { ...FORWARDER, paymentId: payment.id };
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const chain = { chainId: 8453, tokenAddress: TOKEN, deepestBlock: 100n };
const BEFORE_EXPIRY = new Date(payment.createdAt.getTime() + 1_800_000);
const AFTER_EXPIRY = new Date(payment.expiresAt.getTime() + 1);
const DUST = 1_000_000n;

const on8453 = (block: number, fields: Partial<TransferRecord> = {}) =>
  testTransfer(payment, block, { chainId: 8453, tokenAddress: TOKEN.toLowerCase(), final: false, ...fields });

const plan = (transfers: TransferRecord[], burnt = 0n, now = BEFORE_EXPIRY, dust = DUST) =>
  fastBurnPlan(
    { forwarder, payment, burntBaseUnits: burnt, transfers } as FastBurnCandidate,
    chain,
    now,
    dust,
  );

describe('fastBurnPlan', () => {
  it('burns a transfer exactly at the deepest block, carrying it, and not one a block above', () => {
    const deep = on8453(100);
    expect(plan([deep])).toEqual({
      ...forwarder,
      sourceChainId: 8453,
      tokenAddress: TOKEN,
      unburntBaseUnits: 10_000_000n,
      firstTransferBlock: 100n,
      carries: [deep.id],
    });
    expect(plan([on8453(101)])).toBeUndefined();
  });

  it('counts a final transfer above the deepest block (finality says more than depth)', () => {
    expect(plan([on8453(101, { final: true })])?.unburntBaseUnits).toBe(10_000_000n);
  });

  it("counts only this chain's transfers of its token, whatever the token address's case", () => {
    const half = { amountBaseUnits: 5_000_000n };
    expect(plan([on8453(90, half), on8453(91, { ...half, tokenAddress: TOKEN })])?.unburntBaseUnits).toBe(
      10_000_000n,
    );
    // Another chain's transfer pays the payment too, but is not this chain's money to burn.
    const elsewhere = testTransfer(payment, 80, { ...half, chainId: 137, tokenAddress: TOKEN.toLowerCase() });
    expect(plan([elsewhere, on8453(90, half)], 0n)?.unburntBaseUnits).toBe(5_000_000n);
    const otherToken = on8453(91, { ...half, tokenAddress: '0x00000000000000000000000000000000000000cc' });
    expect(plan([on8453(90, half), otherToken])).toBeUndefined();
  });

  it('burns what is left at exactly the dust threshold, and nothing a base unit below it or at zero', () => {
    expect(plan([on8453(90)], 9_000_000n)?.unburntBaseUnits).toBe(1_000_000n);
    expect(plan([on8453(90)], 9_000_001n)).toBeUndefined();
    expect(plan([on8453(90)], 10_000_000n, BEFORE_EXPIRY, 0n)).toBeUndefined();
    expect(plan([on8453(90)], 10_000_001n, BEFORE_EXPIRY, 0n)).toBeUndefined();
  });

  it('waits while the payment is only part paid, and burns once it failed', () => {
    const part = [on8453(90, { amountBaseUnits: 5_000_000n })];
    expect(plan(part)).toBeUndefined();
    expect(plan(part, 0n, AFTER_EXPIRY)?.unburntBaseUnits).toBe(5_000_000n);
  });

  it('counts a deep transfer as final for the status: paid, not processing', () => {
    // Ten blocks deep but not final: without counting it as final the payment would still be processing.
    expect(plan([on8453(90)])).toBeDefined();
  });

  it('carries only transfers no burn carries yet, from the oldest deep block', () => {
    const carried = on8453(90, { amountBaseUnits: 5_000_000n, carriedHome: 'under-way' });
    const fresh = on8453(95, { amountBaseUnits: 5_000_000n });
    expect(plan([fresh, carried], 5_000_000n)).toMatchObject({
      unburntBaseUnits: 5_000_000n,
      firstTransferBlock: 90n,
      carries: [fresh.id],
    });
    expect(plan([on8453(90, { carriedHome: 'under-way' })], 0n)).toBeUndefined();
  });
});
