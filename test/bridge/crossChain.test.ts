/**
 * One deposit address on every chain, settled on Polygon through CCTP v2 — on four real anvil nodes: "Polygon"
 * (137), "Base" (8453) and "Arbitrum" (42161) in the factory's table, and "Optimism" (10) left out of it. Circle's
 * side is the project's test contracts (real interfaces and v2 message format) and the local attestation service
 * (Iris's format, test attester keys).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  type Hex,
  keccak256,
  parseEventLogs,
  type TransactionReceipt,
  toHex,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AttestedMessage,
  burnAttestation,
  createAttestationClient,
} from '../../src/adapters/cctp/attestationClient.ts';
import {
  addressToBytes32,
  decodeBurnMessageV2,
  decodeMessageV2,
  encodeBurnMessageV2,
  encodeMessageV2,
  FINALITY_FAST,
  FINALITY_STANDARD,
  POLYGON_DOMAIN,
} from '../../src/adapters/cctp/cctpMessage.ts';
import {
  forwarderFactoryV3Abi,
  paymentForwarderV3Abi,
  testMessageTransmitterV2Abi,
  testTokenMessengerV2Abi,
  testUsdcAbi,
} from '../../src/adapters/chain/contractAbis.ts';
import { deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import {
  type ForwarderParams,
  predictDepositAddress,
  toForwarderStruct,
} from '../../src/adapters/chain/forwarder.ts';
import {
  CREATE2_DEPLOYER,
  deployFactoryV3,
  predictFactoryV3,
} from '../../src/adapters/chain/multiChainFactory.ts';
import { startAnvil } from '../helpers/anvil.ts';
import { type CctpChain, type CctpChains, CIRCLE, RELAYER, startCctpChains } from '../helpers/cctpChains.ts';

const FAST_FEE_BPS = 1;
const CONFIRMATIONS = { fast: 1, standard: 3 };
let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;
let arbitrum: CctpChain;
let optimism: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: 7 },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: 10 },
      { name: 'arbitrum', chainId: 42161, domain: 3, maxBurnFeeBps: 10 },
      { name: 'optimism', chainId: 10, domain: 2, inTable: false },
    ],
    { confirmations: CONFIRMATIONS, fastFeeBps: FAST_FEE_BPS },
  );
  [polygon, base, arbitrum, optimism] = ['polygon', 'base', 'arbitrum', 'optimism'].map((name) =>
    net.chain(name),
  ) as [CctpChain, CctpChain, CctpChain, CctpChain];
});

afterAll(async () => {
  await net?.stop();
});

const factory = () => net.factories.polygon!.factory;
/** The factory's ABI with its forwarders' errors, which its calls pass on. */
const factoryAbi = [
  ...forwarderFactoryV3Abi,
  ...paymentForwarderV3Abi.filter((item) => item.type === 'error'),
] as const;
const implementation = () => net.factories.polygon!.implementation;

function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

function randomParams(feeBps = 100): ForwarderParams {
  return { merchant: randomAddress(), treasury: randomAddress(), feeBps, paymentId: randomUUID() };
}

const depositAddress = (params: ForwarderParams) =>
  predictDepositAddress({ factory: factory(), implementation: implementation(), params, version: 3 });

async function mined(chain: CctpChain, hash: Hex): Promise<TransactionReceipt> {
  const receipt = await chain.anvil.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

async function usdcAdmin(
  chain: CctpChain,
  functionName: 'mint' | 'blacklist' | 'unBlacklist' | 'pause' | 'unpause',
  args: readonly unknown[] = [],
): Promise<void> {
  const hash = await chain.anvil.wallet(CIRCLE).writeContract({
    address: chain.cctp.usdc,
    abi: testUsdcAbi,
    functionName,
    args,
  } as Parameters<CctpChain['anvil']['walletClients'][number]['writeContract']>[0]);
  await mined(chain, hash);
}

/** A customer's transfer: minted to the customer, then sent to the deposit address. */
async function pay(chain: CctpChain, to: Address, amount: bigint): Promise<void> {
  const customer = chain.anvil.wallet(3);
  await usdcAdmin(chain, 'mint', [customer.account.address, amount]);
  await mined(
    chain,
    await customer.writeContract({
      address: chain.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'transfer',
      args: [to, amount],
    }),
  );
}

function balanceOf(chain: CctpChain, owner: Address): Promise<bigint> {
  return chain.anvil.publicClient.readContract({
    address: chain.cctp.usdc,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

function deployAndBurn(
  chain: CctpChain,
  params: ForwarderParams,
  amount: bigint,
  maxFee: bigint,
  finality: number,
) {
  return chain.anvil.wallet(RELAYER).writeContract({
    address: factory(),
    abi: factoryAbi,
    functionName: 'deployAndBurn',
    args: [toForwarderStruct(params), amount, maxFee, finality],
  });
}

function simulateDeployAndBurn(
  chain: CctpChain,
  params: ForwarderParams,
  amount: bigint,
  maxFee: bigint,
  finality: number,
) {
  return chain.anvil.publicClient.simulateContract({
    account: chain.anvil.wallet(RELAYER).account,
    address: factory(),
    abi: factoryAbi,
    functionName: 'deployAndBurn',
    args: [toForwarderStruct(params), amount, maxFee, finality],
  });
}

async function flushOnPolygon(params: ForwarderParams): Promise<TransactionReceipt> {
  const hash = await polygon.anvil.wallet(RELAYER).writeContract({
    address: factory(),
    abi: forwarderFactoryV3Abi,
    functionName: 'flushBatch',
    args: [[toForwarderStruct(params)], polygon.cctp.usdc],
  });
  return mined(polygon, hash);
}

function receiveOnPolygon(message: Hex, attestation: Hex) {
  return polygon.anvil.publicClient.simulateContract({
    account: polygon.anvil.wallet(RELAYER).account,
    address: polygon.cctp.messageTransmitter,
    abi: testMessageTransmitterV2Abi,
    functionName: 'receiveMessage',
    args: [message, attestation],
  });
}

async function receive(message: Hex, attestation: Hex): Promise<TransactionReceipt> {
  const { request } = await receiveOnPolygon(message, attestation);
  return mined(polygon, await polygon.anvil.wallet(RELAYER).writeContract(request));
}

async function revertReason(call: Promise<unknown>): Promise<string | undefined> {
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

const attestationClient = () => createAttestationClient({ baseUrl: net.attestation.url, timeoutMs: 5_000 });

/** Asks the attestation service about a burn until it is signed, mining the source chain's blocks meanwhile. */
async function attestedBurn(
  chain: CctpChain,
  burnTx: Hex,
  burn: { mintRecipient: Address; amount: bigint },
): Promise<{ message: AttestedMessage; pendingAnswers: number }> {
  const client = attestationClient();
  let pendingAnswers = 0;
  for (let attempt = 0; attempt < 10; attempt++) {
    const found = burnAttestation(await client.messagesOf(chain.domain, burnTx), {
      sourceDomain: chain.domain,
      ...burn,
    });
    if (found.state === 'complete') return { message: found.message, pendingAnswers };
    expect(found.state).toBe('pending');
    pendingAnswers += 1;
    await chain.anvil.testClient.mine({ blocks: 1 });
  }
  throw new Error('the burn was never attested');
}

describe('one address on every chain', () => {
  it('the factory, its implementation and every deposit address are the same on each chain, in the table or not', async () => {
    const predicted = await predictFactoryV3(net.routes);
    for (const chain of [polygon, base, arbitrum, optimism]) {
      expect(net.factories[chain.name]).toEqual(predicted);
    }
    const params = randomParams(250);
    for (const chain of [polygon, base, arbitrum, optimism]) {
      const onChain = await chain.anvil.publicClient.readContract({
        address: factory(),
        abi: forwarderFactoryV3Abi,
        functionName: 'predict',
        args: [toForwarderStruct(params)],
      });
      expect(onChain).toBe(depositAddress(params));
    }
  });

  it('each chain’s implementation knows its own route: burn on Base and Arbitrum, none on Polygon or off the table', async () => {
    const routeOf = async (chain: CctpChain) => {
      const read = <F extends 'burnToken' | 'tokenMessenger' | 'maxBurnFeeBps'>(functionName: F) =>
        chain.anvil.publicClient.readContract({
          address: implementation(),
          abi: paymentForwarderV3Abi,
          functionName,
        });
      return {
        burnToken: await read('burnToken'),
        tokenMessenger: await read('tokenMessenger'),
        fee: await read('maxBurnFeeBps'),
      };
    };
    expect(await routeOf(base)).toEqual({
      burnToken: base.cctp.usdc,
      tokenMessenger: base.cctp.tokenMessenger,
      fee: 10,
    });
    expect(await routeOf(arbitrum)).toEqual({
      burnToken: arbitrum.cctp.usdc,
      tokenMessenger: arbitrum.cctp.tokenMessenger,
      fee: 10,
    });
    for (const chain of [polygon, optimism]) {
      expect(await routeOf(chain)).toEqual({ burnToken: zeroAddress, tokenMessenger: zeroAddress, fee: 0 });
    }
  });

  it('another table is another factory address: nobody can change where an address’s money goes', async () => {
    const [first, ...rest] = net.routes;
    const redirected = [{ ...first!, tokenMessenger: randomAddress() }, ...rest];
    expect((await predictFactoryV3(redirected)).factory).not.toBe(factory());
    expect((await predictFactoryV3([...rest, first!])).factory).not.toBe(factory());
  });

  it('a table with no Polygon, a chain twice, or a fee above the cap never makes a factory', async () => {
    const noPolygon = net.routes.filter((route) => route.domain !== POLYGON_DOMAIN);
    const twice = [...net.routes, net.routes[1]!];
    const greedy = net.routes.map((route) => (route.domain === 6 ? { ...route, maxBurnFeeBps: 101 } : route));
    for (const routes of [noPolygon, twice, greedy]) {
      await expect(
        deployFactoryV3(base.anvil.wallet(RELAYER), base.anvil.publicClient, routes),
      ).rejects.toThrow();
      const { factory: refused } = await predictFactoryV3(routes);
      expect(await base.anvil.publicClient.getCode({ address: refused })).toBeUndefined();
    }
    // The same deployment with the table as it is goes through (here: finds the factory already there).
    expect(await deployFactoryV3(base.anvil.wallet(RELAYER), base.anvil.publicClient, net.routes)).toEqual(
      net.factories.base,
    );
  });

  it('a chain without the deterministic deployer gets it from its presigned transaction, then the same factory', async () => {
    const bare = await startAnvil({
      chainId: 43114,
      accounts: 1,
      args: ['--disable-default-create2-deployer'],
    });
    try {
      expect(await bare.publicClient.getCode({ address: CREATE2_DEPLOYER })).toBeUndefined();
      expect(await deployFactoryV3(bare.wallet(0), bare.publicClient, net.routes)).toEqual(
        net.factories.polygon,
      );
      expect(await bare.publicClient.getCode({ address: CREATE2_DEPLOYER })).toBe(
        await polygon.anvil.publicClient.getCode({ address: CREATE2_DEPLOYER }),
      );
    } finally {
      await bare.stop();
    }
  });

  it('the forwarder can change state only through flush and burn', () => {
    const writes = paymentForwarderV3Abi
      .filter((item) => item.type === 'function')
      .filter((item) => !['view', 'pure'].includes((item as { stateMutability: string }).stateMutability))
      .map((item) => (item as { name: string }).name)
      .sort();
    expect(writes).toEqual(['burn', 'flush']);
  });
});

describe('a deposit on Base, settled on Polygon', () => {
  it('is burnt to the same address on Polygon, attested, minted there, and split exactly (standard transfer)', async () => {
    const params = randomParams(150);
    const address = depositAddress(params);
    const amount = 27_123_457n;
    await pay(base, address, amount);
    const supplyBefore = await base.anvil.publicClient.readContract({
      address: base.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'totalSupply',
    });

    const burnTx = await deployAndBurn(base, params, amount, 0n, FINALITY_STANDARD);
    const receipt = await mined(base, burnTx);
    expect(await balanceOf(base, address)).toBe(0n);
    expect(
      await base.anvil.publicClient.readContract({
        address: base.cctp.usdc,
        abi: testUsdcAbi,
        functionName: 'totalSupply',
      }),
    ).toBe(supplyBefore - amount);
    const [deposit] = parseEventLogs({
      abi: testTokenMessengerV2Abi,
      eventName: 'DepositForBurn',
      logs: receipt.logs,
    });
    expect(deposit?.args).toMatchObject({
      burnToken: base.cctp.usdc,
      amount,
      depositor: address,
      mintRecipient: addressToBytes32(address),
      destinationDomain: POLYGON_DOMAIN,
      destinationCaller: `0x${'0'.repeat(64)}`,
      maxFee: 0n,
      minFinalityThreshold: FINALITY_STANDARD,
    });

    // Circle signs only once the burn is deep enough: the client sees it pending first.
    const { message, pendingAnswers } = await attestedBurn(base, burnTx, { mintRecipient: address, amount });
    expect(pendingAnswers).toBe(CONFIRMATIONS.standard);
    expect(message.decoded).toMatchObject({
      sourceDomain: 6,
      destinationDomain: 7,
      finalityThresholdExecuted: 2000,
    });
    expect(message.burn?.feeExecuted).toBe(0n);

    expect(await balanceOf(polygon, address)).toBe(0n);
    await receive(message.message, message.attestation);
    expect(await balanceOf(polygon, address)).toBe(amount);

    await flushOnPolygon(params);
    const fee = (amount * 150n) / 10_000n;
    expect(await balanceOf(polygon, params.treasury)).toBe(fee);
    expect(await balanceOf(polygon, params.merchant)).toBe(amount - fee);
    expect(await balanceOf(polygon, address)).toBe(0n);
  });

  it('a fast transfer pays exactly the fee Circle executed, within the maxFee offered; the split is of what arrived', async () => {
    const params = randomParams(100);
    const address = depositAddress(params);
    const amount = 10_000_000n;
    await pay(arbitrum, address, amount);
    const maxFee = 2_000n; // 2 bps offered; Circle's route takes 1 bp
    const burnTx = await deployAndBurn(arbitrum, params, amount, maxFee, FINALITY_FAST);
    await mined(arbitrum, burnTx);

    const { message, pendingAnswers } = await attestedBurn(arbitrum, burnTx, {
      mintRecipient: address,
      amount,
    });
    expect(pendingAnswers).toBe(CONFIRMATIONS.fast);
    const feeExecuted = (amount * BigInt(FAST_FEE_BPS)) / 10_000n;
    expect(message.decoded.finalityThresholdExecuted).toBe(FINALITY_FAST);
    expect(message.burn).toMatchObject({ maxFee, feeExecuted });

    const collectedBefore = await balanceOf(polygon, polygon.feeRecipient);
    await receive(message.message, message.attestation);
    const arrived = amount - feeExecuted;
    expect(await balanceOf(polygon, address)).toBe(arrived);
    expect((await balanceOf(polygon, polygon.feeRecipient)) - collectedBefore).toBe(feeExecuted);

    await flushOnPolygon(params);
    const commission = arrived / 100n;
    expect(await balanceOf(polygon, params.treasury)).toBe(commission);
    expect(await balanceOf(polygon, params.merchant)).toBe(arrived - commission);
  });

  it('a fast transfer offering less than the fee is delayed to standard finality and charged nothing', async () => {
    const params = randomParams(100);
    const address = depositAddress(params);
    const amount = 50_000_000n;
    await pay(base, address, amount);
    const burnTx = await deployAndBurn(base, params, amount, 1n, FINALITY_FAST);
    await mined(base, burnTx);
    const first = burnAttestation(await attestationClient().messagesOf(base.domain, burnTx), {
      sourceDomain: base.domain,
      mintRecipient: address,
      amount,
    });
    expect(first).toEqual({ state: 'pending', delayReason: 'insufficient_fee' });
    const { message } = await attestedBurn(base, burnTx, { mintRecipient: address, amount });
    expect(message.decoded.finalityThresholdExecuted).toBe(FINALITY_STANDARD);
    expect(message.burn?.feeExecuted).toBe(0n);
    await receive(message.message, message.attestation);
    expect(await balanceOf(polygon, address)).toBe(amount);
  });

  it('no burn may offer more fee than the route allows', async () => {
    const params = randomParams();
    const amount = 1_000_000n;
    await pay(base, depositAddress(params), amount);
    // 10 bps of 1.000000 USDC is 1000 base units.
    expect(await revertReason(simulateDeployAndBurn(base, params, amount, 1_001n, FINALITY_FAST))).toBe(
      'BurnFeeTooHigh',
    );
    await simulateDeployAndBurn(base, params, amount, 1_000n, FINALITY_FAST);
  });
});

describe('only to Polygon, only to itself', () => {
  it('USDC on a burning chain cannot be flushed there; Polygon’s forwarder has nothing to burn', async () => {
    const params = randomParams();
    const address = depositAddress(params);
    await pay(base, address, 5_000_000n);
    const flushing = base.anvil.publicClient.simulateContract({
      account: base.anvil.wallet(RELAYER).account,
      address: factory(),
      abi: factoryAbi,
      functionName: 'flushBatch',
      args: [[toForwarderStruct(params)], base.cctp.usdc],
    });
    expect(await revertReason(flushing)).toBe('MustBurn');

    await pay(polygon, address, 5_000_000n);
    expect(
      await revertReason(simulateDeployAndBurn(polygon, params, 5_000_000n, 0n, FINALITY_STANDARD)),
    ).toBe('NoBurnRoute');
  });

  it('a replayed message is refused; the money is minted once', async () => {
    const params = randomParams();
    const address = depositAddress(params);
    const amount = 3_000_000n;
    await pay(base, address, amount);
    const burnTx = await deployAndBurn(base, params, amount, 0n, FINALITY_STANDARD);
    await mined(base, burnTx);
    const { message } = await attestedBurn(base, burnTx, { mintRecipient: address, amount });
    // Asked again, the service answers the same nonce: one burn, one message.
    const again = await attestedBurn(base, burnTx, { mintRecipient: address, amount });
    expect(again.message.message).toBe(message.message);

    await receive(message.message, message.attestation);
    expect(await revertReason(receiveOnPolygon(message.message, message.attestation))).toBe(
      'Nonce already used',
    );
    expect(await balanceOf(polygon, address)).toBe(amount);
  });

  it('a forged or altered attestation is refused', async () => {
    const params = randomParams();
    const address = depositAddress(params);
    const amount = 4_000_000n;
    await pay(base, address, amount);
    const burnTx = await deployAndBurn(base, params, amount, 0n, FINALITY_STANDARD);
    await mined(base, burnTx);
    const { message } = await attestedBurn(base, burnTx, { mintRecipient: address, amount });

    // The same message with its mint recipient changed to a thief's address: the attesters never signed it.
    const decoded = decodeMessageV2(message.message);
    const stolen = encodeMessageV2({
      ...decoded,
      messageBody: encodeBurnMessageV2({
        ...decodeBurnMessageV2(decoded.messageBody),
        mintRecipient: addressToBytes32(randomAddress()),
      }),
    });
    expect(await revertReason(receiveOnPolygon(stolen, message.attestation))).toBe(
      'Invalid signature: not attester',
    );

    // The thief's own message signed with keys that are not attesters.
    const forgers = [generatePrivateKey(), generatePrivateKey()];
    const forged = (
      await Promise.all(forgers.map((key) => sign({ hash: keccak256(stolen), privateKey: key, to: 'hex' })))
    )
      .join('')
      .replaceAll('0x', '');
    expect(await revertReason(receiveOnPolygon(stolen, `0x${forged}`))).toBe(
      'Invalid signature: not attester',
    );

    // One attester's signature twice, and the signatures out of order.
    const first = message.attestation.slice(2, 132);
    const second = message.attestation.slice(132);
    expect(await revertReason(receiveOnPolygon(message.message, `0x${first}${first}`))).toBe(
      'Invalid signature order or dupe',
    );
    expect(await revertReason(receiveOnPolygon(message.message, `0x${second}${first}`))).toBe(
      'Invalid signature order or dupe',
    );
    expect(await revertReason(receiveOnPolygon(message.message, `0x${first}`))).toBe(
      'Invalid attestation length',
    );

    // The genuine pair still mints.
    await receive(message.message, message.attestation);
    expect(await balanceOf(polygon, address)).toBe(amount);
  });
  it('a burn message not sent by the source chain’s TokenMessenger mints nothing, even attested', async () => {
    const thief = randomAddress();
    const body = encodeBurnMessageV2({
      version: 1,
      burnToken: addressToBytes32(base.cctp.usdc),
      mintRecipient: addressToBytes32(thief),
      amount: 1_000_000_000n,
      messageSender: addressToBytes32(thief),
      maxFee: 0n,
      feeExecuted: 0n,
      expirationBlock: 0n,
      hookData: '0x',
    });
    // MessageTransmitterV2.sendMessage is open to anyone (CCTP carries any message), and Circle attests it.
    const sent = await base.anvil.wallet(2).writeContract({
      address: base.cctp.messageTransmitter,
      abi: testMessageTransmitterV2Abi,
      functionName: 'sendMessage',
      args: [
        POLYGON_DOMAIN,
        addressToBytes32(polygon.cctp.tokenMessenger),
        `0x${'0'.repeat(64)}`,
        2000,
        body,
      ],
    });
    await mined(base, sent);
    const { message } = await attestedBurn(base, sent, { mintRecipient: thief, amount: 1_000_000_000n });
    expect(await revertReason(receiveOnPolygon(message.message, message.attestation))).toBe(
      'Remote TokenMessenger unsupported',
    );
    expect(await balanceOf(polygon, thief)).toBe(0n);
  });
});

describe('Circle’s controls on the source chain block a burn without losing it', () => {
  it('a blacklisted deposit address, then a paused token: the burn reverts whole, the money stays, and a retry works', async () => {
    const params = randomParams();
    const address = depositAddress(params);
    const amount = 8_000_000n;
    await pay(base, address, amount);

    await usdcAdmin(base, 'blacklist', [address]);
    expect(await revertReason(simulateDeployAndBurn(base, params, amount, 0n, FINALITY_STANDARD))).toBe(
      'Blacklistable: account is blacklisted',
    );
    await usdcAdmin(base, 'unBlacklist', [address]);
    await usdcAdmin(base, 'pause');
    expect(await revertReason(simulateDeployAndBurn(base, params, amount, 0n, FINALITY_STANDARD))).toBe(
      'Pausable: paused',
    );
    expect(await balanceOf(base, address)).toBe(amount);
    await usdcAdmin(base, 'unpause');

    const burnTx = await deployAndBurn(base, params, amount, 0n, FINALITY_STANDARD);
    await mined(base, burnTx);
    const { message } = await attestedBurn(base, burnTx, { mintRecipient: address, amount });
    await receive(message.message, message.attestation);
    expect(await balanceOf(polygon, address)).toBe(amount);
  });

  it('in a batch, a burn refused by USDC stays in its forwarder and holds up no other', async () => {
    const payments = [randomParams(), randomParams(), randomParams()];
    const amounts = [1_000_000n, 2_000_000n, 3_000_000n];
    for (const [i, params] of payments.entries()) await pay(base, depositAddress(params), amounts[i]!);
    await usdcAdmin(base, 'blacklist', [depositAddress(payments[1]!)]);
    const orders = payments.map((params, i) => ({
      params: toForwarderStruct(params),
      amount: amounts[i]!,
      maxFee: 0n,
      minFinalityThreshold: FINALITY_STANDARD,
    }));
    const call = {
      account: base.anvil.wallet(RELAYER).account,
      address: factory(),
      abi: factoryAbi,
      functionName: 'burnBatch',
      args: [orders],
    } as const;
    const { result, request } = await base.anvil.publicClient.simulateContract(call);
    expect(result).toEqual([true, false, true]);
    const receipt = await mined(base, await base.anvil.wallet(RELAYER).writeContract(request));
    const burnt = parseEventLogs({
      abi: testTokenMessengerV2Abi,
      eventName: 'DepositForBurn',
      logs: receipt.logs,
    });
    expect(burnt.map((log) => [log.args.depositor, log.args.amount])).toEqual([
      [depositAddress(payments[0]!), amounts[0]],
      [depositAddress(payments[2]!), amounts[2]],
    ]);
    expect(await balanceOf(base, depositAddress(payments[1]!))).toBe(amounts[1]);
    await usdcAdmin(base, 'unBlacklist', [depositAddress(payments[1]!)]);
    await mined(base, await deployAndBurn(base, payments[1]!, amounts[1]!, 0n, FINALITY_STANDARD));
    expect(await balanceOf(base, depositAddress(payments[1]!))).toBe(0n);
  });

  it('a batch sent with too little gas reverts whole rather than skipping burns that would go through', async () => {
    const payments = [randomParams(), randomParams()];
    for (const params of payments) await pay(base, depositAddress(params), 1_500_000n);
    const call = {
      account: base.anvil.wallet(RELAYER).account,
      address: factory(),
      abi: factoryAbi,
      functionName: 'burnBatch',
      args: [
        payments.map((params) => ({
          params: toForwarderStruct(params),
          amount: 1_500_000n,
          maxFee: 0n,
          minFinalityThreshold: FINALITY_STANDARD,
        })),
      ],
    } as const;
    const gas = await base.anvil.publicClient.estimateContractGas(call);
    // Short by what the last burn needs, not by what a deployment does: its burn is starved, nothing else.
    const hash = await base.anvil.wallet(RELAYER).writeContract({ ...call, gas: gas - 20_000n });
    expect((await base.anvil.publicClient.waitForTransactionReceipt({ hash })).status).toBe('reverted');
    for (const params of payments) expect(await balanceOf(base, depositAddress(params))).toBe(1_500_000n);
    await mined(base, await base.anvil.wallet(RELAYER).writeContract({ ...call, gas }));
    for (const params of payments) expect(await balanceOf(base, depositAddress(params))).toBe(0n);
  });

  it('a mint the destination USDC refuses (paused) leaves the message unused, to be received later', async () => {
    const params = randomParams();
    const address = depositAddress(params);
    const amount = 2_000_000n;
    await pay(base, address, amount);
    const burnTx = await deployAndBurn(base, params, amount, 0n, FINALITY_STANDARD);
    await mined(base, burnTx);
    const { message } = await attestedBurn(base, burnTx, { mintRecipient: address, amount });
    await usdcAdmin(polygon, 'pause');
    try {
      expect(await revertReason(receiveOnPolygon(message.message, message.attestation))).toBe(
        'Pausable: paused',
      );
    } finally {
      await usdcAdmin(polygon, 'unpause');
    }
    await receive(message.message, message.attestation);
    expect(await balanceOf(polygon, address)).toBe(amount);
  });
});

describe('Polygon and chains outside the table', () => {
  it('a deposit on Polygon is flushed to merchant and treasury as today', async () => {
    const params = randomParams(275);
    const address = depositAddress(params);
    await pay(polygon, address, 19_990_001n);
    await flushOnPolygon(params);
    const fee = (19_990_001n * 275n) / 10_000n;
    expect(await balanceOf(polygon, params.treasury)).toBe(fee);
    expect(await balanceOf(polygon, params.merchant)).toBe(19_990_001n - fee);
  });

  it('USDC sent on a chain the table leaves out is paid to the same merchant and treasury addresses there', async () => {
    const params = randomParams(100);
    const address = depositAddress(params);
    await pay(optimism, address, 1_000_000n);
    const hash = await optimism.anvil.wallet(RELAYER).writeContract({
      address: factory(),
      abi: forwarderFactoryV3Abi,
      functionName: 'flushBatch',
      args: [[toForwarderStruct(params)], optimism.cctp.usdc],
    });
    await mined(optimism, hash);
    expect(await balanceOf(optimism, params.treasury)).toBe(10_000n);
    expect(await balanceOf(optimism, params.merchant)).toBe(990_000n);
  });

  it('another token on a burning chain is flushed there like a stray token today', async () => {
    const params = randomParams(100);
    const address = depositAddress(params);
    // Arbitrum's USDC stands in for a token Base does not burn (bridged USDC, USDT …): deployed at another address.
    const stray = await deployTestUsdc(base.anvil.wallet(CIRCLE), base.anvil.publicClient, {
      name: 'Bridged USDC',
      symbol: 'USDC.e',
    });
    await mined(
      base,
      await base.anvil
        .wallet(CIRCLE)
        .writeContract({ address: stray, abi: testUsdcAbi, functionName: 'mint', args: [address, 500n] }),
    );
    await mined(
      base,
      await base.anvil.wallet(RELAYER).writeContract({
        address: factory(),
        abi: forwarderFactoryV3Abi,
        functionName: 'flushBatch',
        args: [[toForwarderStruct(params)], stray],
      }),
    );
    const strayBalance = (owner: Address) =>
      base.anvil.publicClient.readContract({
        address: stray,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [owner],
      });
    expect(await strayBalance(params.treasury)).toBe(5n);
    expect(await strayBalance(params.merchant)).toBe(495n);
  });
});
