import type { Logger } from 'pino';
import { expirePayments, type StatusPassDeps } from '../chain/refreshPayments.ts';
import type { RefundNoticeSettings } from '../email/refundNotices.ts';
import { announceRefunds } from '../refunds/announceRefunds.ts';
import type { RefundStore } from '../refunds/ports.ts';
import { type PassOutcome, runLoop } from './jobLoop.ts';

export interface ExpirerDeps extends StatusPassDeps {
  readonly refunds: RefundStore;
  readonly logger: Pick<Logger, 'warn' | 'error'>;
  /** Where e-mail is configured: refund notices (receipts are the ledger's reaction, decision 0043). */
  readonly refundNotices?: RefundNoticeSettings | undefined;
}

/**
 * The expirer until `signal` aborts: what the clock alone changes. Both halves are safe to run twice (row
 * locks, marks); the caller runs one at a time all the same, to spare the sweeps.
 */
export function runExpirer(
  deps: ExpirerDeps,
  options: { readonly intervalMs: number; readonly signal: AbortSignal },
): Promise<void> {
  return runLoop(
    { name: 'expirer', intervalMs: options.intervalMs, signal: options.signal, logger: deps.logger },
    () => expirerPass(deps),
  );
}

/**
 * One pass: payments whose link expired become `expired` or `failed`; refunds funded, sent or expired since the
 * last pass are told to their merchants. `busy` when either found something (more may wait behind a batch).
 */
export async function expirerPass(deps: ExpirerDeps): Promise<PassOutcome> {
  const changes = await expirePayments(deps);
  const told = await announceRefunds({
    refunds: deps.refunds,
    clock: deps.clock,
    refundNotices: deps.refundNotices,
  });
  return changes.length > 0 || told.length > 0 ? 'busy' : 'idle';
}
