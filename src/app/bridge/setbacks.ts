import { settlementRetryDelayMs } from '../../domain/payout.ts';
import type { BridgeStepDeps } from './options.ts';
import type { BridgeTransfer, StepSetback } from './ports.ts';

/** What a step's pass says when it is held up: tried again after the setback's back-off. */
export interface SetbackOutcome {
  readonly kind: 'setback';
  readonly transferId: string;
  readonly reason: string;
}

/**
 * Records a step's setback on its transfer (its next attempt, and whether it counts as a stall) and logs it:
 * the burn and the mint step are held up the same way.
 */
export async function recordSetback(
  deps: BridgeStepDeps,
  step: 'burn' | 'mint',
  transfer: BridgeTransfer,
  setback: StepSetback,
): Promise<SetbackOutcome> {
  await deps.bridge.recordSetback(transfer.id, setback, deps.clock.now());
  deps.logger.warn(
    { transferId: transfer.id, paymentId: transfer.paymentId, reason: setback.reason },
    `${step} held up; tried again after its back-off`,
  );
  return { kind: 'setback', transferId: transfer.id, reason: setback.reason };
}

/** Longest wait between two polls of an attestation that is simply not ready yet. */
const MAX_POLL_MS = 60_000;

/**
 * A step that failed (a reverted or refused transaction, an RPC or API error): retried after the settler's
 * back-off (10 s doubling to 1 h) for as long as it takes, and reported as a stall from the first failure.
 */
export function failedStep(transfer: BridgeTransfer, reason: string, now: Date): StepSetback {
  return {
    reason,
    nextAttemptAt: new Date(now.getTime() + settlementRetryDelayMs(transfer.attempts + 1)),
    stalled: true,
  };
}

/**
 * An attestation not ready yet: asked again after `pollMs`, doubling up to a minute; a stall only once the
 * transfer has waited longer than its speed normally takes. The API's own wait (HTTP 429) is honoured as is.
 * A `steady` wait (a fast transfer, which Circle signs within seconds) is asked every `pollMs` without doubling
 * for as long as it is not late, so the attestation is seen within one poll of its coming (decision 0037); once
 * late, it backs off like any other.
 */
export function attestationWait(
  transfer: BridgeTransfer,
  wait: {
    reason: string;
    pollMs: number;
    expectedMs: number;
    retryAfterMs: number | null;
    steady?: boolean;
  },
  now: Date,
): StepSetback {
  const stalled = now.getTime() - transfer.createdAt.getTime() >= wait.expectedMs;
  const doublings = wait.steady && !stalled ? 0 : Math.min(transfer.attempts, 16);
  const polled = Math.min(MAX_POLL_MS, wait.pollMs * 2 ** doublings);
  const delayMs = wait.retryAfterMs === null ? polled : Math.max(wait.retryAfterMs, wait.pollMs);
  return { reason: wait.reason, nextAttemptAt: new Date(now.getTime() + delayMs), stalled };
}
