/**
 * ForwarderFactoryV3.payoutBatch on a real anvil node standing in for Polygon, over the sandbox USDC (blacklist and
 * pause as Circle's): each distinct merchant and treasury paid once per batch, and every way a share can fail to
 * go out (a blacklisted payee, a blacklisted deposit address, the token paused) leaving exactly that share in its
 * forwarder, held for its payee, while the rest of the batch is paid. Each outcome is checked to the base unit
 * against version 2's split, computed here independently. Then a hostile token: re-entrant, and keeping a fee
 * on each transfer.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseEventLogs,
  type TransactionReceipt,
  toHex,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  forwarderFactoryV3Abi,
  paymentForwarderV3Abi,
  testHookTokenAbi,
  testUsdcAbi,
} from '../src/adapters/chain/contractAbis.ts';
import { loadContracts } from '../src/adapters/chain/contracts.ts';
import { deploy, deployTestUsdc } from '../src/adapters/chain/deployContracts.ts';
import {
  type ForwarderParams,
  predictDepositAddress,
  toForwarderStruct,
  uuidToBytes16,
} from '../src/adapters/chain/forwarder.ts';
import { deployFactoryV3, type FactoryV3Addresses } from '../src/adapters/chain/multiChainFactory.ts';
import { type Anvil, startAnvil } from './helpers/anvil.ts';

const CIRCLE = 0;
const RELAYER = 1;
/** The factory's ABI with its forwarders' errors, which its calls pass on. */
const factoryAbi = [
  ...forwarderFactoryV3Abi,
  ...paymentForwarderV3Abi.filter((item) => item.type === 'error'),
] as const;

let anvil: Anvil;
let usdc: Address;
let v3: FactoryV3Addresses;

beforeAll(async () => {
  anvil = await startAnvil({ accounts: 3 });
  usdc = await deployTestUsdc(anvil.wallet(CIRCLE), anvil.publicClient);
  // This node as the home chain of the table: USDC is flushed here, never burnt.
  v3 = await deployFactoryV3(anvil.wallet(RELAYER), anvil.publicClient, [
    { chainId: anvil.chain.id, domain: 7, usdc, tokenMessenger: usdc, maxBurnFeeBps: 0 },
  ]);
});

afterAll(async () => {
  await anvil?.stop();
});

type Outcome = { merchantSent: bigint; feeSent: bigint; merchantOwed: bigint; feeOwed: bigint };
const SENT_NOTHING: Outcome = { merchantSent: 0n, feeSent: 0n, merchantOwed: 0n, feeOwed: 0n };

function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

function params(merchant: Address, treasury: Address, feeBps = 100): ForwarderParams {
  return { merchant, treasury, feeBps, paymentId: randomUUID() };
}

const depositAddress = (p: ForwarderParams) =>
  predictDepositAddress({ factory: v3.factory, implementation: v3.implementation, params: p });

/** Version 2's split of a first deposit: the commission rounded down (its fraction carried, not paid). */
function split(amount: bigint, feeBps: number): { merchant: bigint; fee: bigint } {
  const fee = (amount * BigInt(feeBps)) / 10_000n;
  return { merchant: amount - fee, fee };
}

async function mined(hash: Hex): Promise<TransactionReceipt> {
  const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

async function usdcAdmin(
  functionName: 'mint' | 'blacklist' | 'unBlacklist' | 'pause' | 'unpause',
  args: readonly unknown[] = [],
): Promise<void> {
  await mined(
    await anvil.wallet(CIRCLE).writeContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName,
      args,
    } as Parameters<Anvil['walletClients'][number]['writeContract']>[0]),
  );
}

function balanceOf(owner: Address): Promise<bigint> {
  return anvil.publicClient.readContract({
    address: usdc,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

function owed(forwarder: Address): Promise<readonly [bigint, bigint]> {
  return anvil.publicClient.readContract({
    address: forwarder,
    abi: paymentForwarderV3Abi,
    functionName: 'owed',
    args: [usdc],
  });
}

/** Simulates the batch (its outcomes, as the settler probes them), then mines it. */
async function payout(
  batch: readonly ForwarderParams[],
  token: Address = usdc,
): Promise<{ outcomes: readonly Outcome[]; receipt: TransactionReceipt }> {
  const { result, request } = await anvil.publicClient.simulateContract({
    account: anvil.wallet(RELAYER).account,
    address: v3.factory,
    abi: factoryAbi,
    functionName: 'payoutBatch',
    args: [batch.map(toForwarderStruct), token],
  });
  const receipt = await mined(await anvil.wallet(RELAYER).writeContract(request));
  return { outcomes: result, receipt };
}

/** The USDC transfers a mined batch made, as [from, to, value]. */
function transfers(receipt: TransactionReceipt): [Address, Address, bigint][] {
  return parseEventLogs({ abi: testUsdcAbi, eventName: 'Transfer', logs: receipt.logs }).map((log) => [
    getAddress(log.args.from),
    getAddress(log.args.to),
    log.args.value,
  ]);
}

function revertName(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError ? reverted.data?.errorName : undefined;
}

describe('payoutBatch', () => {
  it('pays each distinct merchant and the treasury once, each payment its exact shares, and keeps nothing', async () => {
    const treasury = randomAddress();
    const merchants = Array.from({ length: 5 }, randomAddress);
    // Odd amounts, so that commissions have fractions of a base unit to round down.
    const batch = Array.from({ length: 20 }, (_, i) => params(merchants[i % 5]!, treasury, 100 + i));
    const amounts = batch.map((_, i) => 1_000_003n + 7_919n * BigInt(i));
    for (const [i, p] of batch.entries()) await usdcAdmin('mint', [depositAddress(p), amounts[i]]);
    // Money sent to the factory by mistake is not the batch's to pay out.
    await usdcAdmin('mint', [v3.factory, 5n]);

    const { outcomes, receipt } = await payout(batch);

    const expected = batch.map((p, i) => split(amounts[i]!, p.feeBps));
    expect(outcomes).toEqual(
      expected.map(({ merchant, fee }) => ({ ...SENT_NOTHING, merchantSent: merchant, feeSent: fee })),
    );
    for (const [m, merchant] of merchants.entries()) {
      const due = expected.filter((_, i) => i % 5 === m).reduce((sum, { merchant }) => sum + merchant, 0n);
      expect(await balanceOf(merchant)).toBe(due);
    }
    expect(await balanceOf(treasury)).toBe(expected.reduce((sum, { fee }) => sum + fee, 0n));
    for (const p of batch) expect(await balanceOf(depositAddress(p))).toBe(0n);
    expect(await balanceOf(v3.factory)).toBe(5n);
    // One transfer out of each forwarder, then one per payee: 20 + 5 + 1.
    const moves = transfers(receipt);
    expect(
      moves
        .filter(([from]) => from === v3.factory)
        .map(([, to]) => to)
        .sort(),
    ).toEqual([...merchants, treasury].sort());
    expect(moves).toHaveLength(26);
    // The settler reads each payment's outcome from the factory's PaidOut, as it reads Flushed from a forwarder.
    const paidOut = parseEventLogs({ abi: forwarderFactoryV3Abi, eventName: 'PaidOut', logs: receipt.logs });
    expect(
      paidOut.map((e) => [e.args.forwarder, e.args.paymentId, e.args.merchantAmount, e.args.fee]),
    ).toEqual(
      batch.map((p, i) => [
        depositAddress(p),
        uuidToBytes16(p.paymentId),
        expected[i]!.merchant,
        expected[i]!.fee,
      ]),
    );
  });

  it("holds a blacklisted merchant's shares in their forwarders and pays everyone else; paid later once cleared", async () => {
    const treasury = randomAddress();
    const [refused, accepted] = [randomAddress(), randomAddress()];
    const batch = [params(refused, treasury), params(accepted, treasury), params(refused, treasury)];
    for (const p of batch) await usdcAdmin('mint', [depositAddress(p), 10_000_000n]);
    await usdcAdmin('blacklist', [refused]);
    const factoryBefore = await balanceOf(v3.factory);

    const { outcomes } = await payout(batch);

    const held = { ...SENT_NOTHING, merchantOwed: 9_900_000n, feeSent: 100_000n };
    expect(outcomes).toEqual([held, { ...SENT_NOTHING, merchantSent: 9_900_000n, feeSent: 100_000n }, held]);
    expect(await balanceOf(accepted)).toBe(9_900_000n);
    expect(await balanceOf(treasury)).toBe(300_000n);
    for (const p of [batch[0]!, batch[2]!]) {
      expect(await balanceOf(depositAddress(p))).toBe(9_900_000n);
      expect(await owed(depositAddress(p))).toEqual([9_900_000n, 0n]);
    }
    expect(await balanceOf(v3.factory)).toBe(factoryBefore);

    await usdcAdmin('unBlacklist', [refused]);
    const again = await payout([batch[0]!, batch[2]!]);
    expect(again.outcomes).toEqual([
      { ...SENT_NOTHING, merchantSent: 9_900_000n },
      { ...SENT_NOTHING, merchantSent: 9_900_000n },
    ]);
    expect(await balanceOf(refused)).toBe(19_800_000n);
    expect(await owed(depositAddress(batch[0]!))).toEqual([0n, 0n]);
  });

  it('holds every commission when the treasury is blacklisted, and pays the merchants', async () => {
    const treasury = randomAddress();
    const merchant = randomAddress();
    const batch = [params(merchant, treasury, 250), params(merchant, treasury, 250)];
    for (const p of batch) await usdcAdmin('mint', [depositAddress(p), 4_000_000n]);
    await usdcAdmin('blacklist', [treasury]);

    const { outcomes } = await payout(batch);

    expect(outcomes).toEqual(
      batch.map(() => ({ ...SENT_NOTHING, merchantSent: 3_900_000n, feeOwed: 100_000n })),
    );
    expect(await balanceOf(merchant)).toBe(7_800_000n);
    for (const p of batch) expect(await owed(depositAddress(p))).toEqual([0n, 100_000n]);
    await usdcAdmin('unBlacklist', [treasury]);
  });

  it('flushes on its own a deposit address the token will not move money out of, and pays the rest', async () => {
    const treasury = randomAddress();
    const merchant = randomAddress();
    const [frozen, free] = [params(merchant, treasury), params(merchant, treasury)];
    for (const p of [frozen, free]) await usdcAdmin('mint', [depositAddress(p), 2_000_000n]);
    await usdcAdmin('blacklist', [depositAddress(frozen)]);

    const { outcomes, receipt } = await payout([frozen, free]);

    expect(outcomes).toEqual([
      { ...SENT_NOTHING, merchantOwed: 1_980_000n, feeOwed: 20_000n },
      { ...SENT_NOTHING, merchantSent: 1_980_000n, feeSent: 20_000n },
    ]);
    expect(await balanceOf(merchant)).toBe(1_980_000n);
    expect(await balanceOf(depositAddress(frozen))).toBe(2_000_000n);
    // The frozen one announced its holding itself (Withheld), as a flush does; the factory paid only the other.
    const withheld = parseEventLogs({
      abi: paymentForwarderV3Abi,
      eventName: 'Withheld',
      logs: receipt.logs,
    });
    expect(withheld.map((e) => getAddress(e.address))).toEqual([depositAddress(frozen)]);
    const paidOut = parseEventLogs({ abi: forwarderFactoryV3Abi, eventName: 'PaidOut', logs: receipt.logs });
    expect(paidOut.map((e) => e.args.forwarder)).toEqual([depositAddress(free)]);
  });

  it('holds everything while the token is paused, without reverting', async () => {
    const p = params(randomAddress(), randomAddress());
    await usdcAdmin('mint', [depositAddress(p), 1_000_000n]);
    await usdcAdmin('pause');
    try {
      const { outcomes } = await payout([p]);
      expect(outcomes).toEqual([{ ...SENT_NOTHING, merchantOwed: 990_000n, feeOwed: 10_000n }]);
    } finally {
      await usdcAdmin('unpause');
    }
    expect(await balanceOf(depositAddress(p))).toBe(1_000_000n);
    const { outcomes } = await payout([p]);
    expect(outcomes).toEqual([{ ...SENT_NOTHING, merchantSent: 990_000n, feeSent: 10_000n }]);
  });

  it('pays a payment listed twice once, dust and an empty forwarder exactly', async () => {
    const treasury = randomAddress();
    const merchant = randomAddress();
    const twice = params(merchant, treasury);
    const dust = params(merchant, treasury);
    const empty = params(merchant, treasury);
    await usdcAdmin('mint', [depositAddress(twice), 3_000_001n]);
    await usdcAdmin('mint', [depositAddress(dust), 1n]);

    const { outcomes } = await payout([twice, dust, twice, empty]);

    expect(outcomes).toEqual([
      { ...SENT_NOTHING, merchantSent: 2_970_001n, feeSent: 30_000n },
      // 1 % of one base unit is a fraction: carried in the forwarder, the base unit goes to the merchant.
      { ...SENT_NOTHING, merchantSent: 1n },
      SENT_NOTHING,
      SENT_NOTHING,
    ]);
    expect(await balanceOf(merchant)).toBe(2_970_002n);
    expect(await balanceOf(treasury)).toBe(30_000n);
  });

  it("lets only the factory take or give back a forwarder's shares", async () => {
    const p = params(randomAddress(), randomAddress());
    await usdcAdmin('mint', [depositAddress(p), 1_000_000n]);
    await payout([p]);
    await usdcAdmin('mint', [depositAddress(p), 1_000_000n]);
    for (const [functionName, args] of [
      ['handOver', [usdc]],
      ['withhold', [usdc, 1n, 0n]],
    ] as const) {
      const error = await anvil.publicClient
        .simulateContract({
          account: anvil.wallet(RELAYER).account,
          address: depositAddress(p),
          abi: paymentForwarderV3Abi,
          functionName,
          args,
        } as Parameters<Anvil['publicClient']['simulateContract']>[0])
        .catch((e: unknown) => e);
      expect(revertName(error)).toBe('NotFactory');
    }
    expect(await balanceOf(depositAddress(p))).toBe(1_000_000n);
  });

  it('refuses a batch over the limit', async () => {
    const treasury = randomAddress();
    const batch = Array.from({ length: 101 }, () => params(randomAddress(), treasury));
    const error = await anvil.publicClient
      .simulateContract({
        account: anvil.wallet(RELAYER).account,
        address: v3.factory,
        abi: factoryAbi,
        functionName: 'payoutBatch',
        args: [batch.map(toForwarderStruct), usdc],
      })
      .catch((e: unknown) => e);
    expect(revertName(error)).toBe('BatchTooLarge');
  });

  describe('with a token that is not USDC', () => {
    let hook: Address;

    beforeAll(async () => {
      const { TestHookToken } = await loadContracts();
      hook = await deploy(anvil.wallet(CIRCLE), anvil.publicClient, TestHookToken.bytecode, '0x');
    });

    async function hookToken(
      functionName: 'mint' | 'setFeeBps' | 'setHook',
      args: readonly unknown[],
    ): Promise<void> {
      await mined(
        await anvil.wallet(CIRCLE).writeContract({
          address: hook,
          abi: testHookTokenAbi,
          functionName,
          args,
        } as Parameters<Anvil['walletClients'][number]['writeContract']>[0]),
      );
    }

    const hookRead = (
      functionName: 'hookCalls' | 'hookFailures' | 'balanceOf',
      args: readonly Address[] = [],
    ) =>
      anvil.publicClient.readContract({
        address: hook,
        abi: testHookTokenAbi,
        functionName,
        args,
      } as Parameters<Anvil['publicClient']['readContract']>[0]) as Promise<bigint>;

    it('refuses a re-entrant batch from inside a transfer, and pays the outer batch exactly', async () => {
      const treasury = randomAddress();
      const [outer, inner] = [params(randomAddress(), treasury), params(randomAddress(), treasury)];
      for (const p of [outer, inner]) await hookToken('mint', [depositAddress(p), 1_000_000n]);
      await hookToken('setHook', [
        v3.factory,
        encodeFunctionData({
          abi: factoryAbi,
          functionName: 'payoutBatch',
          args: [[toForwarderStruct(inner)], hook],
        }),
      ]);
      try {
        const { outcomes } = await payout([outer], hook);
        expect(outcomes).toEqual([{ ...SENT_NOTHING, merchantSent: 990_000n, feeSent: 10_000n }]);
      } finally {
        await hookToken('setHook', ['0x0000000000000000000000000000000000000000', '0x']);
      }
      // Every transfer of the outer batch (hand-over, merchant, treasury) tried to re-enter, and none got in.
      expect(await hookRead('hookCalls')).toBe(3n);
      expect(await hookRead('hookFailures')).toBe(3n);
      expect(await hookRead('balanceOf', [outer.merchant])).toBe(990_000n);
      expect(await hookRead('balanceOf', [depositAddress(inner)])).toBe(1_000_000n);
    });

    it('reverts whole on a token that keeps a fee on transfer; flushBatch still pays it', async () => {
      const p = params(randomAddress(), randomAddress());
      await hookToken('mint', [depositAddress(p), 1_000_000n]);
      await hookToken('setFeeBps', [10]);
      try {
        const error = await payout([p], hook).catch((e: unknown) => e);
        expect(revertName(error)).toBe('ShortHandOver');
        expect(await hookRead('balanceOf', [depositAddress(p)])).toBe(1_000_000n);
        await mined(
          await anvil.wallet(RELAYER).writeContract({
            address: v3.factory,
            abi: factoryAbi,
            functionName: 'flushBatch',
            args: [[toForwarderStruct(p)], hook],
          }),
        );
      } finally {
        await hookToken('setFeeBps', [0]);
      }
      // The split is of what the forwarder held; the token kept 0.1 % of each transfer on the way.
      expect(await hookRead('balanceOf', [p.merchant])).toBe(990_000n - 990n);
      expect(await hookRead('balanceOf', [p.treasury])).toBe(10_000n - 10n);
    });
  });
});
