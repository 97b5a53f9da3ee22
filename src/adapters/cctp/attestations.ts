/**
 * The attestation API as the bridge's attest step asks it (app/bridge/ports.ts `Attestations`): Iris's answer
 * for one burn, matched to it (attestationClient.ts), and the route's fast fee (burnFees.ts). An API that cannot
 * answer now is a state, not an exception: the step waits (as long as a 429 asks) and asks again.
 */
import type { Address, Hex } from 'viem';
import type { AttestationLookup, Attestations, ReattestRequest } from '../../app/bridge/ports.ts';
import { FINALITY_FAST } from '../../domain/cctp.ts';
import { AttestationApiError, type AttestationClient, burnAttestation } from './attestationClient.ts';
import { fetchBurnFees, minimumMaxFee } from './burnFees.ts';
import { POLYGON_DOMAIN } from './cctpMessage.ts';

export function createAttestations(options: {
  client: AttestationClient;
  baseUrl: string;
  timeoutMs: number;
  /** The home chain's domain (Polygon's). */
  destinationDomain?: number;
}): Attestations {
  const destinationDomain = options.destinationDomain ?? POLYGON_DOMAIN;
  return {
    async lookup(burn): Promise<AttestationLookup> {
      let answer: ReturnType<typeof burnAttestation>;
      try {
        const lookup = await options.client.messagesOf(burn.sourceDomain, burn.burnTxHash as Hex);
        answer = burnAttestation(lookup, {
          sourceDomain: burn.sourceDomain,
          mintRecipient: burn.mintRecipient as Address,
          amount: burn.amountBaseUnits,
        });
      } catch (error) {
        if (!(error instanceof AttestationApiError)) throw error;
        return { state: 'unavailable', reason: error.message, retryAfterMs: error.retryAfterMs ?? null };
      }
      if (answer.state === 'not_found') return { state: 'pending', reason: 'the burn is not seen yet' };
      if (answer.state === 'pending')
        return { state: 'pending', reason: answer.delayReason ?? 'waiting for confirmations' };
      const { message } = answer;
      if (message.burn === undefined) throw new Error('a complete burn attestation without its burn body');
      return {
        state: 'complete',
        message: message.message,
        attestation: message.attestation,
        cctpNonce: message.decoded.nonce,
        feeExecutedBaseUnits: message.burn.feeExecuted,
      };
    },
    async fastMinimumFee(sourceDomain, amountBaseUnits) {
      const fees = await fetchBurnFees({
        baseUrl: options.baseUrl,
        timeoutMs: options.timeoutMs,
        sourceDomain,
        destinationDomain,
      });
      const fast = fees.find((fee) => fee.finalityThreshold <= FINALITY_FAST);
      if (fast === undefined)
        throw new Error(`no fast transfer fee on the route from domain ${sourceDomain}`);
      return minimumMaxFee(amountBaseUnits, fast.minimumFeeBps);
    },
    async reattest(cctpNonce): Promise<ReattestRequest> {
      try {
        const answer = await options.client.reattest(cctpNonce as Hex);
        if (answer.state === 'requested') return { state: 'requested' };
        return {
          state: 'refused',
          reason:
            answer.state === 'not_found'
              ? `the attestation API does not know the nonce ${cctpNonce} (HTTP 404)`
              : `the attestation API refused to re-attest the nonce ${cctpNonce} (HTTP 400)`,
        };
      } catch (error) {
        if (!(error instanceof AttestationApiError)) throw error;
        return { state: 'unavailable', reason: error.message, retryAfterMs: error.retryAfterMs ?? null };
      }
    },
  };
}
