import { type Address, createPublicClient, fallback, http, type PublicClient, parseAbiItem } from 'viem';
import type { BlockHeader, ChainReader } from '../../app/chain/ports.ts';
import type { Finality } from '../../config/index.ts';

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

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

    async transferLogs(tokens, fromBlock, toBlock) {
      if (tokens.length === 0) return [];
      const logs = await client.getLogs({
        address: tokens as Address[],
        event: transferEvent,
        fromBlock,
        toBlock,
        strict: true,
      });
      return logs.map((log) => {
        if (
          log.transactionHash === null ||
          log.logIndex === null ||
          log.blockNumber === null ||
          log.blockHash === null
        ) {
          throw new Error('pending log where a mined one was expected');
        }
        return {
          token: log.address.toLowerCase(),
          txHash: log.transactionHash,
          logIndex: log.logIndex,
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          from: log.args.from,
          to: log.args.to,
          amountBaseUnits: log.args.value,
        };
      });
    },
  };
}
