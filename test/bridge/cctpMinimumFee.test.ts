/**
 * CCTP v2.1's minimum fee as the project's TokenMessengerV2 models Circle's (decision 0035): `minFee` in
 * thousandths of a basis point set by the min-fee controller, `getMinFeeAmount` (floor, one base unit at least),
 * and every burn refused below it ("Insufficient max fee"), standard and fast alike, at exactly the boundary.
 * Then what reads it: the source chain adapter (getMinFeeAmount, 0 from a messenger before v2.1, the factory's
 * cap) and the local attestation service's fees answer, in Iris's format.
 */
import { type Address, BaseError, ContractFunctionRevertedError, type Hex, zeroAddress } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fetchBurnFees } from '../../src/adapters/cctp/burnFees.ts';
import { createSourceBurns } from '../../src/adapters/cctp/burnsAndMints.ts';
import { addressToBytes32, FINALITY_FAST, FINALITY_STANDARD } from '../../src/adapters/cctp/cctpMessage.ts';
import { startLocalAttestationService } from '../../src/adapters/cctp/localAttestationService.ts';
import { chainReader } from '../../src/adapters/chain/chainReader.ts';
import { testTokenMessengerV2Abi, testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { type CctpChain, type CctpChains, CIRCLE, startCctpChains } from '../helpers/cctpChains.ts';

const MAX_FEE_BPS = 10;
/** anvil's account 2: Circle's min-fee controller once the owner hands the role over. */
const CONTROLLER = 2;
/** anvil's account 3: someone burning USDC of their own. */
const HOLDER = 3;

let net: CctpChains;
let base: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: 7 },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: MAX_FEE_BPS },
    ],
    { confirmations: { fast: 1, standard: 2 }, fastFeeBps: 1 },
  );
  base = net.chain('base');
  const holder = base.anvil.wallet(HOLDER).account.address;
  await mined(
    await base.anvil.wallet(CIRCLE).writeContract({
      address: base.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [holder, 1_000_000_000n],
    }),
  );
  await mined(
    await base.anvil.wallet(HOLDER).writeContract({
      address: base.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'approve',
      args: [base.cctp.tokenMessenger, 1_000_000_000n],
    }),
  );
});
afterAll(async () => {
  await net?.stop();
});
afterEach(async () => {
  await setMinFee(0n);
});

async function mined(hash: Hex) {
  const receipt = await base.anvil.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

/** Sets the minimum as whoever holds the controller role now (the owner until it hands it over). */
async function setMinFee(minFee: bigint): Promise<void> {
  const controller = await base.anvil.publicClient.readContract({
    address: base.cctp.tokenMessenger,
    abi: testTokenMessengerV2Abi,
    functionName: 'minFeeController',
  });
  const wallet = base.anvil.walletClients.find((w) => w.account.address === controller);
  if (!wallet) throw new Error(`no wallet for the min-fee controller ${controller}`);
  await mined(
    await wallet.writeContract({
      address: base.cctp.tokenMessenger,
      abi: testTokenMessengerV2Abi,
      functionName: 'setMinFee',
      args: [minFee],
    }),
  );
}

const minFeeAmount = (amount: bigint) =>
  base.anvil.publicClient.readContract({
    address: base.cctp.tokenMessenger,
    abi: testTokenMessengerV2Abi,
    functionName: 'getMinFeeAmount',
    args: [amount],
  });

/** Why a call or simulation reverted: Solidity's `require` string, or the custom error's name. */
async function reasonOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof BaseError)) throw error;
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? reverted.data?.errorName;
    throw error;
  }
  throw new Error('the call went through');
}

/** The holder's burn of `amount` to Polygon offering `maxFee`, simulated (what it would do, no gas spent). */
const simulateBurn = (amount: bigint, maxFee: bigint, threshold: number) =>
  base.anvil.publicClient.simulateContract({
    account: base.anvil.wallet(HOLDER).account,
    address: base.cctp.tokenMessenger,
    abi: testTokenMessengerV2Abi,
    functionName: 'depositForBurn',
    args: [
      amount,
      7,
      addressToBytes32(base.anvil.wallet(HOLDER).account.address),
      base.cctp.usdc,
      addressToBytes32(zeroAddress),
      maxFee,
      threshold,
    ],
  });

describe("the messenger's minimum fee (TestTokenMessengerV2, as Circle's v2.1)", () => {
  it('is none by default: any amount, maxFee 0 burns', async () => {
    expect(await minFeeAmount(0n)).toBe(0n);
    expect(await minFeeAmount(1n)).toBe(0n);
    expect(await minFeeAmount(10_000_000n)).toBe(0n);
    await simulateBurn(10_000_000n, 0n, FINALITY_STANDARD);
  });

  it('is floor(amount × minFee / 10 000 000), one base unit at least, and refuses an amount of one', async () => {
    await setMinFee(1_000n); // 1 bp
    expect(await minFeeAmount(10_000_000n)).toBe(1_000n);
    expect(await minFeeAmount(10_009_999n)).toBe(1_000n);
    expect(await minFeeAmount(10_010_000n)).toBe(1_001n);
    expect(await minFeeAmount(9_999n)).toBe(1n);
    expect(await minFeeAmount(2n)).toBe(1n);
    expect(await reasonOf(minFeeAmount(1n))).toBe('Amount too low');
    await setMinFee(1_500n); // 1.5 bp
    expect(await minFeeAmount(10_000_001n)).toBe(1_500n);
  });

  it('refuses a burn one base unit below the minimum and accepts one exactly at it, standard and fast', async () => {
    await setMinFee(1_000n);
    for (const threshold of [FINALITY_STANDARD, FINALITY_FAST]) {
      expect(await reasonOf(simulateBurn(10_000_000n, 999n, threshold))).toBe('Insufficient max fee');
      await simulateBurn(10_000_000n, 1_000n, threshold);
    }
    // Below one base unit of fee the minimum is still one: maxFee 0 is refused, 1 accepted.
    expect(await reasonOf(simulateBurn(5_000n, 0n, FINALITY_STANDARD))).toBe('Insufficient max fee');
    await simulateBurn(5_000n, 1n, FINALITY_STANDARD);
    // And a real burn at exactly the minimum goes through and says what it offered.
    const { request } = await simulateBurn(10_000_000n, 1_000n, FINALITY_STANDARD);
    await mined(await base.anvil.wallet(HOLDER).writeContract(request));
  });

  it('is set by the min-fee controller alone, below 100 %, the role rotated by the owner', async () => {
    const setAs = (index: number, minFee: bigint) =>
      base.anvil.publicClient.simulateContract({
        account: base.anvil.wallet(index).account,
        address: base.cctp.tokenMessenger,
        abi: testTokenMessengerV2Abi,
        functionName: 'setMinFee',
        args: [minFee],
      });
    expect(await reasonOf(setAs(HOLDER, 1_000n))).toBe('Caller is not the min fee controller');
    expect(await reasonOf(setAs(CIRCLE, 10_000_000n))).toBe('Min fee too high');
    await setAs(CIRCLE, 9_999_999n);
    await mined(
      await base.anvil.wallet(CIRCLE).writeContract({
        address: base.cctp.tokenMessenger,
        abi: testTokenMessengerV2Abi,
        functionName: 'setMinFeeController',
        args: [base.anvil.wallet(CONTROLLER).account.address],
      }),
    );
    try {
      expect(await reasonOf(setAs(CIRCLE, 1_000n))).toBe('Caller is not the min fee controller');
      await setAs(CONTROLLER, 1_000n);
      expect(
        await reasonOf(
          base.anvil.publicClient.simulateContract({
            account: base.anvil.wallet(HOLDER).account,
            address: base.cctp.tokenMessenger,
            abi: testTokenMessengerV2Abi,
            functionName: 'setMinFeeController',
            args: [base.anvil.wallet(HOLDER).account.address],
          }),
        ),
      ).toBe('OwnableUnauthorizedAccount');
    } finally {
      await mined(
        await base.anvil.wallet(CIRCLE).writeContract({
          address: base.cctp.tokenMessenger,
          abi: testTokenMessengerV2Abi,
          functionName: 'setMinFeeController',
          args: [base.anvil.wallet(CIRCLE).account.address],
        }),
      );
    }
  });
});

describe('what reads it', () => {
  const sourceChain = (tokenMessenger: Address) =>
    createSourceBurns({
      client: base.anvil.publicClient,
      chainId: base.chainId,
      domain: base.domain,
      usdc: base.cctp.usdc,
      tokenMessenger,
      messageTransmitter: base.cctp.messageTransmitter,
      finality: chainReader(base.anvil.publicClient, { kind: 'confirmations', confirmations: 0 }),
    });

  it('the source chain adapter reads the minimum on chain, 0 from a messenger before v2.1, and the route cap', async () => {
    const chain = sourceChain(base.cctp.tokenMessenger);
    expect(await chain.minimumBurnFee(10_000_000n)).toBe(0n);
    await setMinFee(1_000n);
    expect(await chain.minimumBurnFee(10_000_000n)).toBe(1_000n);
    expect(await chain.minimumBurnFee(9_999n)).toBe(1n);
    // A refusal with a reason is an error, never read as "no minimum".
    await expect(chain.minimumBurnFee(1n)).rejects.toThrow(/Amount too low/);
    // A contract without the function (here USDC itself) reverts with no data: no minimum to meet.
    expect(await sourceChain(base.cctp.usdc).minimumBurnFee(10_000_000n)).toBe(0n);
    expect(await chain.burnFeeCapBps(net.factories.base!.factory)).toBe(MAX_FEE_BPS);
  });

  it("the attestation service's fees answer states the minimum in force, in basis points, for both thresholds", async () => {
    const fees = () =>
      fetchBurnFees({
        baseUrl: net.attestation.url,
        timeoutMs: 2_000,
        sourceDomain: 6,
        destinationDomain: 7,
      });
    expect(await fees()).toEqual([
      { finalityThreshold: 1000, minimumFeeBps: { units: 1n, scale: 0 } },
      { finalityThreshold: 2000, minimumFeeBps: { units: 0n, scale: 0 } },
    ]);
    await setMinFee(1_500n);
    // Iris's format: a JSON number of basis points, fractional; fast never below the minimum.
    const raw = await (await fetch(`${net.attestation.url}/v2/burn/USDC/fees/6/7`)).text();
    expect(raw).toBe(
      '[{"finalityThreshold":1000,"minimumFee":1.5},{"finalityThreshold":2000,"minimumFee":1.5}]',
    );
    expect(await fees()).toEqual([
      { finalityThreshold: 1000, minimumFeeBps: { units: 15n, scale: 1 } },
      { finalityThreshold: 2000, minimumFeeBps: { units: 15n, scale: 1 } },
    ]);
    await setMinFee(1n); // a thousandth of a basis point
    expect(await fees()).toEqual([
      { finalityThreshold: 1000, minimumFeeBps: { units: 1n, scale: 0 } },
      { finalityThreshold: 2000, minimumFeeBps: { units: 1n, scale: 3 } },
    ]);
  });

  it('a messenger from before v2.1 (a saved sandbox chain) states no minimum, not an error', async () => {
    await setMinFee(1_000n);
    // USDC stands for a messenger without `minFee`: the call reverts with no data.
    const older = await startLocalAttestationService({
      sources: [
        {
          domain: base.domain,
          publicClient: base.anvil.publicClient,
          messageTransmitter: base.cctp.messageTransmitter,
          tokenMessenger: base.cctp.usdc,
        },
      ],
      attesterKeys: net.attesterKeys,
      confirmations: { fast: 1, standard: 2 },
      fastFeeBps: 1,
    });
    try {
      const answer = await fetch(`${older.url}/v2/burn/USDC/fees/6/7`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual([
        { finalityThreshold: 1000, minimumFee: 1 },
        { finalityThreshold: 2000, minimumFee: 0 },
      ]);
    } finally {
      await older.stop();
    }
  });
});
