/**
 * The contracts on a real EVM (anvil): deposit addresses, exact splits, repeat deposits, stray tokens,
 * batching, and that nobody can put a forwarder with other recipients at a payment's address — for both
 * forwarder versions. Version 2 besides: a recipient that cannot receive (blacklisted, token paused) never holds
 * up the other, and what it could not take waits for it alone.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
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
  forwarderFactoryV1Abi,
  forwarderFactoryV2Abi,
  paymentForwarderV1Abi,
  paymentForwarderV2Abi,
  testUsdcAbi,
} from '../../src/adapters/chain/contractAbis.ts';
import {
  abiModuleSource,
  CONTRACT_ABIS_MODULE_PATH,
  loadContracts,
} from '../../src/adapters/chain/contracts.ts';
import {
  deployFactory,
  deployTestUsdc,
  type ForwarderVersion,
} from '../../src/adapters/chain/deployContracts.ts';
import {
  type ForwarderParams,
  type ForwarderParamsStruct,
  forwarderArgs,
  MAX_FLUSH_BATCH,
  predictDepositAddress,
  toForwarderStruct,
} from '../../src/adapters/chain/forwarder.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';

let anvil: Anvil;
let usdc: Address;
const factories = {} as Record<ForwarderVersion, { factory: Address; implementation: Address }>;

beforeAll(async () => {
  anvil = await startAnvil();
  for (const version of [1, 2] as const) {
    factories[version] = await deployFactory(anvil.wallet(0), anvil.publicClient, version);
  }
  usdc = await deployTestUsdc(anvil.wallet(0), anvil.publicClient);
});

afterAll(async () => {
  await anvil?.stop();
});

const factoryAbis = { 1: forwarderFactoryV1Abi, 2: forwarderFactoryV2Abi } as const;
const forwarderAbis = { 1: paymentForwarderV1Abi, 2: paymentForwarderV2Abi } as const;

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

async function waitForSuccess(hash: Hex): Promise<TransactionReceipt> {
  const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

/** An owner-only call on the test token (mint, blacklist, pause …), mined. */
async function tokenAdmin(
  token: Address,
  functionName: 'mint' | 'blacklist' | 'unBlacklist' | 'pause' | 'unpause',
  args: readonly unknown[] = [],
): Promise<void> {
  const hash = await anvil.wallet(0).writeContract({
    address: token,
    abi: testUsdcAbi,
    functionName,
    args,
  } as Parameters<Anvil['walletClients'][number]['writeContract']>[0]);
  await waitForSuccess(hash);
}

const mint = (token: Address, to: Address, amount: bigint) => tokenAdmin(token, 'mint', [to, amount]);

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

/** The custom error name or `Error(string)` message a call reverts with; a failure if it does not revert. */
async function revertName(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof BaseError)) throw error;
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError)
      return reverted.data?.errorName === 'Error'
        ? reverted.reason
        : (reverted.data?.errorName ?? reverted.reason);
    throw error;
  }
  throw new Error('expected the call to revert');
}

function sha256(hex: Hex): string {
  return createHash('sha256')
    .update(Buffer.from(hex.slice(2), 'hex'))
    .digest('hex');
}

describe('build', () => {
  it('version 1 compiles to the very bytecode that was released (its sources are frozen)', async () => {
    const contracts = await loadContracts();
    // Recorded when version 1 was released; a change here would mean the sources or settings moved.
    expect(sha256(contracts.ForwarderFactory.bytecode)).toBe(
      '54fc5960fd2b868d012faa941d77073cfb15171cd797cda33b408e435cde32c7',
    );
    expect(sha256(contracts.PaymentForwarder.bytecode)).toBe(
      '8a003ecff67be6a34c9ca238cd58dd0df8d4c7698ca323fd154808205110c9bd',
    );
  });

  it('the committed ABI module is what the sources compile to', async () => {
    const committed = await readFile(CONTRACT_ABIS_MODULE_PATH, 'utf8');
    expect(committed).toBe(abiModuleSource(await loadContracts()));
  });

  it('version 2 says so; version 1 has no VERSION at all', async () => {
    expect(
      await anvil.publicClient.readContract({
        address: factories[2].factory,
        abi: forwarderFactoryV2Abi,
        functionName: 'VERSION',
      }),
    ).toBe(2n);
    await expect(
      anvil.publicClient.readContract({
        address: factories[1].factory,
        abi: forwarderFactoryV2Abi,
        functionName: 'VERSION',
      }),
    ).rejects.toThrow();
  });
});

describe.each([1, 2] as const)('forwarder version %i', (version) => {
  const factoryAbi = factoryAbis[version];
  const forwarderAbi = forwarderAbis[version];
  const factory = () => factories[version].factory;
  const implementation = () => factories[version].implementation;
  const predict = (params: ForwarderParams) =>
    predictDepositAddress({ factory: factory(), implementation: implementation(), params });

  async function flushBatch(batch: ForwarderParams[], token: Address, from = 1): Promise<TransactionReceipt> {
    const hash = await anvil.wallet(from).writeContract({
      address: factory(),
      abi: factoryAbi,
      functionName: 'flushBatch',
      args: [batch.map(toForwarderStruct), token],
    });
    return waitForSuccess(hash);
  }

  function simulateFlushBatch(batch: ForwarderParamsStruct[], token: Address) {
    return anvil.publicClient.simulateContract({
      account: anvil.wallet(1).account,
      address: factory(),
      abi: factoryAbi,
      functionName: 'flushBatch',
      args: [batch, token],
    });
  }

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
          address: factory(),
          abi: factoryAbi,
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
        abi: factoryAbi,
        eventName: 'ForwarderDeployed',
        logs: receipt.logs,
      });
      expect(deployed.map((log) => log.args)).toEqual([
        { forwarder: address, paymentId: toForwarderStruct(params).paymentId },
      ]);
      expect(await anvil.publicClient.getCode({ address })).toBe(
        concat([
          '0x363d3d373d3d3d363d73',
          implementation(),
          '0x5af43d82803e903d91602b57fd5bf3',
          forwarderArgs(params),
        ]).toLowerCase(),
      );
      const onChainParams = await anvil.publicClient.readContract({
        address,
        abi: forwarderAbi,
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
      await mint(usdc, implementation(), 1_000n);
      const flushing = anvil.publicClient.simulateContract({
        account: anvil.wallet(1).account,
        address: implementation(),
        abi: forwarderAbi,
        functionName: 'flush',
        args: [usdc],
      });
      expect(await revertName(flushing)).toBe('NotAClone');
      const reading = anvil.publicClient.readContract({
        address: implementation(),
        abi: forwarderAbi,
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
            const flushed = parseEventLogs({ abi: forwarderAbi, eventName: 'Flushed', logs: receipt.logs });
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
        { numRuns: 20 },
      );
    });

    it('forwards later deposits to an already deployed forwarder, by anyone', async () => {
      const params = randomParams({ feeBps: 333 });
      const address = predict(params);
      const deposits = [1_000_000n, 2_000_001n, 10_000n];
      await mint(usdc, address, deposits[0]!);
      await flushBatch([params], usdc);

      await mint(usdc, address, deposits[1]!);
      const again = await flushBatch([params], usdc, 2);
      expect(parseEventLogs({ abi: factoryAbi, eventName: 'ForwarderDeployed', logs: again.logs })).toEqual(
        [],
      );

      // The forwarder's own flush is permissionless too, without going through the factory.
      await mint(usdc, address, deposits[2]!);
      await waitForSuccess(
        await anvil
          .wallet(3)
          .writeContract({ address, abi: forwarderAbi, functionName: 'flush', args: [usdc] }),
      );
      // Version 1 floors each flush; version 2 carries the fraction, so the total is floored once.
      const expected =
        version === 1
          ? deposits
              .map((d) => split(d, 333))
              .reduce((a, b) => ({ merchant: a.merchant + b.merchant, fee: a.fee + b.fee }))
          : split(
              deposits.reduce((a, b) => a + b),
              333,
            );
      expect(await balanceOf(usdc, params.merchant)).toBe(expected.merchant);
      expect(await balanceOf(usdc, params.treasury)).toBe(expected.fee);
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

      const other = await deployFactory(anvil.wallet(2), anvil.publicClient, version);
      const fromOtherFactory = await anvil.publicClient.readContract({
        address: other.factory,
        abi: factoryAbi,
        functionName: 'predict',
        args: [toForwarderStruct(params)],
      });
      expect(fromOtherFactory).not.toBe(original);
      expect(
        predictDepositAddress({ factory: other.factory, implementation: other.implementation, params }),
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
        abi: factoryAbi,
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
        abi: factoryAbi,
        eventName: 'ForwarderDeployed',
        logs: receipt.logs,
      });
      expect(deployed.map((log) => log.args.forwarder)).toEqual(fresh.map(predict));
      const flushed = parseEventLogs({ abi: forwarderAbi, eventName: 'Flushed', logs: receipt.logs });
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
          address: factory(),
          abi: factoryAbi,
          functionName: 'predict',
          args: [params],
        });
        expect(await revertName(predicting)).toBe(error);
      }
    });

    it(`takes at most ${MAX_FLUSH_BATCH} forwarders, and a full batch fits in a block`, async () => {
      expect(
        await anvil.publicClient.readContract({
          address: factory(),
          abi: factoryAbi,
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
});

describe('version 1 with a recipient that cannot receive', () => {
  it('reverts the whole flush when the treasury is blacklisted: the merchant waits too', async () => {
    const { factory, implementation } = factories[1];
    const params = randomParams({ feeBps: 250 });
    const address = predictDepositAddress({ factory, implementation, params });
    await mint(usdc, address, 4_000_000n);
    await tokenAdmin(usdc, 'blacklist', [params.treasury]);
    const flushing = anvil.publicClient.simulateContract({
      account: anvil.wallet(1).account,
      address: factory,
      abi: forwarderFactoryV1Abi,
      functionName: 'flushBatch',
      args: [[toForwarderStruct(params)], usdc],
    });
    // SafeERC20 bubbles the token's own revert: the reason an operator needs.
    expect(await revertName(flushing)).toBe('Blacklistable: account is blacklisted');
    await tokenAdmin(usdc, 'unBlacklist', [params.treasury]);
  });
});

describe('version 2: no party can block the other', () => {
  const { predict, flush, simulate, owed } = {
    predict: (params: ForwarderParams) =>
      predictDepositAddress({
        factory: factories[2].factory,
        implementation: factories[2].implementation,
        params,
      }),
    async flush(params: ForwarderParams, viaFactory = true): Promise<TransactionReceipt> {
      const hash = viaFactory
        ? await anvil.wallet(1).writeContract({
            address: factories[2].factory,
            abi: forwarderFactoryV2Abi,
            functionName: 'flushBatch',
            args: [[toForwarderStruct(params)], usdc],
          })
        : await anvil.wallet(2).writeContract({
            address: predictDepositAddress({
              factory: factories[2].factory,
              implementation: factories[2].implementation,
              params,
            }),
            abi: paymentForwarderV2Abi,
            functionName: 'flush',
            args: [usdc],
          });
      return waitForSuccess(hash);
    },
    async simulate(batch: ForwarderParams[]) {
      const { result } = await anvil.publicClient.simulateContract({
        account: anvil.wallet(1).account,
        address: factories[2].factory,
        abi: forwarderFactoryV2Abi,
        functionName: 'flushBatch',
        args: [batch.map(toForwarderStruct), usdc],
      });
      return result;
    },
    owed: (params: ForwarderParams) =>
      anvil.publicClient.readContract({
        address: predictDepositAddress({
          factory: factories[2].factory,
          implementation: factories[2].implementation,
          params,
        }),
        abi: paymentForwarderV2Abi,
        functionName: 'owed',
        args: [usdc],
      }),
  };

  it('pays the merchant when the treasury is blacklisted, and the treasury its commission once it can receive', async () => {
    const params = randomParams({ feeBps: 250 });
    const address = predict(params);
    await mint(usdc, address, 27_000_000n);
    await tokenAdmin(usdc, 'blacklist', [params.treasury]);

    // An eth_call tells what a flush would do before any gas is spent.
    expect(await simulate([params])).toEqual([
      { merchantSent: 26_325_000n, feeSent: 0n, merchantOwed: 0n, feeOwed: 675_000n },
    ]);
    const receipt = await flush(params);
    expect(await balanceOf(usdc, params.merchant)).toBe(26_325_000n);
    expect(await balanceOf(usdc, params.treasury)).toBe(0n);
    expect(await balanceOf(usdc, address)).toBe(675_000n);
    expect(await owed(params)).toEqual([0n, 675_000n]);
    const events = parseEventLogs({ abi: paymentForwarderV2Abi, logs: receipt.logs });
    expect(events.map((e) => [e.eventName, e.args])).toEqual([
      [
        'Flushed',
        { token: usdc, paymentId: toForwarderStruct(params).paymentId, merchantAmount: 26_325_000n, fee: 0n },
      ],
      [
        'Withheld',
        { token: usdc, paymentId: toForwarderStruct(params).paymentId, merchantOwed: 0n, feeOwed: 675_000n },
      ],
    ]);

    // A later deposit while still blocked: the merchant gets exactly its share of it, nothing of the commission.
    await mint(usdc, address, 1_000_000n);
    await flush(params, false);
    expect(await balanceOf(usdc, params.merchant)).toBe(26_325_000n + 975_000n);
    expect(await owed(params)).toEqual([0n, 675_000n + 25_000n]);

    await tokenAdmin(usdc, 'unBlacklist', [params.treasury]);
    await flush(params);
    expect(await balanceOf(usdc, params.treasury)).toBe(700_000n);
    expect(await balanceOf(usdc, params.merchant)).toBe(27_300_000n);
    expect(await balanceOf(usdc, address)).toBe(0n);
    expect(await owed(params)).toEqual([0n, 0n]);
  });

  it('pays the treasury when the merchant is blacklisted; the merchant share waits for the merchant alone', async () => {
    const params = randomParams({ feeBps: 100 });
    const address = predict(params);
    await mint(usdc, address, 10_000_000n);
    await tokenAdmin(usdc, 'blacklist', [params.merchant]);
    await flush(params);
    expect(await balanceOf(usdc, params.treasury)).toBe(100_000n);
    expect(await balanceOf(usdc, params.merchant)).toBe(0n);
    expect(await owed(params)).toEqual([9_900_000n, 0n]);

    await tokenAdmin(usdc, 'unBlacklist', [params.merchant]);
    await flush(params);
    expect(await balanceOf(usdc, params.merchant)).toBe(9_900_000n);
    expect(await balanceOf(usdc, params.treasury)).toBe(100_000n);
    expect(await balanceOf(usdc, address)).toBe(0n);
  });

  it('while the token is paused a flush moves nothing and does not revert; after unpause it moves everything', async () => {
    const paramsA = randomParams({ feeBps: 200 });
    const paramsB = randomParams({ feeBps: 0 });
    await mint(usdc, predict(paramsA), 5_000_000n);
    await mint(usdc, predict(paramsB), 3_000_000n);
    await tokenAdmin(usdc, 'pause');
    try {
      expect(await simulate([paramsA, paramsB])).toEqual([
        { merchantSent: 0n, feeSent: 0n, merchantOwed: 4_900_000n, feeOwed: 100_000n },
        { merchantSent: 0n, feeSent: 0n, merchantOwed: 3_000_000n, feeOwed: 0n },
      ]);
    } finally {
      await tokenAdmin(usdc, 'unpause');
    }
    expect(await simulate([paramsA, paramsB])).toEqual([
      { merchantSent: 4_900_000n, feeSent: 100_000n, merchantOwed: 0n, feeOwed: 0n },
      { merchantSent: 3_000_000n, feeSent: 0n, merchantOwed: 0n, feeOwed: 0n },
    ]);
  });

  it('carries the fraction of a base unit of commission from one flush to the next', async () => {
    // 50 %: each single base unit is worth half a unit of commission. Floored per flush (version 1) the treasury
    // would get nothing of three such deposits; carried, it gets floor(3 × 0.5) = 1.
    const params = randomParams({ feeBps: 5_000 });
    for (let i = 0; i < 3; i++) {
      await mint(usdc, predict(params), 1n);
      await flush(params, i === 0);
    }
    expect(await balanceOf(usdc, params.treasury)).toBe(1n);
    expect(await balanceOf(usdc, params.merchant)).toBe(2n);
  });

  /**
   * The invariants of version 2 as a property over random deposits, blocks and flushes (with the token paused, the
   * merchant or the treasury blacklisted, in any order): after every flush neither recipient holds more than its
   * due of what arrived so far (the merchant never gets commission, the treasury never the merchant share), a
   * recipient that can receive has all of its due, and once nothing blocks, one flush empties the forwarder into
   * exactly merchant = total − floor(total × bps / 10000) and treasury = floor(total × bps / 10000).
   */
  it('never pays either side the other side’s money, and strands nothing once the blocks clear', async () => {
    type Step =
      | { kind: 'deposit'; amount: bigint }
      | { kind: 'flush'; viaFactory: boolean }
      | { kind: 'block' | 'unblock'; who: 'merchant' | 'treasury' }
      | { kind: 'pause' | 'unpause' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('deposit' as const), amount: fc.bigInt({ min: 1n, max: 10n ** 9n }) }),
      fc.record({ kind: fc.constant('flush' as const), viaFactory: fc.boolean() }),
      fc.record({
        kind: fc.constantFrom('block' as const, 'unblock' as const),
        who: fc.constantFrom('merchant' as const, 'treasury' as const),
      }),
      fc.record({ kind: fc.constantFrom('pause' as const, 'unpause' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 10_000 }),
        fc.array(step, { minLength: 1, maxLength: 10 }),
        async (feeBps, steps) => {
          const params = randomParams({ feeBps });
          const address = predict(params);
          const blocked = { merchant: false, treasury: false };
          let paused = false;
          let total = 0n;
          let deployed = false;
          const due = () => split(total, feeBps);
          try {
            for (const s of steps) {
              if (s.kind === 'deposit') {
                // Minting is refused while paused, like any movement of USDC.
                if (paused) continue;
                await mint(usdc, address, s.amount);
                total += s.amount;
              } else if (s.kind === 'flush') {
                await flush(params, s.viaFactory || !deployed);
                deployed = true;
                const merchant = await balanceOf(usdc, params.merchant);
                const treasury = await balanceOf(usdc, params.treasury);
                expect(merchant).toBeLessThanOrEqual(due().merchant);
                expect(treasury).toBeLessThanOrEqual(due().fee);
                if (!paused && !blocked.merchant) expect(merchant).toBe(due().merchant);
                if (!paused && !blocked.treasury) expect(treasury).toBe(due().fee);
                expect(merchant + treasury + (await balanceOf(usdc, address))).toBe(total);
              } else if (s.kind === 'block' || s.kind === 'unblock') {
                await tokenAdmin(usdc, s.kind === 'block' ? 'blacklist' : 'unBlacklist', [params[s.who]]);
                blocked[s.who] = s.kind === 'block';
              } else {
                await tokenAdmin(usdc, s.kind);
                paused = s.kind === 'pause';
              }
            }
          } finally {
            if (paused) await tokenAdmin(usdc, 'unpause');
            for (const who of ['merchant', 'treasury'] as const)
              if (blocked[who]) await tokenAdmin(usdc, 'unBlacklist', [params[who]]);
          }
          await flush(params, true);
          expect(await balanceOf(usdc, params.merchant)).toBe(due().merchant);
          expect(await balanceOf(usdc, params.treasury)).toBe(due().fee);
          expect(await balanceOf(usdc, address)).toBe(0n);
          expect(await owed(params)).toEqual([0n, 0n]);
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('the USDC stand-in models FiatToken’s controls', () => {
  const read = <F extends 'name' | 'symbol' | 'decimals' | 'version' | 'paused'>(functionName: F) =>
    anvil.publicClient.readContract({ address: usdc, abi: testUsdcAbi, functionName });

  it('looks like USDC, and only its owner (or a minter) mints, blacklists or pauses', async () => {
    expect(await read('name')).toBe('USD Coin (sandbox)');
    expect(await read('symbol')).toBe('USDC');
    expect(await read('decimals')).toBe(6);
    expect(await read('version')).toBe('2');
    const minting = anvil.publicClient.simulateContract({
      account: anvil.wallet(1).account,
      address: usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [anvil.addresses[1]!, 1n],
    });
    expect(await revertName(minting)).toBe('FiatToken: caller is not a minter');
    for (const [functionName, args] of [
      ['configureMinter', [anvil.addresses[1]!, 1n]],
      ['blacklist', [anvil.addresses[1]!]],
      ['pause', []],
    ] as const) {
      const calling = anvil.publicClient.simulateContract({
        account: anvil.wallet(1).account,
        address: usdc,
        abi: testUsdcAbi,
        functionName,
        args,
      } as Parameters<Anvil['publicClient']['simulateContract']>[0]);
      expect(await revertName(calling)).toBe('OwnableUnauthorizedAccount');
    }
  });

  it('a blacklisted account can neither send nor receive; pause stops every transfer', async () => {
    const [sender, receiver] = [anvil.wallet(5), anvil.addresses[6]!];
    await mint(usdc, sender.account.address, 1_000n);
    const transfer = (to: Address) =>
      anvil.publicClient.simulateContract({
        account: sender.account,
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'transfer',
        args: [to, 1n],
      });
    await tokenAdmin(usdc, 'blacklist', [receiver]);
    expect(
      await anvil.publicClient.readContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'isBlacklisted',
        args: [receiver],
      }),
    ).toBe(true);
    expect(await revertName(transfer(receiver))).toBe('Blacklistable: account is blacklisted');
    await tokenAdmin(usdc, 'unBlacklist', [receiver]);
    await tokenAdmin(usdc, 'blacklist', [sender.account.address]);
    expect(await revertName(transfer(receiver))).toBe('Blacklistable: account is blacklisted');
    await tokenAdmin(usdc, 'unBlacklist', [sender.account.address]);

    await tokenAdmin(usdc, 'pause');
    expect(await read('paused')).toBe(true);
    expect(await revertName(transfer(receiver))).toBe('Pausable: paused');
    await tokenAdmin(usdc, 'unpause');
    expect((await transfer(receiver)).result).toBe(true);
  });

  describe('EIP-3009 transferWithAuthorization', () => {
    const customer = () => anvil.wallet(7);
    const payee = () => anvil.addresses[8]!;
    let timestamp: bigint;

    beforeAll(async () => {
      await mint(usdc, customer().account.address, 50_000_000n);
      timestamp = (await anvil.publicClient.getBlock()).timestamp;
    });

    async function authorization(
      overrides: Partial<{
        to: Address;
        value: bigint;
        validAfter: bigint;
        validBefore: bigint;
        nonce: Hex;
      }> = {},
      signer = customer(),
    ) {
      const message = {
        from: customer().account.address,
        to: payee(),
        value: 1_000_000n,
        validAfter: 0n,
        validBefore: timestamp + 3_600n,
        nonce: toHex(randomBytes(32)),
        ...overrides,
      };
      const signature = await signer.signTypedData({
        domain: {
          name: 'USD Coin (sandbox)',
          version: '2',
          chainId: anvil.chain.id,
          verifyingContract: usdc,
        },
        types: {
          TransferWithAuthorization: [
            { name: 'from', type: 'address' },
            { name: 'to', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'validAfter', type: 'uint256' },
            { name: 'validBefore', type: 'uint256' },
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        primaryType: 'TransferWithAuthorization',
        message,
      });
      return { message, signature };
    }

    /** Submitted by someone else (the relayer), who pays the gas: the customer needs no native coin. */
    function submit({ message, signature }: Awaited<ReturnType<typeof authorization>>) {
      return anvil.publicClient.simulateContract({
        account: anvil.wallet(0).account,
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'transferWithAuthorization',
        args: [
          message.from,
          message.to,
          message.value,
          message.validAfter,
          message.validBefore,
          message.nonce,
          signature,
        ],
      });
    }

    it('moves the signed amount when anyone submits it, once; the domain separator is the token’s own', async () => {
      const signed = await authorization();
      const { request } = await submit(signed);
      await waitForSuccess(await anvil.wallet(0).writeContract(request));
      expect(await balanceOf(usdc, payee())).toBe(1_000_000n);
      expect(
        await anvil.publicClient.readContract({
          address: usdc,
          abi: testUsdcAbi,
          functionName: 'authorizationState',
          args: [signed.message.from, signed.message.nonce],
        }),
      ).toBe(true);
      expect(await revertName(submit(signed))).toBe('FiatTokenV2: authorization is used or canceled');
    });

    it('refuses a forged, altered, expired or not-yet-valid authorization with FiatToken’s messages', async () => {
      const forged = await authorization({}, anvil.wallet(6));
      expect(await revertName(submit(forged))).toBe('FiatTokenV2: invalid signature');
      const signed = await authorization();
      expect(await revertName(submit({ ...signed, message: { ...signed.message, value: 2_000_000n } }))).toBe(
        'FiatTokenV2: invalid signature',
      );
      expect(await revertName(submit(await authorization({ validBefore: timestamp - 1n })))).toBe(
        'FiatTokenV2: authorization is expired',
      );
      expect(await revertName(submit(await authorization({ validAfter: timestamp + 3_000n })))).toBe(
        'FiatTokenV2: authorization is not yet valid',
      );
      await tokenAdmin(usdc, 'blacklist', [payee()]);
      expect(await revertName(submit(await authorization()))).toBe('Blacklistable: account is blacklisted');
      await tokenAdmin(usdc, 'unBlacklist', [payee()]);
    });
  });
});
