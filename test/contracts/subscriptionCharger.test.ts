/**
 * Pull renewal's SubscriptionCharger (decision 0061) on a real anvil node, over the sandbox USDC with Circle's
 * controls (blacklist, pause) and EIP-2612 permit: each period charged once, exactly at its start and never a
 * second before, never above the cap, only to the terms' merchant and treasury, never after a cancellation or the
 * end; the token's own refusals (allowance revoked, balance, blacklist, pause) stop a charge whole. Every test
 * starts from the same chain state (an anvil snapshot), so time moves forward freely in each.
 */
import { type Address, type Hex, parseEventLogs, parseSignature } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { subscriptionChargerAbi, testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { deploySubscriptionCharger, deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import {
  type MandateDomain,
  type MandateTerms,
  mandateDomain,
  mandateId,
  mandateTypedData,
} from '../../src/domain/subscriptionMandate.ts';
import { addIntervals } from '../../src/domain/subscriptionPeriods.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';

const CIRCLE = 0; // the token's owner, and the relayer that charges
const MERCHANT = 1;
const CUSTOMER = 2;
const TREASURY = 3;
const STRANGER = 4;
const abi = [...subscriptionChargerAbi, ...testUsdcAbi.filter((item) => item.type === 'error')] as const;
/** 10.00 USDC a period at 2.5 %: 9.75 to the merchant, 0.25 to the treasury. */
const CAP = 10_000_000n;
const at = (iso: string) => BigInt(Date.parse(iso) / 1000);
/** Jan 31: the calendar's hardest anchor (Feb 28, then Mar 31 again). */
const START = at('2027-01-31T10:00:00Z');

let anvil: Anvil;
let usdc: Address;
let charger: Address;
let domain: MandateDomain;
let snapshot: Hex;
let who: Record<'merchant' | 'customer' | 'treasury' | 'stranger' | 'relayer', Address>;

beforeAll(async () => {
  anvil = await startAnvil({ accounts: 5 });
  const a = anvil.addresses;
  who = {
    relayer: a[CIRCLE]!,
    merchant: a[MERCHANT]!,
    customer: a[CUSTOMER]!,
    treasury: a[TREASURY]!,
    stranger: a[STRANGER]!,
  };
  usdc = await deployTestUsdc(anvil.wallet(CIRCLE), anvil.publicClient);
  charger = await deploySubscriptionCharger(anvil.wallet(CIRCLE), anvil.publicClient);
  domain = mandateDomain(anvil.chain.id, charger);
  await mined(token(CIRCLE, 'mint', [who.customer, 1_000n * CAP]));
  // The merchant and the treasury hold a little already, as they do after a first payment.
  await mined(token(CIRCLE, 'mint', [who.merchant, 1n]));
  await mined(token(CIRCLE, 'mint', [who.treasury, 1n]));
  snapshot = await anvil.testClient.snapshot();
});

beforeEach(async () => {
  await anvil.testClient.revert({ id: snapshot });
  snapshot = await anvil.testClient.snapshot();
});

afterAll(async () => {
  await anvil?.stop();
});

function terms(overrides: Partial<MandateTerms> = {}): MandateTerms {
  return {
    customer: who.customer,
    merchant: who.merchant,
    treasury: who.treasury,
    feeBps: 250,
    token: usdc,
    cap: CAP,
    periodSeconds: 0,
    periodMonths: 1,
    start: START,
    periods: 12,
    end: 0n,
    salt: `0x${'11'.repeat(32)}`,
    ...overrides,
  };
}

function sign(t: MandateTerms, signer = CUSTOMER): Promise<Hex> {
  return anvil.wallet(signer).signTypedData(mandateTypedData(domain, t));
}

function token(from: number, functionName: string, args: readonly unknown[]) {
  return anvil.wallet(from).writeContract({ address: usdc, abi: testUsdcAbi, functionName, args } as never);
}

async function mined(hash: Promise<Hex>) {
  const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash: await hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

const balance = (address: Address) =>
  anvil.publicClient.readContract({
    address: usdc,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  });

async function approve(value = 2n ** 256n - 1n) {
  await mined(token(CUSTOMER, 'approve', [charger, value]));
}

/** The next block at `timestamp`; the charge mined in it (the relayer pays the gas). */
async function chargeAt(timestamp: bigint, t: MandateTerms, signature: Hex, period: bigint, amount: bigint) {
  await anvil.testClient.setNextBlockTimestamp({ timestamp });
  const receipt = await mined(
    anvil.wallet(CIRCLE).writeContract({
      address: charger,
      abi,
      functionName: 'charge',
      args: [t, signature, period, amount],
    }),
  );
  const block = await anvil.publicClient.getBlock({ blockNumber: receipt.blockNumber });
  expect(block.timestamp).toBe(timestamp);
  return receipt;
}

/** The charge refused at `timestamp`, with the contract's or the token's reason matching `reason`. */
async function refusedAt(
  timestamp: bigint,
  t: MandateTerms,
  signature: Hex,
  period: bigint,
  amount: bigint,
  reason: RegExp,
) {
  await anvil.testClient.setNextBlockTimestamp({ timestamp });
  await expect(
    anvil.wallet(CIRCLE).writeContract({
      address: charger,
      abi,
      functionName: 'charge',
      args: [t, signature, period, amount],
    }),
  ).rejects.toThrow(reason);
}

describe('the charger charges signed terms', () => {
  it('charges three monthly periods at their starts, the merchant and the treasury exact each time', async () => {
    await approve();
    const t = terms();
    const signature = await sign(t);
    const starts = [START, at('2027-02-28T10:00:00Z'), at('2027-03-31T10:00:00Z')];
    const amounts = [CAP, 9_990_001n, 1n];
    // 2.5 % rounded down: the merchant never gets less than their share.
    const fees = [250_000n, 249_750n, 0n];
    for (const [period, start] of starts.entries()) {
      const before = await Promise.all([who.merchant, who.treasury, who.customer].map(balance));
      const receipt = await chargeAt(
        start,
        t,
        period === 0 ? signature : '0x',
        BigInt(period),
        amounts[period]!,
      );
      const after = await Promise.all([who.merchant, who.treasury, who.customer].map(balance));
      expect(after[0]! - before[0]!).toBe(amounts[period]! - fees[period]!);
      expect(after[1]! - before[1]!).toBe(fees[period]!);
      expect(before[2]! - after[2]!).toBe(amounts[period]!);
      const [charged] = parseEventLogs({
        abi: subscriptionChargerAbi,
        logs: receipt.logs,
        eventName: 'Charged',
      });
      expect(charged?.args).toEqual({
        mandate: mandateId(domain, t),
        period: BigInt(period),
        amount: amounts[period],
        fee: fees[period],
      });
      // Nothing else moves: every transfer of the charge is from the customer to one of the two payees.
      const transfers = parseEventLogs({ abi: testUsdcAbi, logs: receipt.logs, eventName: 'Transfer' });
      for (const transfer of transfers) {
        expect(transfer.args.from).toBe(who.customer);
        expect([who.merchant, who.treasury]).toContain(transfer.args.to);
      }
    }
    expect(await balance(charger)).toBe(0n);
    expect(await balance(who.relayer)).toBe(0n);
    const state = await anvil.publicClient.readContract({
      address: charger,
      abi,
      functionName: 'stateOf',
      args: [mandateId(domain, t)],
    });
    expect(state).toBe(3n);
  });

  it('refuses a period one second before its start, and charges it exactly at its start', async () => {
    await approve();
    const t = terms();
    const signature = await sign(t);
    await refusedAt(START - 1n, t, signature, 0n, CAP, /NotCurrentPeriod/);
    await chargeAt(START, t, signature, 0n, CAP);
    const february = at('2027-02-28T10:00:00Z');
    await refusedAt(february - 1n, t, signature, 1n, CAP, /NotCurrentPeriod/);
    // A period's end belongs to the next one: period 0 cannot be charged at February's start either.
    await refusedAt(february, t, signature, 0n, CAP, /AlreadyCharged|NotCurrentPeriod/);
    await chargeAt(february, t, signature, 1n, CAP);
  });

  it('refuses a second charge in the same period, and a past period after a later one', async () => {
    await approve();
    const t = terms();
    const signature = await sign(t);
    await chargeAt(START + 60n, t, signature, 0n, 1_000_000n);
    await refusedAt(START + 120n, t, signature, 0n, 1_000_000n, /AlreadyCharged/);
    expect(await balance(who.merchant)).toBe(1n + 975_000n);
  });

  it('refuses an amount above the cap, and charges the cap itself', async () => {
    await approve();
    const t = terms();
    const signature = await sign(t);
    await refusedAt(START, t, signature, 0n, CAP + 1n, /AmountAboveCap/);
    await refusedAt(START + 1n, t, signature, 0n, 0n, /ZeroAmount/);
    await chargeAt(START + 2n, t, signature, 0n, CAP);
  });

  it('refuses terms other than the ones signed, and a signature by anyone but the customer', async () => {
    await approve();
    const t = terms();
    const signature = await sign(t);
    await refusedAt(START, { ...t, cap: CAP * 2n }, signature, 0n, CAP, /InvalidSignature/);
    await refusedAt(START + 1n, { ...t, merchant: who.stranger }, signature, 0n, CAP, /InvalidSignature/);
    await refusedAt(START + 2n, { ...t, feeBps: 9_000 }, signature, 0n, CAP, /InvalidSignature/);
    await refusedAt(START + 3n, t, await sign(t, STRANGER), 0n, CAP, /InvalidSignature/);
    await refusedAt(START + 4n, t, '0x', 0n, CAP, /InvalidSignature/);
    // A later period of other terms is no way around the first check: their state is their own.
    expect(await balance(who.merchant)).toBe(1n);
  });

  it('refuses terms without a period length, and a period index out of any calendar', async () => {
    await approve();
    const noLength = terms({ periodMonths: 0 });
    await refusedAt(START, noLength, await sign(noLength), 0n, CAP, /InvalidTerms/);
    const both = terms({ periodSeconds: 86_400 });
    await refusedAt(START + 1n, both, await sign(both), 0n, CAP, /InvalidTerms/);
    const open = terms({ periods: 0 });
    await refusedAt(START + 2n, open, await sign(open), 2n ** 32n, CAP, /InvalidTerms/);
    // The fee's unchecked product needs a cap below 2^128: exactly at it refused, one below charged.
    const widest = terms({ cap: 2n ** 128n });
    await refusedAt(START + 3n, widest, await sign(widest), 0n, CAP, /InvalidTerms/);
    const wide = terms({ cap: 2n ** 128n - 1n });
    await chargeAt(START + 4n, wide, await sign(wide), 0n, CAP);
  });

  it('stops when the customer revokes the allowance mid-plan', async () => {
    await approve();
    const t = terms();
    const signature = await sign(t);
    await chargeAt(START, t, signature, 0n, CAP);
    await mined(token(CUSTOMER, 'approve', [charger, 0n]));
    await refusedAt(at('2027-02-28T10:00:00Z'), t, '0x', 1n, CAP, /ERC20InsufficientAllowance/);
  });

  it('refuses while the balance is too low, and charges the same period once topped up', async () => {
    await approve();
    const t = terms();
    const signature = await sign(t);
    const all = await balance(who.customer);
    await mined(token(CUSTOMER, 'transfer', [who.stranger, all - CAP + 1n]));
    await refusedAt(START, t, signature, 0n, CAP, /ERC20InsufficientBalance/);
    await mined(token(STRANGER, 'transfer', [who.customer, 1n]));
    await chargeAt(START + 3_600n, t, signature, 0n, CAP);
    expect(await balance(who.customer)).toBe(0n);
  });

  it("refuses a blacklisted payer and a paused token with Circle's reasons", async () => {
    await approve();
    const t = terms();
    const signature = await sign(t);
    await mined(token(CIRCLE, 'blacklist', [who.customer]));
    await refusedAt(START, t, signature, 0n, CAP, /Blacklistable: account is blacklisted/);
    await mined(token(CIRCLE, 'unBlacklist', [who.customer]));
    await mined(token(CIRCLE, 'pause', []));
    await refusedAt(START + 1n, t, signature, 0n, CAP, /Pausable: paused/);
    await mined(token(CIRCLE, 'unpause', []));
    await chargeAt(START + 2n, t, signature, 0n, CAP);
  });

  it('is canceled for good by its customer alone', async () => {
    await approve();
    const t = terms();
    const signature = await sign(t);
    await chargeAt(START, t, signature, 0n, CAP);
    await expect(
      anvil.wallet(MERCHANT).writeContract({ address: charger, abi, functionName: 'cancel', args: [t] }),
    ).rejects.toThrow(/NotCustomer/);
    await mined(
      anvil.wallet(CUSTOMER).writeContract({ address: charger, abi, functionName: 'cancel', args: [t] }),
    );
    await refusedAt(at('2027-02-28T10:00:00Z'), t, signature, 1n, CAP, /MandateCanceled/);
  });

  it('refuses the period after the last, and anything at or after the end', async () => {
    await approve();
    const twoMonths = terms({ periods: 2 });
    const signature = await sign(twoMonths);
    await chargeAt(START, twoMonths, signature, 0n, CAP);
    await chargeAt(at('2027-02-28T10:00:00Z'), twoMonths, '0x', 1n, CAP);
    await refusedAt(at('2027-03-31T10:00:00Z'), twoMonths, '0x', 2n, CAP, /TermsEnded/);

    const daily = at('2027-04-01T00:00:00Z');
    const end = daily + 7n * 86_400n;
    const weekly = terms({
      periodSeconds: 86_400,
      periodMonths: 0,
      start: daily,
      periods: 0,
      end,
      salt: `0x${'22'.repeat(32)}`,
    });
    const weeklySignature = await sign(weekly);
    await chargeAt(end - 86_401n, weekly, weeklySignature, 5n, CAP);
    await chargeAt(end - 1n, weekly, weeklySignature, 6n, CAP);
    await refusedAt(end, weekly, weeklySignature, 7n, CAP, /TermsEnded/);
  });

  it('takes the permit and the terms together: the grant costs the customer no gas', async () => {
    const t = terms();
    const signature = await sign(t);
    const deadline = START + 3_600n;
    const permit = await anvil.wallet(CUSTOMER).signTypedData({
      domain: { name: 'USD Coin (sandbox)', version: '2', chainId: anvil.chain.id, verifyingContract: usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: who.customer, spender: charger, value: CAP * 12n, nonce: 0n, deadline },
    });
    const { v, r, s } = parseSignature(permit);
    const customerNonce = await anvil.publicClient.getTransactionCount({ address: who.customer });
    await anvil.testClient.setNextBlockTimestamp({ timestamp: START });
    await mined(
      anvil.wallet(CIRCLE).writeContract({
        address: charger,
        abi,
        functionName: 'permitAndCharge',
        args: [t, signature, 0n, CAP, CAP * 12n, deadline, Number(v), r, s],
      }),
    );
    expect(await anvil.publicClient.getTransactionCount({ address: who.customer })).toBe(customerNonce);
    const allowance = await anvil.publicClient.readContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: 'allowance',
      args: [who.customer, charger],
    });
    expect(allowance).toBe(CAP * 11n);
    // The same permit again (already used, as when someone submitted it first) is ignored; the period is not.
    await anvil.testClient.setNextBlockTimestamp({ timestamp: START + 1n });
    await expect(
      anvil.wallet(CIRCLE).writeContract({
        address: charger,
        abi,
        functionName: 'permitAndCharge',
        args: [t, signature, 0n, CAP, CAP * 12n, deadline, Number(v), r, s],
      }),
    ).rejects.toThrow(/AlreadyCharged/);
  });

  it("counts periods on the subscriptions' own calendar", async () => {
    const cases = [
      { start: '2027-01-31T10:00:00Z', unit: 'month', count: 1, months: 1 },
      { start: '2028-02-29T23:59:59Z', unit: 'year', count: 1, months: 12 },
      { start: '2027-08-31T00:00:00Z', unit: 'month', count: 3, months: 3 },
    ] as const;
    for (const c of cases) {
      const t = terms({ start: at(c.start), periodMonths: c.months });
      for (const period of [0, 1, 2, 5, 13, 48]) {
        const onChain = await anvil.publicClient.readContract({
          address: charger,
          abi,
          functionName: 'periodStart',
          args: [t, BigInt(period)],
        });
        const expected = addIntervals(new Date(c.start), { unit: c.unit, count: c.count }, period);
        expect(new Date(Number(onChain) * 1000).toISOString()).toBe(expected.toISOString());
      }
    }
  });
});
