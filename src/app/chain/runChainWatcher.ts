import type { Logger } from 'pino';
import { type PassOutcome, runLoop } from '../operations/jobLoop.ts';
import { pollChainOnce, type WatchChainDeps, type WatchChainOptions } from './watchChain.ts';

/** A watcher this many blocks behind its head is catching up, and says so. */
export const LAG_WORTH_LOGGING_BLOCKS = 10n;
/** At most one "catching up" line in this long: a long catch-up is one line every half minute, not a flood. */
export const LAG_LOG_EVERY_MS = 30_000;

/** The watcher's deps, with a logger the loop can report a failed pass to. */
export type RunChainWatcherDeps = WatchChainDeps & {
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
};

export interface RunChainWatcherOptions extends WatchChainOptions {
  readonly intervalMs: number;
  readonly signal: AbortSignal;
}

/**
 * A chain's watcher until `signal` aborts: one `pollChainOnce` per pass (transfers, reorgs, finality), the next at
 * once while it is behind its head. One per chain id, home or source (a source chain's with `homeChainId`); the
 * caller holds its lock, since the watcher owns the chain's cursor. Its logger names the chain.
 */
export function runChainWatcher(deps: RunChainWatcherDeps, options: RunChainWatcherOptions): Promise<void> {
  return runLoop(
    { name: 'chain-watcher', intervalMs: options.intervalMs, signal: options.signal, logger: deps.logger },
    chainWatcherPass(deps, options),
  );
}

/**
 * One pass of the watcher's loop, remembering between passes when it last said how far behind it is: `busy`
 * while it lags its head (the loop runs again at once), `idle` once it has caught up.
 */
export function chainWatcherPass(
  deps: WatchChainDeps,
  options: WatchChainOptions,
): () => Promise<PassOutcome> {
  let lastLagLogMs = Number.NEGATIVE_INFINITY;
  return async () => {
    const result = await pollChainOnce(deps, options);
    const nowMs = deps.clock.now().getTime();
    if (result.lagBlocks > LAG_WORTH_LOGGING_BLOCKS && nowMs - lastLagLogMs > LAG_LOG_EVERY_MS) {
      lastLagLogMs = nowMs;
      deps.logger.info(
        { lagBlocks: result.lagBlocks.toString(), head: result.head.toString() },
        'chain watcher catching up',
      );
    }
    return result.lagBlocks > 0n ? 'busy' : 'idle';
  };
}
