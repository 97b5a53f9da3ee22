import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { createWakeup, type Wakeup } from './wakeup.ts';

/**
 * What one pass of a background job reports: `busy` runs the next pass at once (catching up), `idle` waits the
 * interval, `soon` a quarter of it: something it just did is due back within a block (a transaction it sent),
 * and a whole interval on top of the block would be a delay the customer sees.
 */
export type PassOutcome = 'busy' | 'idle' | 'soon';

export interface LoopOptions {
  readonly name: string;
  readonly intervalMs: number;
  readonly signal: AbortSignal;
  readonly logger: Pick<Logger, 'warn' | 'error'>;
  /** Longest wait after repeated failures. */
  readonly maxBackoffMs?: number;
  /** Another job's nudge that cuts a wait short (work it just handed over); without one, waits run their course. */
  readonly wakeup?: Wakeup | undefined;
}

/**
 * Runs a background job until the signal aborts: a failing pass is logged and retried with exponential
 * backoff (RPC down, database restarting), never allowed to end the loop or the process. Passes start at a
 * fixed rate (the wait is the interval minus the time the pass took), so an event is picked up within one
 * interval plus one pass, not two.
 */
export async function runLoop(options: LoopOptions, pass: () => Promise<PassOutcome>): Promise<void> {
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const wakeup = options.wakeup ?? createWakeup();
  let failures = 0;
  while (!options.signal.aborted) {
    const startedMs = performance.now();
    let waitMs = options.intervalMs;
    try {
      const outcome = await pass();
      if (failures > 0) options.logger.warn({ job: options.name, failures }, 'background job recovered');
      failures = 0;
      const periodMs = outcome === 'soon' ? options.intervalMs / 4 : options.intervalMs;
      waitMs = outcome === 'busy' ? 0 : Math.max(0, periodMs - (performance.now() - startedMs));
    } catch (error) {
      failures += 1;
      waitMs = Math.min(maxBackoffMs, options.intervalMs * 2 ** Math.min(failures, 10));
      options.logger.warn(
        { job: options.name, failures, retryInMs: waitMs, err: describeError(error) },
        'background job failed',
      );
    }
    if (waitMs > 0) await wakeup.wait(waitMs, options.signal);
    else await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * An error as a log line may show it: RPC URLs often carry a provider API key in their path or query, so only
 * their host is kept.
 */
export function describeError(error: unknown): { name: string; message: string } {
  const name = error instanceof Error ? error.name : 'Error';
  const raw =
    error instanceof Error
      ? ((error as Error & { shortMessage?: string }).shortMessage ?? error.message)
      : String(error);
  const message = raw.replace(/\b(https?|wss?):\/\/([^/\s"'?#]+)[^\s"']*/g, '$1://$2/…').slice(0, 500);
  return { name, message };
}
