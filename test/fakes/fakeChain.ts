import { getAddress } from 'viem';
import type { BlockHeader, ChainReader, TransferLog } from '../../src/app/chain/ports.ts';

/** A transfer to put in a block: the token and addresses as a test names them. */
export interface TransferToMine {
  readonly token: string;
  readonly to: string;
  readonly amountBaseUnits: bigint;
  readonly from?: string;
}

const SENDER = '0x00000000000000000000000000000000000000aa';

/**
 * The `ChainReader` port over a chain held in memory, for fast unit tests of the chain watcher. It answers as
 * adapters/chain/chainReader.ts does over a node: lowercase hashes, checksummed `from`/`to` and a lowercase
 * token address in logs, no block above the head (`undefined`), logs of the asked tokens in the asked range
 * only. A test mines blocks, replaces them (a reorg), moves the finalized block, and may make the chain move
 * while the watcher reads logs or
 * right after it read a block (`duringNextLogRead`, `afterNextBlockAt`).
 */
export class FakeChain implements ChainReader {
  private readonly headers: BlockHeader[] = [];
  private logs: TransferLog[] = [];
  /** Bumped by each reorg so that replaced blocks get new hashes. */
  private fork = 0;
  /** The `finalized` tag (or head − N confirmations) as the node would answer it; may be above the head. */
  finalizedTag = 0n;
  /** Runs once, after the next `transferLogs` read its logs and before it returns them. */
  duringNextLogRead: (() => void) | undefined;
  /** Runs once, after the next `blockAt` read its block and before it returns it. */
  afterNextBlockAt: (() => void) | undefined;
  readonly calls = { transferLogs: [] as { tokens: readonly string[]; from: bigint; to: bigint }[] };
  /** The most block reads ever in flight at once: what a node's rate limits see. */
  maxConcurrentBlockReads = 0;
  private blockReadsInFlight = 0;

  constructor(
    private readonly genesisTime = new Date('2026-01-01T00:00:00.000Z'),
    private readonly blockMs = 2_000,
  ) {
    this.pushBlock();
  }

  get head(): bigint {
    return BigInt(this.headers.length - 1);
  }

  header(number: bigint): BlockHeader {
    const header = this.headers[Number(number)];
    if (!header) throw new Error(`no block ${number}`);
    return header;
  }

  /** Mines `count` empty blocks; returns the new head. */
  mine(count = 1): bigint {
    for (let i = 0; i < count; i += 1) this.pushBlock();
    return this.head;
  }

  /** Mines one block with these transfers (log indexes 0, 1, …); returns the logs as the node will answer them. */
  mineTransfers(transfers: readonly TransferToMine[]): TransferLog[] {
    const header = this.pushBlock();
    const mined = transfers.map((t, logIndex) => ({
      token: t.token.toLowerCase(),
      txHash: `0x${this.fork.toString(16).padStart(4, '0')}${header.number.toString(16).padStart(52, '0')}${logIndex.toString(16).padStart(8, '0')}`,
      logIndex,
      blockNumber: header.number,
      blockHash: header.hash,
      from: getAddress(t.from ?? SENDER),
      to: getAddress(t.to),
      amountBaseUnits: t.amountBaseUnits,
    }));
    this.logs.push(...mined);
    return mined;
  }

  /** A reorg: blocks from `number` up are dropped with their logs; the next blocks mined get new hashes. */
  reorgFrom(number: bigint): void {
    this.fork += 1;
    this.headers.length = Number(number);
    this.logs = this.logs.filter((log) => log.blockNumber < number);
  }

  /** Gives one block a new hash, its logs moving with it (a replaced block the watcher did not see go). */
  replaceBlock(number: bigint): void {
    this.fork += 1;
    const old = this.header(number);
    const replaced = { ...old, hash: this.hashOf(number) };
    this.headers[Number(number)] = replaced;
    this.logs = this.logs.map((log) =>
      log.blockNumber === number ? { ...log, blockHash: replaced.hash } : log,
    );
  }

  async latestBlockNumber(): Promise<bigint> {
    return this.head;
  }

  async finalizedBlockNumber(): Promise<bigint> {
    return this.finalizedTag;
  }

  async blockAt(number: bigint): Promise<BlockHeader | undefined> {
    if (number < 0n) throw new Error('a negative block number is no block');
    this.blockReadsInFlight += 1;
    this.maxConcurrentBlockReads = Math.max(this.maxConcurrentBlockReads, this.blockReadsInFlight);
    // A request takes a moment: reads started together overlap, as over the network.
    await new Promise((resolve) => setImmediate(resolve));
    this.blockReadsInFlight -= 1;
    const header = this.headers[Number(number)];
    const after = this.afterNextBlockAt;
    this.afterNextBlockAt = undefined;
    after?.();
    return header;
  }

  async transferLogs(tokens: readonly string[], fromBlock: bigint, toBlock: bigint): Promise<TransferLog[]> {
    this.calls.transferLogs.push({ tokens, from: fromBlock, to: toBlock });
    const wanted = new Set(tokens.map((t) => t.toLowerCase()));
    const logs = this.logs.filter(
      (log) => wanted.has(log.token) && log.blockNumber >= fromBlock && log.blockNumber <= toBlock,
    );
    const during = this.duringNextLogRead;
    this.duringNextLogRead = undefined;
    during?.();
    return logs;
  }

  private pushBlock(): BlockHeader {
    const number = BigInt(this.headers.length);
    const header = {
      number,
      hash: this.hashOf(number),
      timestamp: new Date(this.genesisTime.getTime() + Number(number) * this.blockMs),
    };
    this.headers.push(header);
    return header;
  }

  private hashOf(number: bigint): string {
    return `0x${this.fork.toString(16).padStart(8, '0')}${number.toString(16).padStart(56, '0')}`;
  }
}
