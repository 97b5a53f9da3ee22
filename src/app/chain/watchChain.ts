import type { Logger } from 'pino';
import { blocksAt, ChainMovedError, lastBlockAtOrBefore, sameHash } from './blockReads.ts';
import { type CrossChainOptions, homeChainOf, isOwnSettlementMint } from './crossChain.ts';
import type { BlockHeader, BlockRef, ChainCursor, ChainReader } from './ports.ts';
import {
  refreshPayments,
  reportUnacceptedTransfers,
  type StatusChange,
  type StatusPassDeps,
} from './refreshPayments.ts';
import { recordsOf, type WatchedToken } from './transferRecords.ts';

export interface WatchChainDeps extends StatusPassDeps {
  readonly chain: ChainReader;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
}

/** Which chain, which tokens, how far per request; on a chain that is not alone, CrossChainOptions. */
export interface WatchChainOptions extends CrossChainOptions {
  readonly chainId: number;
  /** The accepted tokens (USDC first) and the noticed ones, all read in one request per range. */
  readonly tokens: readonly WatchedToken[];
  readonly maxBlockRange: number;
  /**
   * Where a brand-new cursor starts; default: the current head. Either way no later than the block of the first
   * payment's creation on this chain.
   */
  readonly startBlock?: bigint | undefined;
  /** Bound on ranges scanned per pass, so a long catch-up still yields to finality and expiry work. */
  readonly maxRangesPerPass?: number;
}

export interface PollResult {
  readonly head: bigint;
  readonly finalized: bigint;
  readonly nextBlock: bigint;
  /** Blocks between the last scanned block and the head. */
  readonly lagBlocks: bigint;
  readonly reorgDepth: number;
  readonly changes: readonly StatusChange[];
}

const REORG_LOOKBACK_BLOCKS = 128;
const CLOCK_SKEW_MARGIN_MS = 5 * 60_000;
const FINALIZE_BATCH = 200;

/**
 * One pass of the chain watcher: follow a reorg if the last scanned block is no longer canonical, scan
 * forward from the cursor in bounded ranges, then mark what became final. Each step commits the transfers it
 * found, the cursor, and the status changes and events they cause in one transaction: after a crash the
 * watcher resumes from the last committed cursor, and a transfer is stored at most once (its id is its place
 * in a block), so nothing is lost and nothing is counted twice.
 */
export async function pollChainOnce(deps: WatchChainDeps, options: WatchChainOptions): Promise<PollResult> {
  const { chain, ledger } = deps;
  if (homeChainOf(options) !== options.chainId && options.homeFactory === undefined)
    throw new RangeError(`chain ${options.chainId} watches for another chain's payments without a factory`);
  const [head, finalizedTag] = await Promise.all([chain.latestBlockNumber(), chain.finalizedBlockNumber()]);
  const finalized = minBig(finalizedTag, head);
  let cursor = await ledger.cursor(options.chainId);
  if (!cursor) {
    cursor = {
      chainId: options.chainId,
      nextBlock: await firstBlockToScan(deps, options, head),
      headBlock: head,
      finalizedBlock: finalized,
      updatedAt: deps.clock.now(),
    };
    await ledger.transaction((tx) => tx.saveCursor(cursor!));
    deps.logger.info({ startBlock: cursor.nextBlock.toString() }, 'chain watcher starts');
  }
  const changes: StatusChange[] = [];

  const reorg = await followReorg(deps, options, cursor, head, finalized);
  cursor = reorg.cursor;
  changes.push(...reorg.changes);

  const maxRanges = options.maxRangesPerPass ?? 20;
  for (let ranges = 0; cursor.nextBlock <= head && ranges < maxRanges; ranges += 1) {
    const scanned = await scanRange(deps, options, cursor, head, finalized);
    cursor = scanned.cursor;
    changes.push(...scanned.changes);
  }

  changes.push(...(await finalize(deps, options, cursor, head, finalized)));
  return {
    head,
    finalized,
    nextBlock: cursor.nextBlock,
    lagBlocks: maxBig(0n, head - (cursor.nextBlock - 1n)),
    reorgDepth: reorg.depth,
    changes,
  };
}

/**
 * Where a brand-new cursor starts: the configured start block or the head — but never after the block of the
 * first payment's creation. API processes sell links without the chain (deposit addresses are computed
 * off-chain), possibly long before the watcher's first successful pass (the API started first, the node was
 * unreachable): a transfer to a payment created then must still be seen.
 */
async function firstBlockToScan(
  deps: WatchChainDeps,
  options: WatchChainOptions,
  head: bigint,
): Promise<bigint> {
  const start = options.startBlock ?? head;
  const earliest = await deps.ledger.earliestPaymentCreatedAt(homeChainOf(options));
  if (earliest === undefined) return start;
  // Our clock and the chain's block timestamps may disagree a little: start earlier rather than later.
  const covering = await lastBlockAtOrBefore(
    deps.chain,
    new Date(earliest.getTime() - CLOCK_SKEW_MARGIN_MS),
    head,
  );
  return minBig(covering, start);
}

/** If the last scanned block changed, rewind to the newest recorded block still canonical. */
async function followReorg(
  deps: WatchChainDeps,
  options: WatchChainOptions,
  cursor: ChainCursor,
  head: bigint,
  finalized: bigint,
): Promise<{ cursor: ChainCursor; changes: StatusChange[]; depth: number }> {
  const lastScanned = cursor.nextBlock - 1n;
  if (lastScanned < 0n) return { cursor, changes: [], depth: 0 };
  const [stored] = await deps.ledger.recentBlocks(options.chainId, lastScanned, 1);
  if (!stored || stored.number !== lastScanned) return { cursor, changes: [], depth: 0 };
  const canonical = await deps.chain.blockAt(lastScanned);
  if (canonical && sameHash(canonical.hash, stored.hash)) return { cursor, changes: [], depth: 0 };

  let ancestor: bigint | undefined;
  for (const block of await deps.ledger.recentBlocks(options.chainId, lastScanned, REORG_LOOKBACK_BLOCKS)) {
    const current = block.number <= head ? await deps.chain.blockAt(block.number) : undefined;
    if (current && sameHash(current.hash, block.hash)) {
      ancestor = block.number;
      break;
    }
  }
  // Nothing recorded is still canonical: fall back to what was final (final blocks do not reorg).
  const rewindTo = ancestor ?? minBig(cursor.finalizedBlock, lastScanned - 1n);
  const now = deps.clock.now();
  const next: ChainCursor = {
    ...cursor,
    nextBlock: rewindTo + 1n,
    headBlock: head,
    finalizedBlock: finalized,
    updatedAt: now,
  };
  const changes = await deps.ledger.transaction(async (tx) => {
    const affected = await tx.rewindAbove(options.chainId, rewindTo);
    await tx.saveCursor(next);
    return refreshPayments(tx, affected, now, deps.payoutPolicy);
  });
  const depth = Number(lastScanned - rewindTo);
  deps.logger.warn({ from: lastScanned.toString(), to: rewindTo.toString(), depth }, 'reorg followed');
  return { cursor: next, changes, depth };
}

async function scanRange(
  deps: WatchChainDeps,
  options: WatchChainOptions,
  cursor: ChainCursor,
  head: bigint,
  finalized: bigint,
): Promise<{ cursor: ChainCursor; changes: StatusChange[] }> {
  const { chain, ledger } = deps;
  const from = cursor.nextBlock;
  const to = minBig(head, from + BigInt(options.maxBlockRange) - 1n);
  // The range's last block before and after reading its logs: if it changed, the logs may be from a fork.
  const endBefore = await chain.blockAt(to);
  const tokens = new Map(options.tokens.map((token) => [token.address.toLowerCase(), token]));
  const read = await chain.transferLogs([...tokens.keys()], from, to, {
    messageTransmitter: options.cctpMessageTransmitter,
  });
  const endAfter = await chain.blockAt(to);
  if (!endBefore || !endAfter || !sameHash(endBefore.hash, endAfter.hash))
    throw new ChainMovedError(`block ${to} changed during the scan`);

  const logs = read.filter((log) => !isOwnSettlementMint(log));
  const recipients = [...new Set(logs.map((log) => log.to.toLowerCase()))];
  const owners =
    recipients.length === 0
      ? new Map<string, string>()
      : await ledger.paymentsByDepositAddress(
          homeChainOf(options),
          recipients,
          options.homeFactory?.toLowerCase(),
        );
  const matched = logs.filter((log) => owners.has(log.to.toLowerCase()));

  const headers = new Map<bigint, BlockHeader>([[endAfter.number, endAfter]]);
  const missing = [...new Set(matched.map((log) => log.blockNumber))].filter((n) => !headers.has(n));
  for (const [number, header] of await blocksAt(chain, missing)) {
    if (!header) throw new ChainMovedError(`block ${number} vanished during the scan`);
    headers.set(number, header);
  }
  const { transfers, unaccepted } = recordsOf(matched, {
    chainId: options.chainId,
    tokens,
    owners,
    headers,
    seenAt: deps.clock.now(),
  });
  const blocks: BlockRef[] = [...headers.values()].map((h) => ({
    number: h.number,
    hash: h.hash.toLowerCase(),
  }));
  const now = deps.clock.now();
  const next: ChainCursor = {
    chainId: options.chainId,
    nextBlock: to + 1n,
    headBlock: head,
    finalizedBlock: finalized,
    updatedAt: now,
  };
  const changes = await ledger.transaction(async (tx) => {
    const affected = await tx.insertTransfers(transfers);
    const reported = await tx.insertUnacceptedTransfers(unaccepted);
    await tx.saveBlocks(options.chainId, blocks);
    await tx.saveCursor(next);
    // Recorded blocks far below finality can no longer be reorged: they are only needed near the tip.
    await tx.pruneBlocksBelow(options.chainId, finalized - BigInt(REORG_LOOKBACK_BLOCKS));
    const statusChanges = await refreshPayments(tx, affected, now, deps.payoutPolicy);
    await reportUnacceptedTransfers(tx, reported, now, deps.payoutPolicy);
    return statusChanges;
  });
  if (unaccepted.length > 0) {
    deps.logger.warn(
      { transfers: unaccepted.map((u) => `${u.tokenSymbol} to ${u.paymentId}`) },
      'tokens that do not pay were sent to payments; the merchants are told',
    );
  }
  if (transfers.length > 0) {
    deps.logger.info(
      { from: from.toString(), to: to.toString(), transfers: transfers.length },
      'transfers recorded',
    );
  }
  return { cursor: next, changes };
}

/**
 * Marks transfers final up to the finalized block, after checking that each one's block is still the canonical
 * block at its height (a transfer whose block was replaced is orphaned instead, and its range rescanned).
 */
async function finalize(
  deps: WatchChainDeps,
  options: WatchChainOptions,
  cursor: ChainCursor,
  head: bigint,
  finalized: bigint,
): Promise<StatusChange[]> {
  const limit = minBig(finalized, cursor.nextBlock - 1n);
  const candidates =
    limit < 0n ? [] : await deps.ledger.transfersToFinalize(options.chainId, limit, FINALIZE_BATCH);
  const now = deps.clock.now();
  // Recorded blocks far below finality can no longer be reorged: they are only needed near the tip.
  const pruneBelow = finalized - BigInt(REORG_LOOKBACK_BLOCKS);
  if (candidates.length === 0) {
    if (finalized !== cursor.finalizedBlock) {
      await deps.ledger.transaction(async (tx) => {
        await tx.saveCursor({ ...cursor, headBlock: head, finalizedBlock: finalized, updatedAt: now });
        await tx.pruneBlocksBelow(options.chainId, pruneBelow);
      });
    }
    return [];
  }
  const canonical = await blocksAt(deps.chain, [...new Set(candidates.map((t) => t.blockNumber))]);
  const orphans = candidates.filter((t) => {
    const hash = canonical.get(t.blockNumber)?.hash;
    return !hash || !sameHash(hash, t.blockHash);
  });

  // With a full batch, finalize only up to the last block checked; the rest waits for the next pass.
  const upTo = candidates.length === FINALIZE_BATCH ? candidates[candidates.length - 1]!.blockNumber : limit;
  const lowestOrphan = orphans.reduce<bigint | undefined>(
    (low, t) => (low === undefined || t.blockNumber < low ? t.blockNumber : low),
    undefined,
  );
  const next: ChainCursor = {
    ...cursor,
    // A replaced block below the cursor means the range must be scanned again from there.
    nextBlock: lowestOrphan === undefined ? cursor.nextBlock : minBig(cursor.nextBlock, lowestOrphan),
    headBlock: head,
    finalizedBlock: finalized,
    updatedAt: now,
  };
  if (orphans.length > 0) {
    deps.logger.warn(
      { transfers: orphans.map((t) => t.id) },
      'transfers in replaced blocks orphaned before finality',
    );
  }
  return deps.ledger.transaction(async (tx) => {
    const orphaned = await tx.orphanTransfers(orphans.map((t) => t.id));
    // The rewind orphans the transfers above the replaced block too (not yet final, so not checked here): their
    // payments must be refreshed as well, or they keep counting transfers no longer on the chain.
    const rewound =
      lowestOrphan === undefined ? [] : await tx.rewindAbove(options.chainId, lowestOrphan - 1n);
    const finalizedIds = await tx.markFinal(
      options.chainId,
      lowestOrphan === undefined ? upTo : minBig(upTo, lowestOrphan - 1n),
    );
    await tx.saveCursor(next);
    await tx.pruneBlocksBelow(options.chainId, pruneBelow);
    return refreshPayments(tx, [...orphaned, ...rewound, ...finalizedIds], now, deps.payoutPolicy);
  });
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
