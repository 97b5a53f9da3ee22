/** A token `Transfer` log, decoded. */
export interface TransferLog {
  /** The token contract that emitted it. */
  readonly token: string;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly from: string;
  readonly to: string;
  readonly amountBaseUnits: bigint;
}

export interface BlockHeader {
  readonly number: bigint;
  readonly hash: string;
  readonly timestamp: Date;
}

/** What the watcher reads from the chain. */
export interface ChainReader {
  latestBlockNumber(): Promise<bigint>;
  /** The highest block that is final under the configured policy (`finalized` tag or N confirmations). */
  finalizedBlockNumber(): Promise<bigint>;
  /** The canonical block at that height, or undefined if the chain is not that long (any more). */
  blockAt(number: bigint): Promise<BlockHeader | undefined>;
  /**
   * The tokens' Transfer logs in [fromBlock, toBlock]: one eth_getLogs for all of them, whatever the number of
   * open payments.
   */
  transferLogs(tokens: readonly string[], fromBlock: bigint, toBlock: bigint): Promise<TransferLog[]>;
}
