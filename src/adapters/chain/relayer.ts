/**
 * The relayer: one key that pays the gas of `ForwarderFactory.flushBatch` and holds nothing else. Transactions
 * are signed locally with an explicit nonce, gas and fees (nothing is filled in by the node), so the settler
 * can persist exactly what it is about to broadcast, and re-broadcast or replace that very transaction later.
 * What a flush call is (its calldata, simulation and receipt) is in flushCalls.ts.
 */
import {
  type Address,
  BaseError,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  HttpRequestError,
  keccak256,
  type PublicClient,
  parseTransaction,
  RpcRequestError,
  TimeoutError,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type {
  BroadcastOutcome,
  FeesPerGas,
  FlushItem,
  ForwarderVersion,
  GasEstimate,
  Relayer,
  SignedTransaction,
} from '../../app/settlement/ports.ts';
import { forwarderImplementationOf } from './depositPlanner.ts';
import {
  flushCalldata,
  flushReceipt,
  forwarderParams,
  REVERT_ABI,
  readForwarderVersion,
  simulateFlush,
} from './flushCalls.ts';
import { predictDepositAddress } from './forwarder.ts';
import { revertReasonOf } from './revertReason.ts';

export interface RelayerOptions {
  /** Reads, estimates and broadcasts; `createRpcClient` gives one over every configured RPC URL. */
  readonly client: PublicClient;
  /** Signed into every transaction (EIP-155): a transaction for one chain cannot be replayed on another. */
  readonly chainId: number;
  /** `ChainSettings.relayerKey`. Kept in this closure only: never returned, logged or put in an error. */
  readonly relayerKey: Hex;
}

/** Node answers meaning "I have this transaction already": a re-broadcast after a crash is not an error. */
const alreadyKnown = /already known|known transaction|already imported|already exists|alreadyknown/i;

/** What a signed transaction carries besides its chain: all of it explicit, nothing left to the node. */
interface UnsignedTransaction {
  readonly to: Address;
  readonly data: Hex;
  readonly nonce: bigint;
  readonly gas: bigint;
  readonly fees: FeesPerGas;
}

export function createRelayer(options: RelayerOptions): Relayer {
  const { client, chainId } = options;
  let account: PrivateKeyAccount;
  try {
    account = privateKeyToAccount(options.relayerKey);
  } catch {
    // No cause attached: the underlying error may quote the value.
    throw new Error('the relayer key is not a valid secp256k1 private key');
  }
  const address = account.address;
  const sign = (tx: UnsignedTransaction) => signTransaction(account, chainId, tx);
  const forwarderVersion = rememberedVersions(client);

  return {
    address,
    nonce: async () => BigInt(await client.getTransactionCount({ address, blockTag: 'latest' })),
    balance: () => client.getBalance({ address }),
    depositAddressOf,
    forwarderVersion,
    simulateFlush: (call) => simulateFlush(client, address, call),
    estimateFlush: async (call) =>
      estimateGas(client, address, getAddress(call.factoryAddress), await flushCalldata(client, call)),
    estimateCall: (to, data) => estimateGas(client, address, getAddress(to), data as Hex),
    transferRefusal: (token, from, to, amountBaseUnits) =>
      transferRefusal(client, token, from, to, amountBaseUnits),
    async currentFees() {
      const fees = await client.estimateFeesPerGas({ chain: null, type: 'eip1559' });
      return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
    },
    signFlush: async (call, tx) =>
      sign({ to: getAddress(call.factoryAddress), data: await flushCalldata(client, call), ...tx }),
    signCall: (call, tx) => sign({ to: getAddress(call.to), data: call.data as Hex, ...tx }),
    signReplacement: async (rawTx, fees) => sign({ ...replaceable(rawTx as Hex, chainId), fees }),
    broadcast: (rawTx) => broadcast(client, rawTx as Hex),
    receipt: (txHash) => flushReceipt(client, txHash as Hex),
  };
}

function depositAddressOf(
  factoryAddress: string,
  item: FlushItem,
  version: ForwarderVersion,
): string | undefined {
  try {
    const factory = getAddress(factoryAddress);
    return predictDepositAddress({
      factory,
      implementation: forwarderImplementationOf(factory),
      params: forwarderParams(item),
      version,
    });
  } catch {
    return undefined;
  }
}

/** A factory's code never changes, nor therefore its version: read once per factory and process. */
function rememberedVersions(client: PublicClient): (factoryAddress: string) => Promise<ForwarderVersion> {
  const versions = new Map<string, Promise<ForwarderVersion>>();
  return (factoryAddress) => {
    const factory = getAddress(factoryAddress);
    let version = versions.get(factory);
    if (version === undefined) {
      version = readForwarderVersion(client, factory);
      versions.set(factory, version);
      // A failed read (node down) is not remembered: the next pass asks again.
      version.catch(() => versions.delete(factory));
    }
    return version;
  };
}

async function signTransaction(
  account: PrivateKeyAccount,
  chainId: number,
  tx: UnsignedTransaction,
): Promise<SignedTransaction> {
  if (tx.fees.maxPriorityFeePerGas > tx.fees.maxFeePerGas) throw new RangeError('priority fee above fee cap');
  const rawTx = await account.signTransaction({
    type: 'eip1559',
    chainId,
    to: tx.to,
    data: tx.data,
    value: 0n,
    nonce: Number(tx.nonce),
    gas: tx.gas,
    maxFeePerGas: tx.fees.maxFeePerGas,
    maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas,
  });
  return { rawTx, txHash: keccak256(rawTx) };
}

/** Rebuilt from the signed bytes themselves: a replacement can differ from the original in its fees only. */
function replaceable(rawTx: Hex, chainId: number): Omit<UnsignedTransaction, 'fees'> {
  const original = parseTransaction(rawTx);
  if (original.type !== 'eip1559' || original.chainId !== chainId || !original.to || !original.data)
    throw new Error('not a flush transaction signed by this relayer for this chain');
  if (original.nonce === undefined || original.gas === undefined)
    throw new Error('the original transaction has no nonce or gas');
  return { to: original.to, data: original.data, nonce: BigInt(original.nonce), gas: original.gas };
}

async function estimateGas(
  client: PublicClient,
  from: Address,
  to: Address,
  data: Hex,
): Promise<GasEstimate> {
  try {
    // The account as a bare address: viem then adds no fees, so the node checks no balance and an empty
    // relayer still learns what a call would cost (and the settler can say so).
    const gas = await client.estimateGas({ account: from, to, data });
    return { ok: true, gas };
  } catch (error) {
    const reason = revertReasonOf(error, REVERT_ABI);
    if (reason === undefined) throw error;
    return { ok: false, reason };
  }
}

async function transferRefusal(
  client: PublicClient,
  token: string,
  from: string,
  to: string,
  amountBaseUnits: bigint,
): Promise<string | null> {
  let data: Hex | undefined;
  try {
    ({ data } = await client.call({
      account: getAddress(from),
      to: getAddress(token),
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transfer',
        args: [getAddress(to), amountBaseUnits],
      }),
    }));
  } catch (error) {
    const reason = revertReasonOf(error, REVERT_ABI);
    if (reason === undefined) throw error;
    return reason;
  }
  // Tokens that return nothing succeed by not reverting; one that returns false refuses quietly.
  if (data === undefined || data === '0x') return null;
  const moved = decodeFunctionResult({ abi: erc20Abi, functionName: 'transfer', data });
  return moved ? null : 'the token refused the transfer (returned false)';
}

async function broadcast(client: PublicClient, rawTx: Hex): Promise<BroadcastOutcome> {
  try {
    await client.sendRawTransaction({ serializedTransaction: rawTx });
    return { accepted: true };
  } catch (error) {
    // The node could not be reached: the caller retries later; the transaction is kept as signed.
    if (isTransportError(error)) throw error;
    const message = errorText(error);
    if (alreadyKnown.test(message)) return { accepted: true };
    return { accepted: false, reason: message };
  }
}

function isTransportError(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null &&
    error.walk((e) => e instanceof RpcRequestError) === null
  );
}

/** The node's own message, without viem's request dump (which repeats the whole raw transaction). */
function errorText(error: unknown): string {
  if (error instanceof BaseError) {
    const rpc = error.walk((e) => e instanceof RpcRequestError);
    if (rpc instanceof RpcRequestError) return rpc.details || rpc.shortMessage;
    return error.details || error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}
