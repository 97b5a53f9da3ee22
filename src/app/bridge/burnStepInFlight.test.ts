import { describe, expect, it } from 'vitest';
import { bridgeWorld, NOW, SOURCE_OPTIONS } from '../../../test/fakes/bridgeWorld.ts';
import { bridgeTransfer, FORWARDER } from '../../../test/fakes/fakeBridgeChains.ts';
import { burnOnce } from './burnStep.ts';
import type { BridgeTransfer } from './ports.ts';

/**
 * The burn in flight (burnStep.ts `advanceBurn`) over in-memory fakes: recorded once final (a standard burn at
 * its chain's finality, a fast one once mined), broadcast again while its nonce is free, released when it
 * reverted or its nonce went elsewhere.
 */
const HASH = `0x${'b'.repeat(64)}`;
const ours = {
  relayer: '0x00000000000000000000000000000000000000f1',
  nonce: 7n,
  rawTx: '0xraw7',
  txHash: HASH,
};

function inFlight(changes: Partial<BridgeTransfer> = {}) {
  const w = bridgeWorld();
  w.bridge.add(bridgeTransfer({ burnTx: ours, burnTxHash: HASH, ...changes }));
  return w;
}

describe('burnOnce: the burn in flight', () => {
  it('waits for a standard burn mined above the finalized block, and records it at that block exactly', async () => {
    const w = inFlight();
    w.sourceChain.receipts.set(HASH, { success: true, blockNumber: 200n, message: '0xmessage' });
    w.sourceChain.finalized = 199n;
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({
      kind: 'in-flight',
      transferId: 'brg_1',
      txHash: HASH,
    });
    expect(w.bridge.get('brg_1').step).toBe('burn');
    w.sourceChain.finalized = 200n;
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({
      kind: 'burnt',
      transferId: 'brg_1',
      txHash: HASH,
    });
    expect(w.bridge.get('brg_1')).toMatchObject({
      step: 'attest',
      burnTxHash: HASH,
      burnBlockNumber: 200n,
      message: '0xmessage',
    });
    expect(w.bridge.burnt.get('pay_1@8453')).toBe(10_000_000n);
    expect(w.logger.lines).toEqual([
      {
        level: 'info',
        fields: { transferId: 'brg_1', paymentId: FORWARDER.paymentId, txHash: HASH },
        message: 'burn final',
      },
    ]);
  });

  it('records a fast burn once mined, before its block is final', async () => {
    const w = inFlight({ speed: 'fast', minFinalityThreshold: 1000 });
    w.sourceChain.receipts.set(HASH, { success: true, blockNumber: 200n, message: '0xm' });
    w.sourceChain.finalized = 100n;
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toMatchObject({ kind: 'burnt' });
  });

  it('broadcasts our unmined burn again while its nonce is still free, up to that nonce itself', async () => {
    for (const chainNonce of [6n, 7n]) {
      const w = inFlight();
      w.sourceRelayer.chainNonce = chainNonce;
      expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({
        kind: 'in-flight',
        transferId: 'brg_1',
        txHash: HASH,
      });
      expect(w.sourceRelayer.broadcasts).toEqual(['0xraw7']);
      expect(w.bridge.get('brg_1').burnTx).toEqual(ours);
      expect(w.logger.lines).toEqual([]);
    }
  });

  it('says so when the node refuses the rebroadcast, and keeps the burn in flight', async () => {
    const w = inFlight();
    w.sourceRelayer.broadcastOutcome = { accepted: false, reason: 'txpool full' };
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toMatchObject({ kind: 'in-flight' });
    expect(w.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { txHash: HASH, reason: 'txpool full' },
        message: 'burn not accepted by the node',
      },
    ]);
  });

  it('releases a burn whose nonce went to another transaction: not on the chain, tried again after its back-off', async () => {
    const w = inFlight({ attempts: 1 });
    w.sourceRelayer.chainNonce = 8n;
    const outcome = await burnOnce(w.source, SOURCE_OPTIONS);
    expect(outcome).toEqual({
      kind: 'setback',
      transferId: 'brg_1',
      reason: `burn ${HASH} is not on the chain`,
    });
    expect(w.sourceRelayer.broadcasts).toEqual([]);
    expect(w.bridge.get('brg_1')).toMatchObject({
      burnTx: null,
      burnTxHash: null,
      attempts: 2,
      lastError: `burn ${HASH} is not on the chain`,
      // The second failure waits the back-off's second step: 20 s.
      nextAttemptAt: new Date(NOW.getTime() + 20_000),
      stalledSince: NOW,
    });
    expect(w.bridge.payoutHolds.get('pay_1')).toEqual({
      since: NOW,
      reason: `burn ${HASH} is not on the chain`,
    });
  });

  it('releases a reverted burn, whatever its nonce', async () => {
    const w = inFlight();
    w.sourceChain.receipts.set(HASH, { success: false, blockNumber: 200n, message: null });
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({
      kind: 'setback',
      transferId: 'brg_1',
      reason: `burn ${HASH} reverted`,
    });
    expect(w.sourceRelayer.broadcasts).toEqual([]);
    expect(w.bridge.get('brg_1').burnTxHash).toBeNull();
  });

  it('releases a burn found on chain (not ours) that left it, without broadcasting anything', async () => {
    const w = inFlight({ burnTx: null });
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toMatchObject({
      kind: 'setback',
      reason: `burn ${HASH} is not on the chain`,
    });
    expect(w.sourceRelayer.broadcasts).toEqual([]);
  });

  it('moves the burn in flight on before any due transfer or candidate', async () => {
    const w = inFlight({ createdAt: new Date(NOW.getTime() - 1) });
    w.bridge.add(bridgeTransfer({ id: 'brg_2', paymentId: 'pay_2', createdAt: new Date(NOW.getTime() - 2) }));
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toMatchObject({
      kind: 'in-flight',
      transferId: 'brg_1',
    });
    expect(w.sourceRelayer.signedCalls).toEqual([]);
  });
});
