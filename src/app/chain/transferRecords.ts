import { ChainMovedError, sameHash } from './blockReads.ts';
import type { BlockHeader, TransferLog, TransferRecord, UnacceptedTransfer } from './ports.ts';

/** A token the watcher reads: accepted (it pays) or noticed (recorded when sent to a payment, never counted). */
export interface WatchedToken {
  /** Lowercase. */
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly accepted: boolean;
}

/** What one scanned range knows when it turns its logs into records. */
export interface RangeFacts {
  readonly chainId: number;
  /** The tokens read, by lowercase address. */
  readonly tokens: ReadonlyMap<string, WatchedToken>;
  /** The payment each deposit address (lowercase) belongs to. */
  readonly owners: ReadonlyMap<string, string>;
  /** The header of every block a log is in, read while the range was scanned. */
  readonly headers: ReadonlyMap<bigint, BlockHeader>;
  readonly seenAt: Date;
}

/**
 * The range's logs to payments as records: a transfer of an accepted token pays (stored as not yet final), one
 * of a noticed token is reported to the merchant and never counted. Every log must lie in the block read for
 * its height: one that does not was reorged while the range was read, and nothing of the range is written.
 * Addresses and hashes are stored lowercase; a transfer's id is its place in its block.
 */
export function recordsOf(
  logs: readonly TransferLog[],
  range: RangeFacts,
): { transfers: TransferRecord[]; unaccepted: UnacceptedTransfer[] } {
  const transfers: TransferRecord[] = [];
  const unaccepted: UnacceptedTransfer[] = [];
  for (const log of logs) {
    const header = range.headers.get(log.blockNumber);
    if (!header || !sameHash(header.hash, log.blockHash))
      throw new ChainMovedError(`block ${log.blockNumber} was reorged during the scan`);
    const token = range.tokens.get(log.token.toLowerCase());
    if (!token) throw new Error(`a log of ${log.token}, which was not asked for`);
    const paymentId = range.owners.get(log.to.toLowerCase());
    if (paymentId === undefined) throw new Error(`a log to ${log.to}, which no payment owns`);
    const common = {
      id: transferId(range.chainId, log),
      chainId: range.chainId,
      paymentId,
      txHash: log.txHash.toLowerCase(),
      blockNumber: log.blockNumber,
      blockHash: log.blockHash.toLowerCase(),
      tokenAddress: token.address,
      tokenSymbol: token.symbol,
      fromAddress: log.from.toLowerCase(),
      amountBaseUnits: log.amountBaseUnits,
    };
    if (!token.accepted) {
      unaccepted.push({ ...common, tokenDecimals: token.decimals, seenAt: range.seenAt });
      continue;
    }
    transfers.push({
      ...common,
      logIndex: log.logIndex,
      blockTimestamp: header.timestamp,
      toAddress: log.to.toLowerCase(),
      final: false,
      orphaned: false,
    });
  }
  return { transfers, unaccepted };
}

function transferId(chainId: number, log: TransferLog): string {
  return `${chainId}:${log.blockHash.toLowerCase()}:${log.logIndex}`;
}
