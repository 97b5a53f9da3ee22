import type { Logger } from 'pino';
import { lastBlockAtOrBefore } from '../chain/blockReads.ts';
import type { BlockHeader } from '../chain/ports.ts';
import { type PassOutcome, runLoop } from '../operations/jobLoop.ts';
import type { Clock } from '../shared/ports.ts';

// A mandate canceled on chain (decision 0061): the customer may call the charger's `cancel(terms)` from any wallet,
// not only the portal's button. This job reads the charger's `Canceled` logs of final blocks only, and marks each
// mandate it names canceled, as the portal's "Switch to e-mail payments" does: nothing more is charged, the next
// periods' links are e-mailed. Reading final blocks only is the whole of its reorg handling: a cancel that a reorg
// removes before finality is never read, so it never cancels anything.

/** The charger's `Canceled(mandate, customer)`, decoded. */
export interface CanceledLog {
  /** The mandate's id (the EIP-712 digest of its terms), lowercase. */
  readonly mandateId: string;
  readonly customer: string;
  readonly txHash: string;
  readonly blockNumber: bigint;
}

/** What the job reads from the chain. */
export interface ChargerLogReader {
  /** The highest block that is final under the chain's policy (the watcher's: `finalized` tag or confirmations). */
  finalizedBlockNumber(): Promise<bigint>;
  blockAt(number: bigint): Promise<BlockHeader | undefined>;
  /** The charger's `Canceled` logs in [fromBlock, toBlock], in block order. */
  canceledLogs(charger: string, fromBlock: bigint, toBlock: bigint): Promise<CanceledLog[]>;
}

/** A mandate the job canceled: whose, and by which transaction. */
export interface ChainCancel {
  readonly subscriptionId: string;
  readonly mandateId: string;
  readonly txHash: string;
}

/** The job's records (adapters/db/mandateRepository.ts, migration 0054). */
export interface ChainCancelStore {
  /** The first block not read yet on this chain's charger; undefined before the first pass. */
  cancelCursor(chainId: number, charger: string): Promise<bigint | undefined>;
  /** When the oldest mandate still active on this charger was given; undefined: none is. */
  oldestActiveMandate(chainId: number, charger: string): Promise<Date | undefined>;
  /**
   * In one transaction: each logged mandate of this charger still stored canceled (whatever it was: active, or
   * switched to e-mail) with its transaction and the time of its block, unless already marked; and the cursor
   * moved to `nextBlock`. Answers the mandates that were marked.
   */
  recordChainCancels(
    chainId: number,
    charger: string,
    cancels: readonly (CanceledLog & { readonly at: Date })[],
    nextBlock: bigint,
    at: Date,
  ): Promise<ChainCancel[]>;
}

export interface ChainCancelDeps {
  readonly chain: ChargerLogReader;
  readonly store: ChainCancelStore;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export interface ChainCancelOptions {
  readonly chainId: number;
  readonly charger: string;
  readonly maxBlockRange: number;
  /** Bound on ranges read per pass, so that a long catch-up yields between passes. */
  readonly maxRangesPerPass?: number;
}

/** Our clock and a block's may disagree a little: a new cursor starts this much earlier rather than later. */
const CLOCK_SKEW_MARGIN_MS = 5 * 60_000;

/**
 * One pass: the final blocks not read yet, a range at a time, each range's cancels recorded with the cursor.
 * `busy` while final blocks are left to read, else `idle`.
 */
export async function readChainCancelsOnce(
  deps: ChainCancelDeps,
  options: ChainCancelOptions,
): Promise<PassOutcome> {
  const charger = options.charger.toLowerCase();
  const finalized = await deps.chain.finalizedBlockNumber();
  let next =
    (await deps.store.cancelCursor(options.chainId, charger)) ??
    (await firstBlockToRead(deps, options.chainId, charger, finalized));
  const range = BigInt(Math.max(1, options.maxBlockRange));
  for (let ranges = 0; next <= finalized && ranges < (options.maxRangesPerPass ?? 20); ranges += 1) {
    const to = next + range - 1n < finalized ? next + range - 1n : finalized;
    const logs = await deps.chain.canceledLogs(charger, next, to);
    const times = new Map<bigint, Date>();
    for (const log of logs)
      if (!times.has(log.blockNumber))
        times.set(
          log.blockNumber,
          (await deps.chain.blockAt(log.blockNumber))?.timestamp ?? deps.clock.now(),
        );
    const cancels = logs.map((log) => ({ ...log, at: times.get(log.blockNumber)! }));
    const marked = await deps.store.recordChainCancels(
      options.chainId,
      charger,
      cancels,
      to + 1n,
      deps.clock.now(),
    );
    for (const cancel of marked)
      deps.logger.info(
        { subscription: cancel.subscriptionId, mandate: cancel.mandateId, txHash: cancel.txHash },
        'mandate canceled on chain by its customer: its periods are e-mailed from now on',
      );
    next = to + 1n;
  }
  return next <= finalized ? 'busy' : 'idle';
}

/**
 * Where a brand-new cursor starts: at the block of the oldest active mandate's creation (a cancel cannot come
 * before the mandate is signed, but may come before this job's first pass), else just after the final head.
 */
async function firstBlockToRead(
  deps: ChainCancelDeps,
  chainId: number,
  charger: string,
  finalized: bigint,
): Promise<bigint> {
  const oldest = await deps.store.oldestActiveMandate(chainId, charger);
  if (oldest === undefined) return finalized + 1n;
  return lastBlockAtOrBefore(deps.chain, new Date(oldest.getTime() - CLOCK_SKEW_MARGIN_MS), finalized);
}

/** The job until `signal` aborts, a pass per interval (at once while behind). One per chain's charger: a singleton. */
export function runChainCancels(
  deps: ChainCancelDeps,
  options: ChainCancelOptions & { readonly intervalMs: number; readonly signal: AbortSignal },
): Promise<void> {
  return runLoop(
    { name: 'mandate-cancels', intervalMs: options.intervalMs, signal: options.signal, logger: deps.logger },
    () => readChainCancelsOnce(deps, options),
  );
}
