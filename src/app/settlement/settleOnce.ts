import { type PassOutcome, runLoop } from '../operations/jobLoop.ts';
import type { Wakeup } from '../operations/wakeup.ts';
import { advanceInFlight, RESOLVED } from './advanceInFlight.ts';
import type { InFlightOutcome } from './inFlightOutcome.ts';
import { notifyDelayedPayouts } from './notifyDelayedPayouts.ts';
import type { SettleOptions, SettlePaymentsDeps } from './options.ts';
import { type SendOutcome, sendDue } from './sendDue.ts';

export interface SettleResult {
  readonly inFlight: InFlightOutcome | null;
  /** Null while a settlement is still in flight, or another sender's transaction on the relayer is unmined. */
  readonly send: SendOutcome | null;
  /** Payments whose merchant was told this pass that its payout is delayed. */
  readonly delayNotices: readonly string[];
}

/**
 * One bounded pass of the settler. If a settlement is in flight (one at a time per chain, so a dropped
 * transaction never leaves a nonce gap), move it on. Otherwise flush the payments due in one transaction. Then
 * tell merchants whose payout has been failing too long.
 *
 * Every transaction is persisted before it is broadcast and identified by its hash, and a settlement is
 * applied in the same database transaction that closes it (pending → confirmed, once): after a crash at any
 * point the next pass resumes the same transaction, and each flush is counted exactly once. A flush itself
 * can only ever move a deposit address's funds to the merchant and treasury it commits to, so a duplicate
 * broadcast could cost gas, never money. A payout that fails is retried after a back-off (10 s doubling to
 * 1 h) for as long as it takes: it never needs an operator to resume.
 */
export async function settleOnce(
  deps: SettlePaymentsDeps,
  options: SettleOptions,
  /**
   * Another sender on the same relayer (the home chain's mints), given its turn every pass, after the settlement
   * in flight is moved on and before the next is sent: false while its own transaction is unmined, and no
   * settlement is sent this pass.
   */
  otherTurn?: () => Promise<boolean>,
): Promise<SettleResult> {
  const pending = await deps.settlements.inFlight(options.chainId);
  let inFlight: InFlightOutcome | null = null;
  let send: SendOutcome | null = null;
  if (pending) inFlight = await advanceInFlight(deps, options, pending);
  const free = inFlight === null || RESOLVED.has(inFlight.kind);
  // The other sender goes even behind a settlement of ours in flight, at the next nonce: what it sends (a mint)
  // is what a customer waits for, and a block spent waiting for our flush, or minutes for its finality, would be
  // theirs. The reverse never: no settlement is sent while the other's transaction is unmined.
  const othersDone = otherTurn === undefined || (await otherTurn());
  if (free && othersDone) send = await sendDue(deps, options);
  const delayNotices = await notifyDelayedPayouts(deps, options);
  return { inFlight, send, delayNotices };
}

export interface RunSettlerOptions extends SettleOptions {
  readonly intervalMs: number;
  readonly signal: AbortSignal;
  /** Upper bound of the wait after consecutive failed passes; default 60 s. */
  readonly maxBackoffMs?: number;
  /** On a home chain, raised by its source chains' bridge jobs when an attestation is recorded: a mint is due. */
  readonly wakeup?: Wakeup | undefined;
}

/**
 * Runs `settleOnce` every `intervalMs` until `signal` aborts. A failed pass (RPC or database down) is logged
 * and retried with exponential backoff; the loop never throws, and a pass is never cut short by the signal.
 */
export function runSettler(deps: SettlePaymentsDeps, options: RunSettlerOptions): Promise<void> {
  return runSettlerLoop(deps, options, async () => settlerPassOutcome(await settleOnce(deps, options)));
}

/** The settler's loop around one kind of pass (with or without the mint step, settleWithMints.ts). */
export function runSettlerLoop(
  deps: Pick<SettlePaymentsDeps, 'logger'>,
  options: RunSettlerOptions,
  pass: () => Promise<PassOutcome>,
): Promise<void> {
  const { intervalMs, signal } = options;
  return runLoop(
    {
      name: 'settler',
      intervalMs,
      signal,
      logger: deps.logger,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      wakeup: options.wakeup,
    },
    pass,
  );
}

/** Our settlement broadcast and not mined yet (a replacement included): the next block settles it. */
const UNMINED: ReadonlySet<InFlightOutcome['kind']> = new Set(['broadcast', 'awaiting-receipt', 'replaced']);

/**
 * When the settler looks again: within a block (`soon`) while a settlement of ours is unmined, since the next
 * flush can go only once it is mined; else after its interval.
 */
export function settlerPassOutcome(result: SettleResult): PassOutcome {
  const unmined =
    (result.inFlight !== null && UNMINED.has(result.inFlight.kind)) || result.send?.kind === 'sent';
  return unmined ? 'soon' : 'idle';
}
