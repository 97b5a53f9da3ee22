import { describe, expect, it } from 'vitest';
import { bridgeWorld, NOW, SOURCE_OPTIONS } from '../../../test/fakes/bridgeWorld.ts';
import { bridgeTransfer, FORWARDER } from '../../../test/fakes/fakeBridgeChains.ts';
import type { AttestationLookup, BridgeTransfer } from './ports.ts';
import { reattestOnce } from './reattestStep.ts';

/**
 * The re-attestation of a message that expired before its mint (decision 0036), over in-memory fakes: a new
 * message is recorded, else Circle is asked once and then polled; every wait is a stall, and the API's own wait
 * stops the pass.
 */
const HASH = `0x${'b'.repeat(64)}`;
const NONCE = `0x${'4'.repeat(64)}`;
const pending: AttestationLookup = { state: 'pending', reason: 'not signed yet' };
const complete = (message: string, fee = 0n): AttestationLookup => ({
  state: 'complete',
  message,
  attestation: '0xnew',
  cctpNonce: NONCE,
  feeExecutedBaseUnits: fee,
});

function expired(changes: Partial<BridgeTransfer> = {}) {
  const w = bridgeWorld();
  w.bridge.add(
    bridgeTransfer({
      step: 'attest',
      burnTxHash: HASH,
      attestedMessage: '0xAAold',
      cctpNonce: NONCE,
      maxFeeBaseUnits: 1_000n,
      expiredAt: NOW,
      ...changes,
    }),
  );
  const run = (lookup: AttestationLookup) =>
    reattestOnce(w.source, SOURCE_OPTIONS, w.bridge.get('brg_1'), lookup);
  return { ...w, run };
}

describe('reattestOnce', () => {
  it('records a complete message other than the expired one, and goes on to the mint', async () => {
    const w = expired();
    expect(await w.run(complete('0xbbnew', 1_000n))).toEqual({ attested: true, stopPass: false });
    expect(w.bridge.get('brg_1')).toMatchObject({
      step: 'mint',
      attestedMessage: '0xbbnew',
      attestation: '0xnew',
      expiredAt: null,
    });
    expect(w.attestations.reattests).toEqual([]);
    expect(w.logger.lines).toEqual([
      {
        level: 'info',
        fields: { transferId: 'brg_1', paymentId: FORWARDER.paymentId },
        message: 'expired message re-attested: on to its mint',
      },
    ]);
  });

  it('refuses a re-attested fee above the bound or below 0', async () => {
    for (const fee of [1_001n, -1n]) {
      const w = expired();
      await expect(w.run(complete('0xbbnew', fee))).rejects.toThrow(
        're-attested fee of brg_1 outside its bound 1000',
      );
    }
  });

  it('takes the expired message, in any case, for no new one: asks Circle to re-attest it', async () => {
    const w = expired({ attempts: 1 });
    expect(await w.run(complete('0xaaOLD'))).toEqual({ attested: false, stopPass: false });
    expect(w.attestations.reattests).toEqual([NONCE]);
    const reason = 're-attestation requested, waiting for Circle to sign the message at finalized level';
    expect(w.bridge.get('brg_1')).toMatchObject({
      step: 'attest',
      reattestRequestedAt: NOW,
      lastError: reason,
      attempts: 2,
      nextAttemptAt: new Date(NOW.getTime() + 4_000),
      stalledSince: NOW,
    });
    expect(w.logger.lines).toEqual([
      {
        level: 'info',
        fields: { transferId: 'brg_1', paymentId: FORWARDER.paymentId, nonce: NONCE },
        message: 'expired message: re-attestation requested',
      },
      {
        level: 'warn',
        fields: { transferId: 'brg_1', paymentId: FORWARDER.paymentId, reason },
        message: 'cross-chain transfer waiting for its re-attestation',
      },
    ]);
  });

  it('asks only once: after Circle accepted, it polls', async () => {
    const asked = new Date(NOW.getTime() - 5_000);
    const w = expired({ reattestRequestedAt: asked });
    expect(await w.run(pending)).toEqual({ attested: false, stopPass: false });
    expect(w.attestations.reattests).toEqual([]);
    expect(w.bridge.get('brg_1')).toMatchObject({
      lastError: `re-attestation asked at ${asked.toISOString()}, not signed yet`,
      nextAttemptAt: new Date(NOW.getTime() + 2_000),
      stalledSince: NOW,
    });
  });

  it("stops the pass for the API's 429 on the lookup, and goes on when it gave no wait", async () => {
    const w = expired();
    expect(await w.run({ state: 'unavailable', reason: 'HTTP 429', retryAfterMs: 30_000 })).toEqual({
      attested: false,
      stopPass: true,
    });
    expect(w.attestations.reattests).toEqual([]);
    expect(w.bridge.get('brg_1')).toMatchObject({
      lastError: 'attestation API unavailable: HTTP 429',
      nextAttemptAt: new Date(NOW.getTime() + 30_000),
    });
    const noWait = expired();
    expect(await noWait.run({ state: 'unavailable', reason: 'HTTP 502', retryAfterMs: null })).toEqual({
      attested: false,
      stopPass: false,
    });
  });

  it("stops the pass for the API's 429 on the request, not recording it as accepted", async () => {
    const w = expired();
    w.attestations.reattestAnswer = { state: 'unavailable', reason: 'HTTP 429', retryAfterMs: 1_000 };
    expect(await w.run(pending)).toEqual({ attested: false, stopPass: true });
    expect(w.bridge.get('brg_1')).toMatchObject({
      reattestRequestedAt: null,
      lastError: 'attestation API unavailable: HTTP 429',
      // Never sooner than the poll.
      nextAttemptAt: new Date(NOW.getTime() + 2_000),
    });
  });

  it('retries a refused request after the back-off', async () => {
    const w = expired();
    w.attestations.reattestAnswer = { state: 'refused', reason: 'HTTP 404: nonce not found' };
    expect(await w.run(pending)).toEqual({ attested: false, stopPass: false });
    expect(w.bridge.get('brg_1')).toMatchObject({
      reattestRequestedAt: null,
      lastError: 're-attestation refused: HTTP 404: nonce not found',
      nextAttemptAt: new Date(NOW.getTime() + 10_000),
      stalledSince: NOW,
    });
    expect(w.logger.lines).toEqual([
      {
        level: 'warn',
        fields: {
          transferId: 'brg_1',
          paymentId: FORWARDER.paymentId,
          reason: 're-attestation refused: HTTP 404: nonce not found',
        },
        message: 'cross-chain transfer waiting for its re-attestation',
      },
    ]);
  });

  it('refuses an expired transfer without its nonce', async () => {
    const w = expired({ cctpNonce: null });
    await expect(w.run(pending)).rejects.toThrow('bridge transfer brg_1 expired without its nonce');
  });
});
