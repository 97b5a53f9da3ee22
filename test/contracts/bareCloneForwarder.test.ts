/**
 * Version 3's forwarder as a bare 45-byte clone (decision 0031) on a real anvil node standing in for Polygon, over
 * the sandbox USDC: the address commits to the params because every forwarder function checks them against it
 * (wrong params revert, the right ones pay), and the settler's claim of which forwarders are new
 * (`flushBatchDeploying`) costs no money when wrong either way, and at most CLONE_GAS when a forwarder it called
 * new was deployed meanwhile.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  concat,
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
  testUsdcAbi,
} from '../../src/adapters/chain/contractAbis.ts';
import { deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import {
  type ForwarderParams,
  type ForwarderParamsStruct,
  predictDepositAddress,
  toForwarderStruct,
} from '../../src/adapters/chain/forwarder.ts';
import { deployFactoryV3, type FactoryV3Addresses } from '../../src/adapters/chain/multiChainFactory.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';

const CIRCLE = 0;
const RELAYER = 1;
const STRANGER = 2;
/** The factory's ABI with its forwarders' errors, which its calls pass on. */
const factoryAbi = [
  ...forwarderFactoryV3Abi,
  ...paymentForwarderV3Abi.filter((item) => item.type === 'error'),
] as const;
/** 27.00 USDC at 1 %: 26.73 to the merchant, 0.27 to the treasury. */
const DEPOSIT = 27_000_000n;
const FEE = 270_000n;

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

function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

function newParams(): ForwarderParams {
  return { merchant: randomAddress(), treasury: randomAddress(), feeBps: 100, paymentId: randomUUID() };
}

const depositAddress = (p: ForwarderParams) =>
  predictDepositAddress({ factory: v3.factory, implementation: v3.implementation, params: p, version: 3 });

async function mined(hash: Hex): Promise<TransactionReceipt> {
  const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

async function fund(p: ForwarderParams, amount = DEPOSIT): Promise<Address> {
  const address = depositAddress(p);
  await mined(
    await anvil.wallet(CIRCLE).writeContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [address, amount],
    }),
  );
  return address;
}

function balanceOf(owner: Address): Promise<bigint> {
  return anvil.publicClient.readContract({
    address: usdc,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

function revertName(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError ? reverted.data?.errorName : undefined;
}

async function rejection(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to revert');
}

/** The probing flushBatch, simulated then mined. */
async function flushBatch(batch: readonly ForwarderParams[]): Promise<TransactionReceipt> {
  const { request } = await anvil.publicClient.simulateContract({
    account: anvil.wallet(RELAYER).account,
    address: v3.factory,
    abi: factoryAbi,
    functionName: 'flushBatch',
    args: [batch.map(toForwarderStruct), usdc],
  });
  return mined(await anvil.wallet(RELAYER).writeContract(request));
}

function deployingArgs(batch: readonly ForwarderParams[], claimedNew: readonly boolean[]) {
  const mask = claimedNew.reduce((bits, isNew, i) => (isNew ? bits | (1n << BigInt(i)) : bits), 0n);
  return [batch.map(toForwarderStruct), usdc, mask] as const;
}

function flushDirect(forwarder: Address, p: ForwarderParamsStruct) {
  return anvil.wallet(STRANGER).writeContract({
    address: forwarder,
    abi: paymentForwarderV3Abi,
    functionName: 'flush',
    args: [p, usdc],
  });
}

describe('the bare clone', () => {
  it('is the 45-byte EIP-1167 proxy at the address predicted off-chain and by the factory', async () => {
    const p = newParams();
    const address = await fund(p);
    expect(
      await anvil.publicClient.readContract({
        address: v3.factory,
        abi: factoryAbi,
        functionName: 'predict',
        args: [toForwarderStruct(p)],
      }),
    ).toBe(address);
    const receipt = await flushBatch([p]);
    expect(await anvil.publicClient.getCode({ address })).toBe(
      concat([
        '0x363d3d373d3d3d363d73',
        v3.implementation.toLowerCase() as Hex,
        '0x5af43d82803e903d91602b57fd5bf3',
      ]),
    );
    // The probing path still announces the deploy.
    const deployed = parseEventLogs({ abi: factoryAbi, eventName: 'ForwarderDeployed', logs: receipt.logs });
    expect(deployed.map((e) => e.args.forwarder)).toEqual([address]);
    expect(await balanceOf(p.merchant)).toBe(DEPOSIT - FEE);
    expect(await balanceOf(p.treasury)).toBe(FEE);
  });
});

describe('the address commits to the params', () => {
  it('refuses every params but its own, on flush, burn and owed, and moves nothing; its own params pay', async () => {
    const p = newParams();
    const address = await fund(p);
    await flushBatch([p]);
    await fund(p);
    const own = toForwarderStruct(p);
    const other = toForwarderStruct(newParams());
    const wrongs: ForwarderParamsStruct[] = [
      { ...own, merchant: randomAddress() },
      { ...own, treasury: randomAddress() },
      { ...own, feeBps: own.feeBps + 1 },
      { ...own, feeBps: 0 },
      { ...own, paymentId: toForwarderStruct(newParams()).paymentId },
      // Params of another payment, valid for its own address: not this one's.
      other,
    ];
    for (const wrong of wrongs) {
      expect(revertName(await rejection(flushDirect(address, wrong)))).toBe('NotThisForwarder');
      expect(
        revertName(
          await rejection(
            anvil.wallet(STRANGER).writeContract({
              address,
              abi: paymentForwarderV3Abi,
              functionName: 'burn',
              args: [wrong, DEPOSIT, 0n, 2000],
            }),
          ),
        ),
      ).toBe('NotThisForwarder');
      expect(
        revertName(
          await rejection(
            anvil.publicClient.readContract({
              address,
              abi: paymentForwarderV3Abi,
              functionName: 'owed',
              args: [wrong, usdc],
            }),
          ),
        ),
      ).toBe('NotThisForwarder');
    }
    // Through the factory too: wrong params are another (empty) address, never this one's money.
    expect(await balanceOf(address)).toBe(DEPOSIT);

    // Its own params pass the check: burn then fails for the route (none here), flush pays exactly.
    expect(
      revertName(
        await rejection(
          anvil.wallet(STRANGER).writeContract({
            address,
            abi: paymentForwarderV3Abi,
            functionName: 'burn',
            args: [own, DEPOSIT, 0n, 2000],
          }),
        ),
      ),
    ).toBe('NoBurnRoute');
    expect(
      await anvil.publicClient.readContract({
        address,
        abi: paymentForwarderV3Abi,
        functionName: 'owed',
        args: [own, usdc],
      }),
    ).toEqual([0n, 0n]);
    await mined(await flushDirect(address, own));
    expect(await balanceOf(address)).toBe(0n);
    expect(await balanceOf(p.merchant)).toBe(2n * (DEPOSIT - FEE));
    expect(await balanceOf(p.treasury)).toBe(2n * FEE);
  });

  it('the implementation itself takes no params', async () => {
    const p = newParams();
    await fund(p);
    expect(revertName(await rejection(flushDirect(v3.implementation, toForwarderStruct(p))))).toBe(
      'NotThisForwarder',
    );
  });

  it("deployClone answers the factory alone (it is flushBatchDeploying's bounded-gas frame)", async () => {
    const p = newParams();
    const error = await rejection(
      anvil.wallet(STRANGER).writeContract({
        address: v3.factory,
        abi: factoryAbi,
        functionName: 'deployClone',
        args: [toHex(randomBytes(32))],
      }),
    );
    expect(revertName(error)).toBe('NotFactory');
    expect(await anvil.publicClient.getCode({ address: depositAddress(p) })).toBeUndefined();
  });
});

describe('flushBatchDeploying: the settler says which forwarders are new', () => {
  it('right claims: deploys the new ones without the deploy event and pays each exactly, as flushBatch does', async () => {
    const older = newParams();
    await fund(older);
    await flushBatch([older]);
    const batch = [newParams(), older, newParams()];
    for (const p of batch) await fund(p);
    const { result, request } = await anvil.publicClient.simulateContract({
      account: anvil.wallet(RELAYER).account,
      address: v3.factory,
      abi: factoryAbi,
      functionName: 'flushBatchDeploying',
      args: deployingArgs(batch, [true, false, true]),
    });
    const paid = { merchantSent: DEPOSIT - FEE, feeSent: FEE, merchantOwed: 0n, feeOwed: 0n };
    expect(result).toEqual([paid, paid, paid]);
    const receipt = await mined(await anvil.wallet(RELAYER).writeContract(request));
    expect(parseEventLogs({ abi: factoryAbi, eventName: 'ForwarderDeployed', logs: receipt.logs })).toEqual(
      [],
    );
    const flushed = parseEventLogs({ abi: paymentForwarderV3Abi, eventName: 'Flushed', logs: receipt.logs });
    expect(flushed.map((e) => getAddress(e.address))).toEqual(batch.map(depositAddress));
    for (const p of batch) {
      expect(await balanceOf(depositAddress(p))).toBe(0n);
      expect(await anvil.publicClient.getCode({ address: depositAddress(p) })).not.toBeUndefined();
    }
    expect(await balanceOf(older.merchant)).toBe(2n * (DEPOSIT - FEE));
  });

  it('"deployed" for a forwarder that is not: the batch reverts whole, in simulation and mined; nothing moves', async () => {
    const batch = [newParams(), newParams()];
    for (const p of batch) await fund(p);
    const args = deployingArgs(batch, [true, false]);
    await rejection(
      anvil.publicClient.simulateContract({
        account: anvil.wallet(RELAYER).account,
        address: v3.factory,
        abi: factoryAbi,
        functionName: 'flushBatchDeploying',
        args,
      }),
    );
    const hash = await anvil.wallet(RELAYER).writeContract({
      address: v3.factory,
      abi: factoryAbi,
      functionName: 'flushBatchDeploying',
      args,
      gas: 1_000_000n,
    });
    const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('reverted');
    // A revert returns the gas left: it spent what the first payment used, far from the limit.
    expect(receipt.gasUsed).toBeLessThan(1_000_000n / 4n);
    for (const p of batch) {
      expect(await balanceOf(depositAddress(p))).toBe(DEPOSIT);
      expect(await anvil.publicClient.getCode({ address: depositAddress(p) })).toBeUndefined();
    }
  });

  it('"new" for a forwarder someone deployed meanwhile: it is flushed all the same, at most CLONE_GAS more', async () => {
    const griefed = newParams();
    const fresh = newParams();
    const batch = [fresh, griefed];
    for (const p of batch) await fund(p);
    const right = deployingArgs(batch, [true, false]);
    const wrong = deployingArgs(batch, [true, true]);
    const cloneGas = await anvil.publicClient.readContract({
      address: v3.factory,
      abi: factoryAbi,
      functionName: 'CLONE_GAS',
    });
    // Someone deploys the griefed forwarder (the probing flushBatch is anyone's to call) ...
    await mined(
      await anvil.wallet(STRANGER).writeContract({
        address: v3.factory,
        abi: factoryAbi,
        functionName: 'flushBatch',
        args: [[toForwarderStruct(griefed)], usdc],
      }),
    );
    await fund(griefed);
    const estimate = (args: typeof right) =>
      anvil.publicClient.estimateContractGas({
        account: anvil.wallet(RELAYER).account,
        address: v3.factory,
        abi: factoryAbi,
        functionName: 'flushBatchDeploying',
        args,
      });
    const rightGas = await estimate(right);
    // ... after the settler looked: its stale claim goes through with the gas the right claim needs, plus
    // CLONE_GAS (what the collision consumes) and the fallback's probe of the address's code (a cold 2,600 and
    // the call's few hundred): not the whole batch's gas.
    const bound = rightGas + cloneGas + 5_000n;
    const receipt = await mined(
      await anvil.wallet(RELAYER).writeContract({
        address: v3.factory,
        abi: factoryAbi,
        functionName: 'flushBatchDeploying',
        args: wrong,
        gas: bound,
      }),
    );
    // The collision did consume its bounded frame.
    expect(receipt.gasUsed).toBeGreaterThan(rightGas + cloneGas / 2n);
    expect(await balanceOf(depositAddress(griefed))).toBe(0n);
    expect(await balanceOf(depositAddress(fresh))).toBe(0n);
    expect(await balanceOf(griefed.merchant)).toBe(2n * (DEPOSIT - FEE));
    expect(await balanceOf(griefed.treasury)).toBe(2n * FEE);
    expect(await balanceOf(fresh.merchant)).toBe(DEPOSIT - FEE);
  });

  it('the same payment twice, both called new: the second collides, is flushed with nothing, and the batch goes on', async () => {
    const p = newParams();
    await fund(p);
    const { result } = await anvil.publicClient.simulateContract({
      account: anvil.wallet(RELAYER).account,
      address: v3.factory,
      abi: factoryAbi,
      functionName: 'flushBatchDeploying',
      args: deployingArgs([p, p], [true, true]),
    });
    expect(result).toEqual([
      { merchantSent: DEPOSIT - FEE, feeSent: FEE, merchantOwed: 0n, feeOwed: 0n },
      { merchantSent: 0n, feeSent: 0n, merchantOwed: 0n, feeOwed: 0n },
    ]);
  });
});
