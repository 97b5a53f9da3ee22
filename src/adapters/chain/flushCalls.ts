/**
 * What the relayer asks of a forwarder factory: a `flushBatch`'s calldata and its simulation, the factory's
 * forwarder version, and what a mined flush moved (its receipt's events). Both versions take the same arguments
 * and emit the same `Flushed` event; only version 2 answers outcomes and withholds.
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
  TransactionReceiptNotFoundError,
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
  paymentForwarderV1Abi,
  paymentForwarderV2Abi,
} from './contractAbis.ts';
import { bytes16ToUuid, type ForwarderParams, MAX_FLUSH_BATCH, toForwarderStruct } from './forwarder.ts';
import { ERC20_ERRORS, revertReasonOf } from './revertReason.ts';

/** Every revert a flush or a token transfer can produce, to name it (`ZeroAddress`, `ERC20InsufficientBalance`, …). */
export const REVERT_ABI = [
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

export function flushData(call: FlushCall): Hex {
  if (call.items.length === 0 || call.items.length > MAX_FLUSH_BATCH)
    throw new RangeError(`a flush batch holds 1..${MAX_FLUSH_BATCH} items, not ${call.items.length}`);
  // Both versions take the same arguments; encoding with the version's own ABI keeps that honest.
  return encodeFunctionData({
    abi: call.version === 1 ? forwarderFactoryV1Abi : forwarderFactoryV2Abi,
    functionName: 'flushBatch',
    args: [call.items.map((item) => toForwarderStruct(forwarderParams(item))), getAddress(call.tokenAddress)],
  });
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
    // Version 3 (one address on every chain) flushes as version 2: the same flushBatch, the same outcomes.
    if (version !== 2n && version !== 3n)
      throw new Error(`factory ${factory} reports unknown forwarder version ${version}`);
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
      data: flushData(call),
    }));
  } catch (error) {
    const reason = revertReasonOf(error, REVERT_ABI);
    if (reason === undefined) throw error;
    return { ok: false, reason };
  }
  if (call.version === 1) return { ok: true, outcomes: null };
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
  let receipt: Awaited<ReturnType<PublicClient['getTransactionReceipt']>>;
  try {
    receipt = await client.getTransactionReceipt({ hash: txHash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined;
    throw error;
  }
  const success = receipt.status === 'success';
  // Version 1 and 2 forwarders emit the same Flushed event; only version 2 withholds.
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
