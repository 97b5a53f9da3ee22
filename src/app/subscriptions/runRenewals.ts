import type { Logger } from 'pino';
import { runLoop } from '../operations/jobLoop.ts';
import { type RenewalDeps, renewDueSubscriptions } from './renewal.ts';

/** Subscriptions one pass looks at, at most: more due, the next pass starts at once. */
export const RENEWAL_BATCH = 50;

/**
 * The renewal job (push renewal, decision 0060), until `signal` aborts: in every worker, as webhook delivery is,
 * since each subscription is claimed with a lease before it is looked at.
 */
export function runRenewalJob(
  deps: RenewalDeps,
  options: { readonly intervalMs: number; readonly signal: AbortSignal; readonly logger: Logger },
): Promise<void> {
  return runLoop({ name: 'subscription-renewal', ...options }, async () =>
    (await renewDueSubscriptions(deps, RENEWAL_BATCH)) === RENEWAL_BATCH ? 'busy' : 'idle',
  );
}
