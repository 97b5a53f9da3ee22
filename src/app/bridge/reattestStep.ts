import type { SourceBridgeDeps, SourceBridgeOptions } from './options.ts';
import type { AttestationLookup, BridgeTransfer, StepSetback } from './ports.ts';
import { attestationWait, failedStep } from './setbacks.ts';

/** What one look at an expired transfer did: re-attested (on to its mint), or still waiting. */
export interface ReattestOutcome {
  readonly attested: boolean;
  /** The API asked us to wait (HTTP 429): no other transfer is asked about in this pass. */
  readonly stopPass: boolean;
}

/**
 * The attest step of a transfer whose attested message expired before its mint (decision 0036). `lookup` is
 * Iris's answer for its burn, asked just before:
 * - a complete message other than the expired one is the re-signed message (whoever asked for it, and also
 *   after a crash between our request and its record): recorded, the transfer goes on to its mint;
 * - otherwise, until Circle has accepted our request, `POST /v2/reattest/{nonce}` is sent; once accepted, Iris
 *   is polled again until it answers the message re-signed (after the burn is final on its chain: a finalized
 *   attestation waits for that).
 * The whole wait is a stall, reported on the payment: the money is late since the message expired.
 */
export async function reattestOnce(
  deps: SourceBridgeDeps,
  options: SourceBridgeOptions,
  transfer: BridgeTransfer,
  lookup: AttestationLookup,
): Promise<ReattestOutcome> {
  const now = deps.clock.now();
  if (
    lookup.state === 'complete' &&
    lookup.message.toLowerCase() !== transfer.attestedMessage?.toLowerCase()
  ) {
    if (lookup.feeExecutedBaseUnits < 0n || lookup.feeExecutedBaseUnits > transfer.maxFeeBaseUnits)
      throw new Error(`re-attested fee of ${transfer.id} outside its bound ${transfer.maxFeeBaseUnits}`);
    await deps.bridge.recordAttestation(transfer.id, lookup, now);
    deps.logger.info(
      { transferId: transfer.id, paymentId: transfer.paymentId },
      'expired message re-attested: on to its mint',
    );
    return { attested: true, stopPass: false };
  }
  if (lookup.state === 'unavailable') return wait(deps, transfer, options, apiWait(lookup));
  if (transfer.reattestRequestedAt !== null) {
    const since = transfer.reattestRequestedAt.toISOString();
    return wait(deps, transfer, options, {
      reason: `re-attestation asked at ${since}, not signed yet`,
      retryAfterMs: null,
    });
  }
  if (transfer.cctpNonce === null)
    throw new Error(`bridge transfer ${transfer.id} expired without its nonce`);
  const asked = await deps.attestations.reattest(transfer.cctpNonce);
  if (asked.state === 'unavailable') return wait(deps, transfer, options, apiWait(asked));
  if (asked.state === 'refused') {
    await record(deps, transfer, failedStep(transfer, `re-attestation refused: ${asked.reason}`, now));
    return { attested: false, stopPass: false };
  }
  await deps.bridge.recordReattestRequested(transfer.id, now);
  deps.logger.info(
    { transferId: transfer.id, paymentId: transfer.paymentId, nonce: transfer.cctpNonce },
    'expired message: re-attestation requested',
  );
  return wait(deps, transfer, options, {
    reason: 're-attestation requested, waiting for Circle to sign the message at finalized level',
    retryAfterMs: null,
  });
}

function apiWait(answer: { reason: string; retryAfterMs: number | null }): {
  reason: string;
  retryAfterMs: number | null;
} {
  return { reason: `attestation API unavailable: ${answer.reason}`, retryAfterMs: answer.retryAfterMs };
}

async function wait(
  deps: SourceBridgeDeps,
  transfer: BridgeTransfer,
  options: SourceBridgeOptions,
  why: { reason: string; retryAfterMs: number | null },
): Promise<ReattestOutcome> {
  const now = deps.clock.now();
  const setback = attestationWait(
    transfer,
    { reason: why.reason, pollMs: options.attestationPollMs, expectedMs: 0, retryAfterMs: why.retryAfterMs },
    now,
  );
  await record(deps, transfer, setback);
  return { attested: false, stopPass: why.retryAfterMs !== null };
}

async function record(deps: SourceBridgeDeps, transfer: BridgeTransfer, setback: StepSetback): Promise<void> {
  await deps.bridge.recordSetback(transfer.id, setback, deps.clock.now());
  deps.logger.warn(
    { transferId: transfer.id, paymentId: transfer.paymentId, reason: setback.reason },
    'cross-chain transfer waiting for its re-attestation',
  );
}
