/**
 * The contracts on a real EVM (anvil): deposit addresses, exact splits, repeat deposits, stray tokens,
 * batching, and that nobody can put a forwarder with other recipients at a payment's address.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  type Abi,
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
import { loadContracts } from '../src/adapters/chain/contracts.ts';
import { deployFactory, deployTestUsdc, testUsdcAbi } from '../src/adapters/chain/deployContracts.ts';
import {
  type ForwarderParams,
  type ForwarderParamsStruct,
  forwarderArgs,
  forwarderFactoryAbi,
  MAX_FLUSH_BATCH,
  paymentForwarderAbi,
  predictDepositAddress,
  toForwarderStruct,
} from '../src/adapters/chain/forwarder.ts';
import { type Anvil, startAnvil } from './helpers/anvil.ts';

let anvil: Anvil;
let factory: Address;
let implementation: Address;
let usdc: Address;

beforeAll(async () => {
  anvil = await startAnvil();
  ({ factory, implementation } = await deployFactory(anvil.wallet(0), anvil.publicClient));
  usdc = await deployTestUsdc(anvil.wallet(0), anvil.publicClient);
});

afterAll(async () => {
  await anvil?.stop();
});

function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

function randomParams(overrides: Partial<ForwarderParams> = {}): ForwarderParams {
  return {
    merchant: randomAddress(),
    treasury: randomAddress(),
    feeBps: 100,
    paymentId: randomUUID(),
    ...overrides,
  };
}

function predict(params: ForwarderParams): Address {
  return predictDepositAddress({ factory, implementation, params });
}

async function waitForSuccess(hash: Hex): Promise<TransactionReceipt> {
  const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

async function mint(token: Address, to: Address, amount: bigint): Promise<void> {
  const hash = await anvil.wallet(0).writeContract({
    address: token,
    abi: testUsdcAbi,
    functionName: 'mint',
    args: [to, amount],
  });
  await waitForSuccess(hash);
}

async function flushBatch(batch: ForwarderParams[], token: Address, from = 1): Promise<TransactionReceipt> {
  const hash = await anvil.wallet(from).writeContract({
    address: factory,
    abi: forwarderFactoryAbi,
    functionName: 'flushBatch',
    args: [batch.map(toForwarderStruct), token],
  });
  return waitForSuccess(hash);
}

function balanceOf(token: Address, owner: Address): Promise<bigint> {
  return anvil.publicClient.readContract({
    address: token,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

async function hasCode(address: Address): Promise<boolean> {
  const code = await anvil.publicClient.getCode({ address });
  return code !== undefined && code !== '0x';
}

function split(balance: bigint, feeBps: number): { merchant: bigint; fee: bigint } {
  const fee = (balance * BigInt(feeBps)) / 10_000n;
  return { merchant: balance - fee, fee };
}

/** The custom error a call reverts with, or a failure if it does not revert with one. */
async function revertName(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof BaseError)) throw error;
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return reverted.data?.errorName ?? reverted.reason;
    throw error;
  }
  throw new Error('expected the call to revert');
}

function simulateFlushBatch(batch: ForwarderParamsStruct[], token: Address) {
  return anvil.publicClient.simulateContract({
    account: anvil.wallet(1).account,
    address: factory,
    abi: forwarderFactoryAbi,
    functionName: 'flushBatch',
    args: [batch, token],
  });
}

/** ABI items without solc's `internalType`, keyed canonically, to compare hand-written and compiled ABIs. */
function canonicalAbi(abi: Abi | readonly unknown[]): string[] {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => key !== 'internalType')
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([key, inner]) => [key, strip(inner)]),
      );
    }
    return value;
  };
  return abi.map((item) => JSON.stringify(strip(item))).sort();
}

/** What encoding depends on: kind, name, input types (and which are indexed), output types. */
function wireSignature(item: Abi[number]): string {
  if (item.type !== 'function' && item.type !== 'event' && item.type !== 'error') return item.type;
  const inputs = item.inputs.map(
    (input) => `${input.type}${'indexed' in input && input.indexed ? ' indexed' : ''}`,
  );
  const outputs = item.type === 'function' ? item.outputs.map((output) => output.type) : [];
  return `${item.type} ${item.name}(${inputs.join(',')}) (${outputs.join(',')})`;
}

describe('bindings', () => {
  it('the hand-written ABIs are exactly the compiled ones', async () => {
    const contracts = await loadContracts();
    expect(canonicalAbi(forwarderFactoryAbi)).toEqual(canonicalAbi(contracts.ForwarderFactory.abi));
    expect(canonicalAbi(paymentForwarderAbi)).toEqual(canonicalAbi(contracts.PaymentForwarder.abi));
    // viem's erc20Abi names outputs and mutability its own way: compare what calls and logs depend on.
    const compiledUsdc = new Set(contracts.TestUSDC.abi.map(wireSignature));
    for (const item of testUsdcAbi) expect(compiledUsdc).toContain(wireSignature(item));
  });

  it('the test token looks like USDC and only its deployer mints', async () => {
    const read = (functionName: 'name' | 'symbol' | 'decimals') =>
      anvil.publicClient.readContract({ address: usdc, abi: testUsdcAbi, functionName });
    expect(await read('name')).toBe('USD Coin (sandbox)');
    expect(await read('symbol')).toBe('USDC');
    expect(await read('decimals')).toBe(6);
    const minting = anvil.publicClient.simulateContract({
      account: anvil.wallet(1).account,
      address: usdc,
      abi: [
        ...testUsdcAbi,
        { type: 'error', name: 'OwnableUnauthorizedAccount', inputs: [{ type: 'address' }] },
      ],
      functionName: 'mint',
      args: [anvil.wallet(1).account.address, 1n],
    });
    expect(await revertName(minting)).toBe('OwnableUnauthorizedAccount');
  });
});

describe('deposit address', () => {
  it('predicted off-chain equals the factory prediction', async () => {
    const cases = [
      randomParams({ feeBps: 0 }),
      randomParams({ feeBps: 1 }),
      randomParams({ feeBps: 250 }),
      randomParams({ feeBps: 10_000 }),
      randomParams({ paymentId: '00000000-0000-0000-0000-000000000000' }),
      randomParams({ paymentId: 'ffffffff-ffff-ffff-ffff-ffffffffffff' }),
    ];
    for (const params of cases) {
      const onChain = await anvil.publicClient.readContract({
        address: factory,
        abi: forwarderFactoryAbi,
        functionName: 'predict',
        args: [toForwarderStruct(params)],
      });
      expect(onChain).toBe(predict(params));
    }
  });

  it('is where flushBatch deploys an EIP-1167 clone carrying the params, readable back', async () => {
    const params = randomParams({ feeBps: 321 });
    const address = predict(params);
    expect(await hasCode(address)).toBe(false);
    const receipt = await flushBatch([params], usdc);

    const deployed = parseEventLogs({
      abi: forwarderFactoryAbi,
      eventName: 'ForwarderDeployed',
      logs: receipt.logs,
    });
    expect(deployed.map((log) => log.args)).toEqual([
      { forwarder: address, paymentId: toForwarderStruct(params).paymentId },
    ]);
    expect(await anvil.publicClient.getCode({ address })).toBe(
      concat([
        '0x363d3d373d3d3d363d73',
        implementation,
        '0x5af43d82803e903d91602b57fd5bf3',
        forwarderArgs(params),
      ]).toLowerCase(),
    );
    const onChainParams = await anvil.publicClient.readContract({
      address,
      abi: paymentForwarderAbi,
      functionName: 'params',
    });
    expect(onChainParams).toEqual([
      params.merchant,
      params.treasury,
      321,
      toForwarderStruct(params).paymentId,
    ]);
  });

  it('the implementation itself cannot be flushed or read as a forwarder', async () => {
    await mint(usdc, implementation, 1_000n);
    const flushing = anvil.publicClient.simulateContract({
      account: anvil.wallet(1).account,
      address: implementation,
      abi: paymentForwarderAbi,
      functionName: 'flush',
      args: [usdc],
    });
    expect(await revertName(flushing)).toBe('NotAClone');
    const reading = anvil.publicClient.readContract({
      address: implementation,
      abi: paymentForwarderAbi,
      functionName: 'params',
    });
    expect(await revertName(reading)).toBe('NotAClone');
  });
});

describe('flush', () => {
  it('splits any balance exactly: floor(balance × bps / 10000) to the treasury, the rest to the merchant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.integer({ min: 0, max: 10_000 }),
        async (balance, feeBps) => {
          const params = randomParams({ feeBps });
          const address = predict(params);
          await mint(usdc, address, balance);
          const receipt = await flushBatch([params], usdc);

          const expected = split(balance, feeBps);
          expect(await balanceOf(usdc, params.merchant)).toBe(expected.merchant);
          expect(await balanceOf(usdc, params.treasury)).toBe(expected.fee);
          expect(await balanceOf(usdc, address)).toBe(0n);
          const flushed = parseEventLogs({
            abi: paymentForwarderAbi,
            eventName: 'Flushed',
            logs: receipt.logs,
          });
          expect(flushed.map((log) => ({ address: log.address, ...log.args }))).toEqual(
            balance === 0n
              ? []
              : [
                  {
                    address: address.toLowerCase(),
                    token: usdc,
                    paymentId: toForwarderStruct(params).paymentId,
                    merchantAmount: expected.merchant,
                    fee: expected.fee,
                  },
                ],
          );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('forwards a later deposit to an already deployed forwarder, by anyone', async () => {
    const params = randomParams({ feeBps: 333 });
    const address = predict(params);
    await mint(usdc, address, 1_000_000n);
    await flushBatch([params], usdc);

    await mint(usdc, address, 2_000_001n);
    const again = await flushBatch([params], usdc, 2);
    expect(
      parseEventLogs({ abi: forwarderFactoryAbi, eventName: 'ForwarderDeployed', logs: again.logs }),
    ).toEqual([]);
    const first = split(1_000_000n, 333);
    const second = split(2_000_001n, 333);
    expect(await balanceOf(usdc, params.merchant)).toBe(first.merchant + second.merchant);
    expect(await balanceOf(usdc, params.treasury)).toBe(first.fee + second.fee);

    // The forwarder's own flush is permissionless too, without going through the factory.
    await mint(usdc, address, 10_000n);
    await waitForSuccess(
      await anvil.wallet(3).writeContract({
        address,
        abi: paymentForwarderAbi,
        functionName: 'flush',
        args: [usdc],
      }),
    );
    const third = split(10_000n, 333);
    expect(await balanceOf(usdc, params.merchant)).toBe(first.merchant + second.merchant + third.merchant);
    expect(await balanceOf(usdc, params.treasury)).toBe(first.fee + second.fee + third.fee);
    expect(await balanceOf(usdc, address)).toBe(0n);
  });

  it('forwards another token sent by mistake with the same split', async () => {
    const otherToken = await deployTestUsdc(anvil.wallet(0), anvil.publicClient);
    const params = randomParams({ feeBps: 75 });
    const address = predict(params);
    await mint(usdc, address, 500_000n);
    await mint(otherToken, address, 123_456_789n);

    await flushBatch([params], otherToken);
    const expected = split(123_456_789n, 75);
    expect(await balanceOf(otherToken, params.merchant)).toBe(expected.merchant);
    expect(await balanceOf(otherToken, params.treasury)).toBe(expected.fee);
    expect(await balanceOf(otherToken, address)).toBe(0n);
    // Flushing one token leaves the others where they are, for their own flush.
    expect(await balanceOf(usdc, address)).toBe(500_000n);
  });

  it('refuses native coin, which it could never forward', async () => {
    const params = randomParams();
    await flushBatch([params], usdc);
    const sending = anvil.wallet(1).sendTransaction({ to: predict(params), value: 1n });
    await expect(sending).rejects.toThrow();
    expect(await anvil.publicClient.getBalance({ address: predict(params) })).toBe(0n);
  });
});

describe('no forwarder with other recipients at a payment address', () => {
  it('every altered parameter, and another factory, predicts another address', async () => {
    const params = randomParams({ feeBps: 200 });
    const original = predict(params);
    const altered = [
      { ...params, merchant: randomAddress() },
      { ...params, treasury: randomAddress() },
      { ...params, feeBps: 0 },
      { ...params, feeBps: 10_000 },
      { ...params, paymentId: randomUUID() },
    ];
    for (const p of altered) expect(predict(p)).not.toBe(original);

    const { factory: otherFactory, implementation: otherImplementation } = await deployFactory(
      anvil.wallet(2),
      anvil.publicClient,
    );
    const fromOtherFactory = await anvil.publicClient.readContract({
      address: otherFactory,
      abi: forwarderFactoryAbi,
      functionName: 'predict',
      args: [toForwarderStruct(params)],
    });
    expect(fromOtherFactory).not.toBe(original);
    expect(
      predictDepositAddress({ factory: otherFactory, implementation: otherImplementation, params }),
    ).toBe(fromOtherFactory);
  });

  it('deploying altered params leaves the deposit untouched until the right params flush it', async () => {
    const params = randomParams({ feeBps: 200 });
    const original = predict(params);
    await mint(usdc, original, 7_000_000n);

    const attacker = randomAddress();
    const altered = [
      { ...params, merchant: attacker },
      { ...params, treasury: attacker },
      { ...params, feeBps: 0 },
      { ...params, feeBps: 10_000 },
      { ...params, merchant: attacker, treasury: attacker, feeBps: 5_000 },
    ];
    const receipt = await flushBatch(altered, usdc, 4);
    const deployed = parseEventLogs({
      abi: forwarderFactoryAbi,
      eventName: 'ForwarderDeployed',
      logs: receipt.logs,
    });
    expect(deployed).toHaveLength(altered.length);
    expect(deployed.map((log) => log.args.forwarder)).not.toContain(original);
    expect(await hasCode(original)).toBe(false);
    expect(await balanceOf(usdc, original)).toBe(7_000_000n);
    expect(await balanceOf(usdc, attacker)).toBe(0n);

    await flushBatch([params], usdc, 4);
    expect(await balanceOf(usdc, original)).toBe(0n);
    expect(await balanceOf(usdc, params.merchant)).toBe(split(7_000_000n, 200).merchant);
    expect(await balanceOf(usdc, params.treasury)).toBe(split(7_000_000n, 200).fee);
    expect(await balanceOf(usdc, attacker)).toBe(0n);
  });
});

describe('flushBatch', () => {
  it('deploys and flushes several forwarders in one transaction, deploying only the new ones', async () => {
    const alreadyDeployed = randomParams({ feeBps: 10 });
    await flushBatch([alreadyDeployed], usdc);
    const fresh = [0, 1, 99, 5_000, 10_000].map((feeBps) => randomParams({ feeBps }));
    const batch = [...fresh.slice(0, 2), alreadyDeployed, ...fresh.slice(2)];
    const amounts = batch.map((_, i) => 1_000_003n * BigInt(i + 1));
    for (const [i, params] of batch.entries()) await mint(usdc, predict(params), amounts[i]!);

    const receipt = await flushBatch(batch, usdc);
    const deployed = parseEventLogs({
      abi: forwarderFactoryAbi,
      eventName: 'ForwarderDeployed',
      logs: receipt.logs,
    });
    expect(deployed.map((log) => log.args.forwarder)).toEqual(fresh.map(predict));
    const flushed = parseEventLogs({ abi: paymentForwarderAbi, eventName: 'Flushed', logs: receipt.logs });
    expect(flushed.map((log) => getAddress(log.address))).toEqual(batch.map(predict));
    for (const [i, params] of batch.entries()) {
      const expected = split(amounts[i]!, params.feeBps);
      expect(await balanceOf(usdc, params.merchant)).toBe(expected.merchant);
      expect(await balanceOf(usdc, params.treasury)).toBe(expected.fee);
      expect(await balanceOf(usdc, predict(params))).toBe(0n);
      expect(await hasCode(predict(params))).toBe(true);
    }
  });

  it('refuses a commission above 100 % and zero recipients, in predict and flushBatch', async () => {
    const valid = toForwarderStruct(randomParams());
    const cases: [ForwarderParamsStruct, string][] = [
      [{ ...valid, feeBps: 10_001 }, 'FeeTooHigh'],
      [{ ...valid, feeBps: 65_535 }, 'FeeTooHigh'],
      [{ ...valid, merchant: '0x0000000000000000000000000000000000000000' }, 'ZeroAddress'],
      [{ ...valid, treasury: '0x0000000000000000000000000000000000000000' }, 'ZeroAddress'],
    ];
    for (const [params, error] of cases) {
      expect(await revertName(simulateFlushBatch([valid, params], usdc))).toBe(error);
      const predicting = anvil.publicClient.readContract({
        address: factory,
        abi: forwarderFactoryAbi,
        functionName: 'predict',
        args: [params],
      });
      expect(await revertName(predicting)).toBe(error);
    }
  });

  it(`takes at most ${MAX_FLUSH_BATCH} forwarders, and a full batch fits in a block`, async () => {
    expect(
      await anvil.publicClient.readContract({
        address: factory,
        abi: forwarderFactoryAbi,
        functionName: 'MAX_BATCH',
      }),
    ).toBe(BigInt(MAX_FLUSH_BATCH));
    const full = Array.from({ length: MAX_FLUSH_BATCH }, () =>
      toForwarderStruct(randomParams({ feeBps: 150 })),
    );
    expect(await revertName(simulateFlushBatch([...full, full[0]!], usdc))).toBe('BatchTooLarge');

    const treasury = randomAddress();
    const batch = Array.from({ length: MAX_FLUSH_BATCH }, () => randomParams({ treasury, feeBps: 150 }));
    for (const params of batch) await mint(usdc, predict(params), 10_000_000n);
    const receipt = await flushBatch(batch, usdc);
    const block = await anvil.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(receipt.gasUsed).toBeLessThan(block.gasLimit);
    expect(await balanceOf(usdc, treasury)).toBe(BigInt(MAX_FLUSH_BATCH) * split(10_000_000n, 150).fee);
  });
});
