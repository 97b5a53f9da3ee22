/**
 * What the relayer asks of a forwarder factory: a `flushBatch`'s calldata and its simulation, the factory's
 * forwarder version, and what a mined flush moved (its receipt's events). Versions 1 and 2 take the same
 * arguments; version 3 is flushed through `flushBatchDeploying`, told which forwarders are new (read here with
 * eth_getCode, just before each use) so that it skips the code probe (decision 0031). All emit the same `Flushed`
 * event; versions 2 and 3 answer outcomes and withhold.
 */
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  type PublicClient,
  parseEventLogs,
} from 'viem';
import type {
  FlushCall,
  FlushItem,
  FlushSimulation,
  ForwarderVersion,
  RelayerReceipt,
} from '../../app/settlement/ports.ts';
import {
  forwarderFactoryV1Abi,
  forwarderFactoryV2Abi,
  forwarderFactoryV3Abi,
  paymentForwarderV1Abi,
  paymentForwarderV2Abi,
  paymentForwarderV3Abi,
  subscriptionChargerAbi,
} from './contractAbis.ts';
import { forwarderImplementationOf } from './depositPlanner.ts';
import {
  bytes16ToUuid,
  depositAddressPredictor,
  type ForwarderParams,
  MAX_FLUSH_BATCH,
  toForwarderStruct,
} from './forwarder.ts';
import { receiptOf } from './receiptOf.ts';
import { ERC20_ERRORS, revertReasonOf } from './revertReason.ts';

/**
 * Every revert a flush, a subscription charge (decision 0061) or a token transfer can produce, to name it
 * (`ZeroAddress`, `AlreadyCharged`, `ERC20InsufficientBalance`, …).
 */
export const REVERT_ABI = [
  ...subscriptionChargerAbi.filter((item) => item.type === 'error'),
  ...forwarderFactoryV3Abi,
  ...paymentForwarderV3Abi,
  ...forwarderFactoryV2Abi,
  ...forwarderFactoryV1Abi,
  ...paymentForwarderV2Abi,
  ...paymentForwarderV1Abi,
  ...erc20Abi,
  ...ERC20_ERRORS,
] as Abi;

export function forwarderParams(item: FlushItem): ForwarderParams {
  return {
    merchant: item.merchantAddress as Address,
    treasury: item.treasuryAddress as Address,
    feeBps: item.commissionBps,
    paymentId: item.paymentId,
  };
}

/**
 * The flush's calldata. Version 3 needs `newForwarders` (per item, whether its forwarder has no code yet): a wrong
 * "deployed" reverts the batch, a wrong "new" costs at most the factory's CLONE_GAS; see {@link flushCalldata}.
 */
export function flushData(call: FlushCall, newForwarders?: readonly boolean[]): Hex {
  if (call.items.length === 0 || call.items.length > MAX_FLUSH_BATCH)
    throw new RangeError(`a flush batch holds 1..${MAX_FLUSH_BATCH} items, not ${call.items.length}`);
  const structs = call.items.map((item) => toForwarderStruct(forwarderParams(item)));
  const token = getAddress(call.tokenAddress);
  if (call.version === 3) {
    if (newForwarders?.length !== call.items.length)
      throw new RangeError('a version 3 flush says, for each item, whether its forwarder is new');
    const mask = newForwarders.reduce((bits, isNew, i) => (isNew ? bits | (1n << BigInt(i)) : bits), 0n);
    return encodeFunctionData({
      abi: forwarderFactoryV3Abi,
      functionName: 'flushBatchDeploying',
      args: [structs, token, mask],
    });
  }
  // Versions 1 and 2 take the same arguments; encoding with the version's own ABI keeps that honest.
  return encodeFunctionData({
    abi: call.version === 1 ? forwarderFactoryV1Abi : forwarderFactoryV2Abi,
    functionName: 'flushBatch',
    args: [structs, token],
  });
}

/** Per item of a version 3 flush, whether its forwarder has no code yet (one eth_getCode each, in parallel). */
export async function newForwardersOf(client: PublicClient, call: FlushCall): Promise<boolean[]> {
  const factory = getAddress(call.factoryAddress);
  const predict = depositAddressPredictor(factory, forwarderImplementationOf(factory), 3);
  return Promise.all(
    call.items.map(async (item) => {
      const code = await client.getCode({ address: predict(forwarderParams(item)) });
      return code === undefined || code === '0x';
    }),
  );
}

/** {@link flushData}, reading which forwarders are new first when the factory is of version 3. */
export async function flushCalldata(client: PublicClient, call: FlushCall): Promise<Hex> {
  return flushData(call, call.version === 3 ? await newForwardersOf(client, call) : undefined);
}

export async function readForwarderVersion(
  client: PublicClient,
  factory: Address,
): Promise<ForwarderVersion> {
  try {
    const version = await client.readContract({
      address: factory,
      // Version 2's compiled ABI: version 1 has no VERSION(), and the call reverts.
      abi: forwarderFactoryV2Abi,
      functionName: 'VERSION',
    });
    if (version === 3n) return 3;
    if (version !== 2n) throw new Error(`factory ${factory} reports unknown forwarder version ${version}`);
    return 2;
  } catch (error) {
    // Version 1 has no VERSION(): the call reverts. Anything else (the node down) is not an answer.
    if (revertReasonOf(error, REVERT_ABI) === undefined) throw error;
    const code = await client.getCode({ address: factory });
    if (code === undefined || code === '0x') throw new Error(`no factory deployed at ${factory}`);
    return 1;
  }
}

/** The flush as an `eth_call` from the relayer: why it would revert, or (version 2) each item's outcome. */
export async function simulateFlush(
  client: PublicClient,
  from: Address,
  call: FlushCall,
): Promise<FlushSimulation> {
  let data: Hex | undefined;
  try {
    ({ data } = await client.call({
      account: from,
      to: getAddress(call.factoryAddress),
      data: await flushCalldata(client, call),
    }));
  } catch (error) {
    const reason = revertReasonOf(error, REVERT_ABI);
    if (reason === undefined) throw error;
    return { ok: false, reason };
  }
  if (call.version === 1) return { ok: true, outcomes: null };
  // Versions 2 and 3 answer the same outcomes.
  const outcomes = decodeFunctionResult({
    abi: forwarderFactoryV2Abi,
    functionName: 'flushBatch',
    data: data ?? '0x',
  });
  if (outcomes.length !== call.items.length)
    throw new Error(`flushBatch returned ${outcomes.length} outcomes for ${call.items.length} items`);
  return { ok: true, outcomes };
}

export async function flushReceipt(client: PublicClient, txHash: Hex): Promise<RelayerReceipt | undefined> {
  const receipt = await receiptOf(client, txHash);
  if (!receipt) return undefined;
  const success = receipt.status === 'success';
  // Version 1, 2 and 3 forwarders emit the same Flushed event; versions 2 and 3 withhold.
  const events = success
    ? parseEventLogs({ abi: paymentForwarderV2Abi, logs: receipt.logs, strict: true })
    : [];
  const flushed = [];
  const withheld = [];
  for (const event of events) {
    const common = {
      forwarderAddress: getAddress(event.address),
      tokenAddress: getAddress(event.args.token),
      paymentId: bytes16ToUuid(event.args.paymentId),
    };
    if (event.eventName === 'Flushed') {
      flushed.push({ ...common, merchantBaseUnits: event.args.merchantAmount, feeBaseUnits: event.args.fee });
    } else {
      withheld.push({
        ...common,
        merchantOwedBaseUnits: event.args.merchantOwed,
        feeOwedBaseUnits: event.args.feeOwed,
      });
    }
  }
  return {
    txHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    success,
    gasUsed: receipt.gasUsed,
    feeWei: receipt.gasUsed * receipt.effectiveGasPrice,
    flushed,
    withheld,
  };
}
