import { describe, expect, it } from 'vitest';
import { bridgeWorld, NOW, SOURCE_OPTIONS } from '../../../test/fakes/bridgeWorld.ts';
import { bridgeTransfer, FORWARDER } from '../../../test/fakes/fakeBridgeChains.ts';
import { attestOnce } from './attestStep.ts';
import type { AttestationLookup, BridgeTransfer } from './ports.ts';

/**
 * The attest step over in-memory fakes: a complete attestation within the fee bound moves the transfer to its
 * mint (one outside it is refused), one not ready is asked again after a growing poll, and the API's own wait
 * (HTTP 429) stops every lookup of the pass. Expired transfers are reattestStep.test.ts's.
 */
const complete = (fee: bigint): AttestationLookup => ({
  state: 'complete',
  message: '0xattested',
  attestation: '0xsignature',
  cctpNonce: `0x${'4A'.repeat(32)}`,
  feeExecutedBaseUnits: fee,
});

function attesting(...transfers: Partial<BridgeTransfer>[]) {
  const w = bridgeWorld();
  for (const [i, changes] of transfers.entries()) {
    w.bridge.add(
      bridgeTransfer({
        id: `brg_${i + 1}`,
        paymentId: `pay_${i + 1}`,
        step: 'attest',
        burnTxHash: `0x${(i + 1).toString().repeat(64)}`,
        maxFeeBaseUnits: 1_000n,
        createdAt: new Date(NOW.getTime() - 60_000 + i),
        ...changes,
      }),
    );
  }
  return w;
}

describe('attestOnce', () => {
  it('asks Iris about each due burn and records a complete attestation, on to its mint', async () => {
    const w = attesting({});
    w.attestations.answers.set(`0x${'1'.repeat(64)}`, complete(1_000n));
    expect(await attestOnce(w.source, SOURCE_OPTIONS)).toEqual({ attested: ['brg_1'], waiting: [] });
    expect(w.attestations.lookups).toEqual([
      {
        sourceDomain: 6,
        burnTxHash: `0x${'1'.repeat(64)}`,
        mintRecipient: FORWARDER.depositAddress,
        amountBaseUnits: 10_000_000n,
      },
    ]);
    expect(w.bridge.get('brg_1')).toMatchObject({
      step: 'mint',
      attestedMessage: '0xattested',
      attestation: '0xsignature',
      cctpNonce: `0x${'4a'.repeat(32)}`,
      feeExecutedBaseUnits: 1_000n,
    });
  });

  it('accepts a fee of 0 up to exactly the bound, and refuses one a base unit above it or below 0', async () => {
    const zero = attesting({});
    zero.attestations.answers.set(`0x${'1'.repeat(64)}`, complete(0n));
    expect(await attestOnce(zero.source, SOURCE_OPTIONS)).toMatchObject({ attested: ['brg_1'] });
    for (const fee of [1_001n, -1n]) {
      const w = attesting({});
      w.attestations.answers.set(`0x${'1'.repeat(64)}`, complete(fee));
      await expect(attestOnce(w.source, SOURCE_OPTIONS)).rejects.toThrow(
        'attested fee of brg_1 outside its bound 1000',
      );
      expect(w.bridge.get('brg_1').step).toBe('attest');
    }
  });

  it('polls a burn not attested yet again after a doubling wait, a stall only from the expected time on', async () => {
    const expected = SOURCE_OPTIONS.attestationExpectedMs;
    const w = attesting(
      { createdAt: new Date(NOW.getTime() - expected + 1), attempts: 2 },
      { createdAt: new Date(NOW.getTime() - expected) },
    );
    expect(await attestOnce(w.source, SOURCE_OPTIONS)).toEqual({ attested: [], waiting: ['brg_2', 'brg_1'] });
    expect(w.bridge.get('brg_1')).toMatchObject({
      attempts: 3,
      lastError: 'attestation not ready: not signed yet',
      nextAttemptAt: new Date(NOW.getTime() + 8_000),
      stalledSince: null,
    });
    expect(w.bridge.get('brg_2')).toMatchObject({
      attempts: 1,
      nextAttemptAt: new Date(NOW.getTime() + 2_000),
      stalledSince: NOW,
    });
    expect(w.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { transferId: 'brg_2', paymentId: 'pay_2', reason: 'attestation not ready: not signed yet' },
        message: 'cross-chain transfer waiting for its attestation',
      },
    ]);
  });

  it('asks a fast burn on time again one poll after the pass began, never doubled; a 429 counts from its answer', async () => {
    const w = attesting(
      { speed: 'fast', attempts: 3 },
      { speed: 'standard', attempts: 2 },
      {
        speed: 'fast',
        createdAt: new Date(NOW.getTime() - SOURCE_OPTIONS.attestationExpectedMs),
        attempts: 3,
      },
    );
    // Iris takes 300 ms to answer each lookup: the pass's next ask must not slip by that.
    const lookup = w.attestations.lookup.bind(w.attestations);
    w.attestations.lookup = async (burn) => {
      w.time.now = new Date(w.time.now.getTime() + 300);
      return lookup(burn);
    };
    await attestOnce(w.source, SOURCE_OPTIONS);
    expect(w.bridge.get('brg_1').nextAttemptAt).toEqual(new Date(NOW.getTime() + 2_000));
    expect(w.bridge.get('brg_2').nextAttemptAt).toEqual(new Date(NOW.getTime() + 8_000));
    // Late: it backs off like any other (2 s doubled three times).
    expect(w.bridge.get('brg_3').nextAttemptAt).toEqual(new Date(NOW.getTime() + 16_000));

    const limited = attesting({ speed: 'fast' });
    limited.attestations.answers.set(`0x${'1'.repeat(64)}`, {
      state: 'unavailable',
      reason: 'HTTP 429',
      retryAfterMs: 300_000,
    });
    const ask = limited.attestations.lookup.bind(limited.attestations);
    limited.attestations.lookup = async (burn) => {
      limited.time.now = new Date(limited.time.now.getTime() + 300);
      return ask(burn);
    };
    await attestOnce(limited.source, SOURCE_OPTIONS);
    expect(limited.bridge.get('brg_1').nextAttemptAt).toEqual(new Date(NOW.getTime() + 300 + 300_000));
  });

  it("honours the API's 429 wait and asks about no other burn in that pass", async () => {
    const w = attesting({}, {});
    w.attestations.answers.set(`0x${'1'.repeat(64)}`, {
      state: 'unavailable',
      reason: 'HTTP 429',
      retryAfterMs: 300_000,
    });
    expect(await attestOnce(w.source, SOURCE_OPTIONS)).toEqual({ attested: [], waiting: ['brg_1'] });
    expect(w.attestations.lookups).toHaveLength(1);
    expect(w.bridge.get('brg_1')).toMatchObject({
      lastError: 'attestation API unavailable: HTTP 429',
      nextAttemptAt: new Date(NOW.getTime() + 300_000),
      // An API unreachable is a stall at once.
      stalledSince: NOW,
    });
  });

  it('goes on to the next burn when the API is unreachable without asking to wait', async () => {
    const w = attesting({}, {});
    w.attestations.answers.set(`0x${'1'.repeat(64)}`, {
      state: 'unavailable',
      reason: 'HTTP 503',
      retryAfterMs: null,
    });
    w.attestations.answers.set(`0x${'2'.repeat(64)}`, complete(5n));
    expect(await attestOnce(w.source, SOURCE_OPTIONS)).toEqual({ attested: ['brg_2'], waiting: ['brg_1'] });
    expect(w.bridge.get('brg_1')).toMatchObject({
      nextAttemptAt: new Date(NOW.getTime() + 2_000),
      stalledSince: NOW,
    });
  });

  it('asks about at most 20 burns a pass, and only those due', async () => {
    const w = attesting(...Array.from({ length: 21 }, () => ({})), {
      nextAttemptAt: new Date(NOW.getTime() + 1),
    });
    const outcome = await attestOnce(w.source, SOURCE_OPTIONS);
    expect(outcome.waiting).toHaveLength(20);
    expect(w.attestations.lookups).toHaveLength(20);
  });

  it('refuses a transfer waiting for its attestation without a burn', async () => {
    const w = attesting({ burnTxHash: null });
    await expect(attestOnce(w.source, SOURCE_OPTIONS)).rejects.toThrow('bridge transfer brg_1 has no burn');
  });

  it('re-attests an expired transfer instead, and stops the pass when the API asks to wait', async () => {
    const w = attesting(
      { expiredAt: NOW, attestedMessage: '0xold', cctpNonce: '0xn1' },
      { expiredAt: NOW, attestedMessage: '0xold', cctpNonce: '0xn2' },
      {},
    );
    w.attestations.answers.set(`0x${'1'.repeat(64)}`, complete(0n));
    w.attestations.reattestAnswer = { state: 'unavailable', reason: 'HTTP 429', retryAfterMs: 60_000 };
    expect(await attestOnce(w.source, SOURCE_OPTIONS)).toEqual({ attested: ['brg_1'], waiting: ['brg_2'] });
    expect(w.attestations.reattests).toEqual(['0xn2']);
    expect(w.attestations.lookups).toHaveLength(2);
  });

  it('goes on after an expired transfer that needs no wait', async () => {
    const w = attesting({ expiredAt: NOW, attestedMessage: '0xold', cctpNonce: '0xn1' }, {});
    expect(await attestOnce(w.source, SOURCE_OPTIONS)).toEqual({ attested: [], waiting: ['brg_1', 'brg_2'] });
    expect(w.attestations.reattests).toEqual(['0xn1']);
  });
});
