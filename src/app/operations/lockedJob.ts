import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { describeError, type LoopOptions } from './jobLoop.ts';
import type { JobLease, JobLocks } from './ports.ts';

/**
 * Runs `job` only while this process holds the database lock named `name` (a session advisory lock on
 * PostgreSQL, `adapters/db/singletonLocks.ts`), so that one process at a time runs it. Standby processes keep
 * trying to take the lock, so when the holder dies another one takes the job within about one interval. Losing
 * the lock (its connection failed) stops the job at once; it starts again only after the lock is held again.
 */
export async function runWhileHoldingLock(
  locks: JobLocks,
  name: string,
  options: Omit<LoopOptions, 'name'> & { readonly logger: Pick<Logger, 'warn' | 'error' | 'info'> },
  job: (signal: AbortSignal) => Promise<void>,
): Promise<void> {
  while (!options.signal.aborted) {
    let lease: JobLease | undefined;
    try {
      lease = await locks.tryAcquire(name);
    } catch (error) {
      options.logger.warn({ role: name, err: describeError(error) }, 'could not ask for the singleton lock');
    }
    if (!lease) {
      await sleep(options.intervalMs, undefined, { signal: options.signal }).catch(() => undefined);
      continue;
    }
    options.logger.info({ role: name }, 'holding the singleton role');
    try {
      await job(AbortSignal.any([options.signal, lease.lost]));
    } finally {
      await lease.release();
    }
    if (lease.lost.aborted && !options.signal.aborted) {
      options.logger.warn({ role: name }, 'lost the singleton lock; trying to take it again');
    }
  }
}
