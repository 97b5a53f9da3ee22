import type { Logger } from 'pino';
import type { Clock } from '../shared/ports.ts';
import { runLoop } from './jobLoop.ts';

/** What every outbox's dispatcher (webhooks, e-mail) needs beside its store and its way out. */
export interface DispatcherDeps<Config> {
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  readonly config: Config;
  /** Uniform in [0, 1), for the retry jitter; tests pin it. */
  readonly random?: () => number;
}

/**
 * Runs a dispatcher's passes until `signal` aborts: at once again after a pass that attempted anything (what was
 * written meanwhile need not wait out the interval), else after `intervalMs`. A pass in progress finishes before
 * the loop returns.
 */
export function runDispatcher(
  name: string,
  logger: Pick<Logger, 'warn' | 'error'>,
  options: { readonly intervalMs: number; readonly signal: AbortSignal },
  pass: () => Promise<{ readonly attempted: number }>,
): Promise<void> {
  return runLoop({ name, intervalMs: options.intervalMs, signal: options.signal, logger }, async () =>
    (await pass()).attempted > 0 ? 'busy' : 'idle',
  );
}
