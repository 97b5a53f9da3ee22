/**
 * The relayer: one key that pays the gas of `ForwarderFactory.flushBatch` and holds nothing else. Transactions
 * are signed locally with an explicit nonce, gas and fees (nothing is filled in by the node), so the settler
 * can persist exactly what it is about to broadcast, and re-broadcast or replace that very transaction later.
 */
import {
  type Abi,
  type Address,
  BaseError,
  decodeErrorResult,
  ExecutionRevertedError,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  HttpRequestError,
  isHex,
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
  GasEstimate,
  Relayer,
  SignedTransaction,
} from '../../app/ports.ts';
import { forwarderImplementationOf } from './depositPlanner.ts';
import {
  bytes16ToUuid,
  type ForwarderParams,
  forwarderFactoryAbi,
  MAX_FLUSH_BATCH,
  paymentForwarderAbi,
  predictDepositAddress,
  toForwarderStruct,
} from './forwarder.ts';

export interface RelayerOptions {
  /** Reads, estimates and broadcasts; `createRpcClient` gives one over every configured RPC URL. */
  readonly client: PublicClient;
  /** Signed into every transaction (EIP-155): a transaction for one chain cannot be replayed on another. */
  readonly chainId: number;
  /** `ChainConfig.relayerKey`. Kept in this closure only: never returned, logged or put in an error. */
  readonly relayerKey: Hex;
}

/** Every revert a flush can produce, to name it in logs (`ZeroAddress`, `ERC20InsufficientBalance`, …). */
const revertAbi = [...forwarderFactoryAbi, ...paymentForwarderAbi, ...erc20Abi, ...erc20Errors()] as Abi;

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
    return encodeFunctionData({
      abi: forwarderFactoryAbi,
      functionName: 'flushBatch',
      args: [
        call.items.map((item) => toForwarderStruct(forwarderParams(item))),
        getAddress(call.tokenAddress),
      ],
    });
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

    async estimateFlush(call) {
      try {
        // The account as a bare address: viem then adds no fees, so the node checks no balance and an empty
        // relayer still learns what a flush would cost (and the settler can say so).
        const gas = await client.estimateGas({
          account: address,
          to: getAddress(call.factoryAddress),
          data: flushData(call),
        });
        return { ok: true, gas } satisfies GasEstimate;
      } catch (error) {
        const reason = revertReason(error);
        if (reason === undefined) throw error;
        return { ok: false, reason } satisfies GasEstimate;
      }
    },

    async currentFees() {
      const fees = await client.estimateFeesPerGas({ chain: null, type: 'eip1559' });
      return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
    },

    signFlush: (call, tx) => sign({ to: getAddress(call.factoryAddress), data: flushData(call), ...tx }),

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
      const events = success
        ? parseEventLogs({ abi: paymentForwarderAbi, eventName: 'Flushed', logs: receipt.logs, strict: true })
        : [];
      return {
        txHash: receipt.transactionHash,
        blockNumber: receipt.blockNumber,
        success,
        flushed: events.map((event) => ({
          forwarderAddress: getAddress(event.address),
          tokenAddress: getAddress(event.args.token),
          paymentId: bytes16ToUuid(event.args.paymentId),
          merchantBaseUnits: event.args.merchantAmount,
          feeBaseUnits: event.args.fee,
        })),
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

/** The revert's name (or message) if the error is the call reverting; undefined for any other failure. */
function revertReason(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ExecutionRevertedError);
  if (!(reverted instanceof ExecutionRevertedError)) return undefined;
  const withData = error.walk((e) => e instanceof RpcRequestError && isHex(e.data));
  const data = withData instanceof RpcRequestError ? (withData.data as Hex) : undefined;
  if (data && data.length >= 10) {
    try {
      const decoded = decodeErrorResult({ abi: revertAbi, data });
      return decoded.errorName;
    } catch {
      // An error of some other contract (a token's own): fall back to the node's words.
    }
  }
  return reverted.shortMessage;
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
