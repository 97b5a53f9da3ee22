import type { SourceBridgeDeps, SourceBridgeOptions } from './options.ts';
import { reattestOnce } from './reattestStep.ts';
import { attestationWait } from './setbacks.ts';

/** Burns asked about per pass; more wait for the next pass. */
const MAX_LOOKUPS_PER_PASS = 20;

export interface AttestOutcome {
  /** Transfers whose attestation came: now waiting for their mint on the home chain. */
  readonly attested: readonly string[];
  /** Transfers still waiting (not ready, or the API unreachable), each asked again after its wait. */
  readonly waiting: readonly string[];
}

/**
 * Asks the attestation API about this source chain's final burns that are due for a look: a complete
 * attestation moves the transfer to its mint; one not ready yet is asked again later (a growing poll, or the
 * wait a 429 asks for: Iris blocks a client that keeps asking). A wait past what the transfer's speed normally
 * takes, or an API unreachable, is a stall: reported on the payment like a failing payout.
 */
export async function attestOnce(
  deps: SourceBridgeDeps,
  options: SourceBridgeOptions,
): Promise<AttestOutcome> {
  // The next ask is timed from this pass's start, not from its answer: the job's passes come at a fixed rate, and
  // a wait of one poll counted from a few milliseconds into this pass would miss the next pass and take two.
  const asked = deps.clock.now();
  const due = await deps.bridge.due(
    'attest',
    { sourceChainId: deps.source.chainId },
    asked,
    MAX_LOOKUPS_PER_PASS,
  );
  const attested: string[] = [];
  const waiting: string[] = [];
  for (const transfer of due) {
    if (transfer.burnTxHash === null) throw new Error(`bridge transfer ${transfer.id} has no burn`);
    const lookup = await deps.attestations.lookup({
      sourceDomain: transfer.sourceDomain,
      burnTxHash: transfer.burnTxHash,
      mintRecipient: transfer.depositAddress,
      amountBaseUnits: transfer.amountBaseUnits,
    });
    if (transfer.expiredAt !== null) {
      // Its attested message expired before the mint: re-attested instead (decision 0036).
      const again = await reattestOnce(deps, options, transfer, lookup);
      (again.attested ? attested : waiting).push(transfer.id);
      if (again.stopPass) break;
      continue;
    }
    const now = deps.clock.now();
    if (lookup.state === 'complete') {
      if (lookup.feeExecutedBaseUnits < 0n || lookup.feeExecutedBaseUnits > transfer.maxFeeBaseUnits)
        throw new Error(`attested fee of ${transfer.id} outside its bound ${transfer.maxFeeBaseUnits}`);
      await deps.bridge.recordAttestation(transfer.id, lookup, now);
      attested.push(transfer.id);
      continue;
    }
    // Iris's own wait (429) is counted from its answer, so that we never ask a moment early.
    const apiWait = lookup.state === 'unavailable' && lookup.retryAfterMs !== null;
    const setback = attestationWait(
      transfer,
      {
        reason:
          lookup.state === 'pending'
            ? `attestation not ready: ${lookup.reason}`
            : `attestation API unavailable: ${lookup.reason}`,
        pollMs: options.attestationPollMs,
        expectedMs: lookup.state === 'pending' ? options.attestationExpectedMs : 0,
        retryAfterMs: lookup.state === 'unavailable' ? lookup.retryAfterMs : null,
        steady: transfer.speed === 'fast',
      },
      apiWait ? now : asked,
    );
    await deps.bridge.recordSetback(transfer.id, setback, now);
    waiting.push(transfer.id);
    if (setback.stalled) {
      deps.logger.warn(
        { transferId: transfer.id, paymentId: transfer.paymentId, reason: setback.reason },
        'cross-chain transfer waiting for its attestation',
      );
    }
    // The API is shared by every transfer: while it asks us to wait, nobody asks.
    if (lookup.state === 'unavailable' && lookup.retryAfterMs !== null) break;
  }
  return { attested, waiting };
}
