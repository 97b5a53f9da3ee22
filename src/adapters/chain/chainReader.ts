import {
  type Address,
  createPublicClient,
  fallback,
  type Hex,
  http,
  type PublicClient,
  parseAbiItem,
  zeroAddress,
} from 'viem';
import type { BlockHeader, ChainReader, TransferLog } from '../../app/chain/ports.ts';
import type { Finality } from '../../config/index.ts';
import { bytes32ToAddress, CctpMessageError, decodeBurnMessageV2 } from '../cctp/cctpMessage.ts';

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
/** MessageTransmitterV2's event for a message received (Circle's signature, src/contracts/ICctpV2.sol). */
const messageReceivedEvent = parseAbiItem(
  'event MessageReceived(address indexed caller, uint32 sourceDomain, bytes32 indexed nonce, bytes32 sender, uint32 indexed finalityThresholdExecuted, bytes messageBody)',
);

/** A viem client over every configured RPC URL, each tried in turn when the one before fails. */
export function createRpcClient(rpcUrls: readonly string[], timeoutMs = 10_000): PublicClient {
  if (rpcUrls.length === 0) throw new Error('no RPC URL configured');
  const transports = rpcUrls.map((url) => http(url, { timeout: timeoutMs, retryCount: 1 }));
  return createPublicClient({
    transport: transports.length === 1 ? transports[0]! : fallback(transports),
    cacheTime: 0,
  });
}

export function chainReader(client: PublicClient, finality: Finality): ChainReader {
  const header = (block: { number: bigint | null; hash: string | null; timestamp: bigint }): BlockHeader => {
    if (block.number === null || block.hash === null)
      throw new Error('pending block where a mined one was expected');
    return { number: block.number, hash: block.hash, timestamp: new Date(Number(block.timestamp) * 1000) };
  };
  return {
    latestBlockNumber: () => client.getBlockNumber({ cacheTime: 0 }),

    async finalizedBlockNumber() {
      if (finality.kind === 'finalized') return (await client.getBlock({ blockTag: 'finalized' })).number;
      const head = await client.getBlockNumber({ cacheTime: 0 });
      const final = head - BigInt(finality.confirmations);
      return final > 0n ? final : 0n;
    },

    async blockAt(number) {
      try {
        return header(await client.getBlock({ blockNumber: number }));
      } catch (error) {
        if (error instanceof Error && error.name === 'BlockNotFoundError') return undefined;
        throw error;
      }
    },

    async transferLogs(tokens, fromBlock, toBlock, options = {}) {
      if (tokens.length === 0) return [];
      const transmitter = options.messageTransmitter?.toLowerCase();
      const logs = await client.getLogs({
        address: (transmitter === undefined ? tokens : [...tokens, transmitter]) as Address[],
        events: transmitter === undefined ? [transferEvent] : [transferEvent, messageReceivedEvent],
        fromBlock,
        toBlock,
        strict: true,
      });
      const wanted = new Set(tokens.map((t) => t.toLowerCase()));
      const transfers: TransferLog[] = [];
      // Per transaction, the mints still waiting for the MessageReceived that follows them.
      const awaitingMessage = new Map<string, number[]>();
      for (const log of logs) {
        if (
          log.transactionHash === null ||
          log.logIndex === null ||
          log.blockNumber === null ||
          log.blockHash === null
        ) {
          throw new Error('pending log where a mined one was expected');
        }
        const emitter = log.address.toLowerCase();
        const txKey = `${log.blockHash}:${log.transactionHash}`;
        if (log.eventName === 'Transfer') {
          // The transmitter emits no Transfer, nor a token a MessageReceived; each is read only from its own.
          if (!wanted.has(emitter)) continue;
          if (transmitter !== undefined && log.args.from === zeroAddress) {
            awaitingMessage.set(txKey, [...(awaitingMessage.get(txKey) ?? []), transfers.length]);
          }
          transfers.push({
            token: emitter,
            txHash: log.transactionHash,
            logIndex: log.logIndex,
            blockNumber: log.blockNumber,
            blockHash: log.blockHash,
            from: log.args.from,
            to: log.args.to,
            amountBaseUnits: log.args.value,
          });
          continue;
        }
        if (emitter !== transmitter) continue;
        // receiveMessage has the TokenMessenger mint (the fee's mint, then the recipient's) before it emits
        // MessageReceived: the mints since the previous message of the transaction are this message's.
        const mints = awaitingMessage.get(txKey) ?? [];
        awaitingMessage.delete(txKey);
        const sender = burnSenderFor(log.args.messageBody);
        if (sender === undefined) continue;
        for (const index of mints) {
          const mint = transfers[index]!;
          if (mint.to.toLowerCase() === sender.mintRecipient)
            transfers[index] = { ...mint, cctpBurnSender: sender.messageSender };
        }
      }
      return transfers;
    },
  };
}

/** A received message's burn: who burnt, for whom; undefined for a message that is not a v2 burn. */
function burnSenderFor(body: Hex): { messageSender: string; mintRecipient: string } | undefined {
  try {
    const burn = decodeBurnMessageV2(body);
    return {
      messageSender: bytes32ToAddress(burn.messageSender).toLowerCase(),
      mintRecipient: bytes32ToAddress(burn.mintRecipient).toLowerCase(),
    };
  } catch (error) {
    if (error instanceof CctpMessageError) return undefined;
    throw error;
  }
}
