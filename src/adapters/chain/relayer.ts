/**
 * The relayer: one key that pays the gas of `ForwarderFactory.flushBatch` and holds nothing else. Transactions
 * are signed locally with an explicit nonce, gas and fees (nothing is filled in by the node), so the settler
 * can persist exactly what it is about to broadcast, and re-broadcast or replace that very transaction later.
 */
import {
  type Abi,
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
  parseEventLogs,
  parseTransaction,
  RpcRequestError,
  TimeoutError,
  TransactionReceiptNotFoundError,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type {
  BroadcastOutcome,
  FeesPerGas,
  FlushCall,
  FlushItem,
  ForwarderVersion,
  GasEstimate,
  Relayer,
  SignedTransaction,
} from '../../app/settlement/ports.ts';
import {
  forwarderFactoryV1Abi,
  forwarderFactoryV2Abi,
  paymentForwarderV1Abi,
  paymentForwarderV2Abi,
} from './contractAbis.ts';
import { forwarderImplementationOf } from './depositPlanner.ts';
import {
  bytes16ToUuid,
  type ForwarderParams,
  MAX_FLUSH_BATCH,
  predictDepositAddress,
  toForwarderStruct,
} from './forwarder.ts';
import { revertReasonOf } from './revertReason.ts';

export interface RelayerOptions {
  /** Reads, estimates and broadcasts; `createRpcClient` gives one over every configured RPC URL. */
  readonly client: PublicClient;
  /** Signed into every transaction (EIP-155): a transaction for one chain cannot be replayed on another. */
  readonly chainId: number;
  /** `ChainConfig.relayerKey`. Kept in this closure only: never returned, logged or put in an error. */
  readonly relayerKey: Hex;
}

/** Every revert a flush or a token transfer can produce, to name it (`ZeroAddress`, `ERC20InsufficientBalance`, …). */
const revertAbi = [
  ...forwarderFactoryV2Abi,
  ...forwarderFactoryV1Abi,
  ...paymentForwarderV2Abi,
  ...paymentForwarderV1Abi,
  ...erc20Abi,
  ...erc20Errors(),
] as Abi;

/** Node answers meaning "I have this transaction already": a re-broadcast after a crash is not an error. */
const alreadyKnown = /already known|known transaction|already imported|already exists|alreadyknown/i;

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

  const flushData = (call: FlushCall): Hex => {
    if (call.items.length === 0 || call.items.length > MAX_FLUSH_BATCH)
      throw new RangeError(`a flush batch holds 1..${MAX_FLUSH_BATCH} items, not ${call.items.length}`);
    // Both versions take the same arguments; encoding with the version's own ABI keeps that honest.
    return encodeFunctionData({
      abi: call.version === 1 ? forwarderFactoryV1Abi : forwarderFactoryV2Abi,
      functionName: 'flushBatch',
      args: [
        call.items.map((item) => toForwarderStruct(forwarderParams(item))),
        getAddress(call.tokenAddress),
      ],
    });
  };

  // A factory's code never changes, nor therefore its version: read once per factory and process.
  const versions = new Map<string, Promise<ForwarderVersion>>();
  const readVersion = async (factory: Address): Promise<ForwarderVersion> => {
    try {
      const version = await client.readContract({
        address: factory,
        // Version 2's compiled ABI: version 1 has no VERSION(), and the call reverts.
        abi: forwarderFactoryV2Abi,
        functionName: 'VERSION',
      });
      if (version !== 2n) throw new Error(`factory ${factory} reports unknown forwarder version ${version}`);
      return 2;
    } catch (error) {
      // Version 1 has no VERSION(): the call reverts. Anything else (the node down) is not an answer.
      if (revertReasonOf(error, revertAbi) === undefined) throw error;
      const code = await client.getCode({ address: factory });
      if (code === undefined || code === '0x') throw new Error(`no factory deployed at ${factory}`);
      return 1;
    }
  };

  const sign = async (tx: {
    to: Address;
    data: Hex;
    nonce: bigint;
    gas: bigint;
    fees: FeesPerGas;
  }): Promise<SignedTransaction> => {
    if (tx.fees.maxPriorityFeePerGas > tx.fees.maxFeePerGas)
      throw new RangeError('priority fee above fee cap');
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
  };

  const estimate = async (to: Address, data: Hex): Promise<GasEstimate> => {
    try {
      // The account as a bare address: viem then adds no fees, so the node checks no balance and an empty
      // relayer still learns what a call would cost (and the settler can say so).
      const gas = await client.estimateGas({ account: address, to, data });
      return { ok: true, gas };
    } catch (error) {
      const reason = revertReasonOf(error, revertAbi);
      if (reason === undefined) throw error;
      return { ok: false, reason };
    }
  };

  return {
    address,

    nonce: async () => BigInt(await client.getTransactionCount({ address, blockTag: 'latest' })),

    balance: () => client.getBalance({ address }),

    depositAddressOf(factoryAddress, item) {
      try {
        const factory = getAddress(factoryAddress);
        return predictDepositAddress({
          factory,
          implementation: forwarderImplementationOf(factory),
          params: forwarderParams(item),
        });
      } catch {
        return undefined;
      }
    },

    forwarderVersion(factoryAddress) {
      const factory = getAddress(factoryAddress);
      let version = versions.get(factory);
      if (version === undefined) {
        version = readVersion(factory);
        versions.set(factory, version);
        // A failed read (node down) is not remembered: the next pass asks again.
        version.catch(() => versions.delete(factory));
      }
      return version;
    },

    async simulateFlush(call) {
      let data: Hex | undefined;
      try {
        ({ data } = await client.call({
          account: address,
          to: getAddress(call.factoryAddress),
          data: flushData(call),
        }));
      } catch (error) {
        const reason = revertReasonOf(error, revertAbi);
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
    },

    estimateFlush: (call) => estimate(getAddress(call.factoryAddress), flushData(call)),

    estimateCall: (to, data) => estimate(getAddress(to), data as Hex),

    async transferRefusal(token, from, to, amountBaseUnits) {
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
        const reason = revertReasonOf(error, revertAbi);
        if (reason === undefined) throw error;
        return reason;
      }
      // Tokens that return nothing succeed by not reverting; one that returns false refuses quietly.
      if (data === undefined || data === '0x') return null;
      const moved = decodeFunctionResult({ abi: erc20Abi, functionName: 'transfer', data });
      return moved ? null : 'the token refused the transfer (returned false)';
    },

    async currentFees() {
      const fees = await client.estimateFeesPerGas({ chain: null, type: 'eip1559' });
      return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
    },

    signFlush: (call, tx) => sign({ to: getAddress(call.factoryAddress), data: flushData(call), ...tx }),

    signCall: (call, tx) => sign({ to: getAddress(call.to), data: call.data as Hex, ...tx }),

    async signReplacement(rawTx, fees) {
      // Rebuilt from the signed bytes themselves: a replacement can differ from the original in its fees only.
      const original = parseTransaction(rawTx as Hex);
      if (original.type !== 'eip1559' || original.chainId !== chainId || !original.to || !original.data)
        throw new Error('not a flush transaction signed by this relayer for this chain');
      if (original.nonce === undefined || original.gas === undefined)
        throw new Error('the original transaction has no nonce or gas');
      return sign({
        to: original.to,
        data: original.data,
        nonce: BigInt(original.nonce),
        gas: original.gas,
        fees,
      });
    },

    async broadcast(rawTx): Promise<BroadcastOutcome> {
      try {
        await client.sendRawTransaction({ serializedTransaction: rawTx as Hex });
        return { accepted: true };
      } catch (error) {
        // The node could not be reached: the caller retries later; the transaction is kept as signed.
        if (isTransportError(error)) throw error;
        const message = errorText(error);
        if (alreadyKnown.test(message)) return { accepted: true };
        return { accepted: false, reason: message };
      }
    },

    async receipt(txHash) {
      let receipt: Awaited<ReturnType<PublicClient['getTransactionReceipt']>>;
      try {
        receipt = await client.getTransactionReceipt({ hash: txHash as Hex });
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
          flushed.push({
            ...common,
            merchantBaseUnits: event.args.merchantAmount,
            feeBaseUnits: event.args.fee,
          });
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
    },
  };
}

function forwarderParams(item: FlushItem): ForwarderParams {
  return {
    merchant: item.merchantAddress as Address,
    treasury: item.treasuryAddress as Address,
    feeBps: item.commissionBps,
    paymentId: item.paymentId,
  };
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

/** OpenZeppelin's ERC-6093 errors, which viem's erc20Abi does not list. */
function erc20Errors() {
  const addressAndAmounts = (name: string, first: string) =>
    ({
      type: 'error',
      name,
      inputs: [
        { name: first, type: 'address' },
        { name: 'balance', type: 'uint256' },
        { name: 'needed', type: 'uint256' },
      ],
    }) as const;
  const oneAddress = (name: string, input: string) =>
    ({ type: 'error', name, inputs: [{ name: input, type: 'address' }] }) as const;
  return [
    addressAndAmounts('ERC20InsufficientBalance', 'sender'),
    oneAddress('ERC20InvalidSender', 'sender'),
    oneAddress('ERC20InvalidReceiver', 'receiver'),
  ];
}
