import { describe, expect, it } from 'vitest';
import { bridgeWorld, NOW } from '../../../test/fakes/bridgeWorld.ts';
import { bridgeTransfer, FORWARDER } from '../../../test/fakes/fakeBridgeChains.ts';
import { mintOnce } from './mintStep.ts';
import type { BridgeTransfer } from './ports.ts';

/**
 * The mint step over in-memory fakes: a message minted already (its nonce used) is recorded, never minted twice;
 * an expired one goes back to be re-attested, from the block it expires at; our mint goes after the home
 * settler's nonces, is broadcast again while unmined, and recorded once final.
 */
const NONCE = `0x${'4'.repeat(64)}`;
const MINT = `0x${'d'.repeat(64)}`;
const ours = {
  relayer: '0x00000000000000000000000000000000000000f1',
  nonce: 3n,
  rawTx: '0xraw3',
  txHash: MINT,
};

function waiting(changes: Partial<BridgeTransfer> = {}) {
  const w = bridgeWorld();
  w.bridge.add(
    bridgeTransfer({
      step: 'mint',
      speed: 'fast',
      burnTxHash: `0x${'b'.repeat(64)}`,
      attestedMessage: '0xattested',
      attestation: '0xsignature',
      cctpNonce: NONCE,
      feeExecutedBaseUnits: 1_000n,
      ...changes,
    }),
  );
  return w;
}

const none = { highestSettlementNonce: undefined };

describe('mintOnce: a transfer waiting for its mint', () => {
  it('is idle with nothing to mint', async () => {
    expect(await mintOnce(bridgeWorld().home, none)).toEqual({ kind: 'idle' });
  });

  it('sends the mint of the attested message after the highest nonce the settler used', async () => {
    const w = waiting();
    w.homeRelayer.chainNonce = 4n;
    const outcome = await mintOnce(w.home, { highestSettlementNonce: 9n });
    expect(outcome).toEqual({ kind: 'in-flight', transferId: 'brg_1', txHash: `0x${'c'.repeat(63)}1` });
    expect(w.homeRelayer.signedCalls).toMatchObject([
      {
        call: { data: JSON.stringify({ attestedMessage: '0xattested', attestation: '0xsignature' }) },
        tx: { nonce: 10n },
      },
    ]);
    expect(w.bridge.get('brg_1')).toMatchObject({
      step: 'mint',
      mintTx: { nonce: 10n },
      mintTxHash: outcome.kind === 'in-flight' && outcome.txHash,
    });
    expect(w.logger.lines).toEqual([
      {
        level: 'info',
        fields: { transferId: 'brg_1', paymentId: FORWARDER.paymentId, txHash: `0x${'c'.repeat(63)}1` },
        message: 'mint sent',
      },
    ]);
  });

  it('records a message whose nonce the home transmitter marks used as minted, without minting it again', async () => {
    const w = waiting();
    w.homeChain.usedNonces.add(NONCE);
    expect(await mintOnce(w.home, none)).toEqual({
      kind: 'minted',
      transferId: 'brg_1',
      mintedBaseUnits: 9_999_000n,
    });
    expect(w.homeRelayer.signedCalls).toEqual([]);
    expect(w.bridge.get('brg_1')).toMatchObject({
      step: 'done',
      mintTxHash: null,
      mintedBaseUnits: 9_999_000n,
      completedAt: NOW,
    });
    expect(w.bridge.bridged.get('pay_1@137')).toBe(9_999_000n);
    expect(w.logger.lines).toEqual([
      {
        level: 'info',
        fields: { transferId: 'brg_1', paymentId: FORWARDER.paymentId, txHash: null, minted: '9999000' },
        message: 'mint final: the payment is flushed on the home chain',
      },
    ]);
  });

  it('mints one base unit when CCTP kept all but one, and refuses a mint of nothing', async () => {
    const one = waiting({ feeExecutedBaseUnits: 9_999_999n });
    one.homeChain.usedNonces.add(NONCE);
    expect(await mintOnce(one.home, none)).toMatchObject({ kind: 'minted', mintedBaseUnits: 1n });
    const nothing = waiting({ feeExecutedBaseUnits: 10_000_000n });
    nothing.homeChain.usedNonces.add(NONCE);
    await expect(mintOnce(nothing.home, none)).rejects.toThrow('bridge transfer brg_1 would mint nothing');
    const noFee = waiting({ feeExecutedBaseUnits: null });
    noFee.homeChain.usedNonces.add(NONCE);
    await expect(mintOnce(noFee.home, none)).rejects.toThrow('bridge transfer brg_1 has no attested fee');
  });

  it('refuses to mint without the attestation', async () => {
    for (const missing of [{ attestedMessage: null }, { attestation: null }, { cctpNonce: null }]) {
      const w = waiting(missing);
      await expect(mintOnce(w.home, none)).rejects.toThrow(
        'bridge transfer brg_1 waits for its mint without its attestation',
      );
    }
  });

  it('sends a message back to be re-attested once the next block is its expiration block, and mints it a block before', async () => {
    const expired = waiting();
    expired.homeChain.expirations.set('0xattested', 100n);
    expired.homeChain.head = 99n;
    expect(await mintOnce(expired.home, none)).toEqual({
      kind: 'expired',
      transferId: 'brg_1',
      expirationBlock: 100n,
    });
    expect(expired.homeRelayer.signedCalls).toEqual([]);
    const reason =
      'the attested message expired at block 100 of chain 137 (at block 99) before its mint: to be re-attested';
    expect(expired.bridge.get('brg_1')).toMatchObject({
      step: 'attest',
      expiredAt: NOW,
      attempts: 1,
      nextAttemptAt: NOW,
      lastError: reason,
      stalledSince: NOW,
    });
    expect(expired.logger.lines).toEqual([
      {
        level: 'warn',
        fields: {
          transferId: 'brg_1',
          paymentId: FORWARDER.paymentId,
          expirationBlock: '100',
          headBlock: '99',
        },
        message: 'attested message expired before its mint: sent back for re-attestation',
      },
    ]);
    const inTime = waiting();
    inTime.homeChain.expirations.set('0xattested', 100n);
    inTime.homeChain.head = 98n;
    expect(await mintOnce(inTime.home, none)).toMatchObject({ kind: 'in-flight' });
  });

  it('mints a message that never expires (expiration block 0) at any height', async () => {
    const w = waiting();
    w.homeChain.head = 10n ** 9n;
    expect(await mintOnce(w.home, none)).toMatchObject({ kind: 'in-flight' });
  });

  it('holds the mint back when it would revert', async () => {
    const w = waiting();
    w.homeRelayer.callEstimate = { ok: false, reason: 'nonce already used' };
    expect(await mintOnce(w.home, none)).toEqual({
      kind: 'setback',
      transferId: 'brg_1',
      reason: 'mint would revert: nonce already used',
    });
    expect(w.bridge.get('brg_1')).toMatchObject({
      attempts: 1,
      nextAttemptAt: new Date(NOW.getTime() + 10_000),
    });
    expect(w.logger.lines.at(-1)).toEqual({
      level: 'warn',
      fields: {
        transferId: 'brg_1',
        paymentId: FORWARDER.paymentId,
        reason: 'mint would revert: nonce already used',
      },
      message: 'mint held up; tried again after its back-off',
    });
  });
});

describe('mintOnce: our mint in flight', () => {
  const inFlight = (changes: Partial<BridgeTransfer> = {}) =>
    waiting({ mintTx: ours, mintTxHash: MINT, ...changes });

  it('waits for its block to be final, and records the mint at that block exactly', async () => {
    const w = inFlight();
    w.homeChain.receipts.set(MINT, { success: true, blockNumber: 50n });
    w.homeChain.finalized = 49n;
    expect(await mintOnce(w.home, none)).toEqual({
      kind: 'awaiting-finality',
      transferId: 'brg_1',
      txHash: MINT,
    });
    expect(w.bridge.get('brg_1').step).toBe('mint');
    w.homeChain.finalized = 50n;
    expect(await mintOnce(w.home, none)).toEqual({
      kind: 'minted',
      transferId: 'brg_1',
      mintedBaseUnits: 9_999_000n,
    });
    expect(w.bridge.get('brg_1')).toMatchObject({ step: 'done', mintTxHash: MINT });
  });

  it('broadcasts our unmined mint again while its nonce is free, up to that nonce itself', async () => {
    for (const chainNonce of [2n, 3n]) {
      const w = inFlight();
      w.homeRelayer.chainNonce = chainNonce;
      expect(await mintOnce(w.home, none)).toEqual({ kind: 'in-flight', transferId: 'brg_1', txHash: MINT });
      expect(w.homeRelayer.broadcasts).toEqual(['0xraw3']);
      expect(w.homeRelayer.signedCalls).toEqual([]);
      expect(w.logger.lines).toEqual([]);
    }
  });

  it('says so when the node refuses the rebroadcast', async () => {
    const w = inFlight();
    w.homeRelayer.broadcastOutcome = { accepted: false, reason: 'underpriced' };
    expect(await mintOnce(w.home, none)).toMatchObject({ kind: 'in-flight' });
    expect(w.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { txHash: MINT, reason: 'underpriced' },
        message: 'mint not accepted by the node',
      },
    ]);
  });

  it('records as minted a mint that reverted because someone minted the message first', async () => {
    const w = inFlight();
    w.homeChain.receipts.set(MINT, { success: false, blockNumber: 50n });
    w.homeChain.usedNonces.add(NONCE);
    expect(await mintOnce(w.home, none)).toMatchObject({ kind: 'minted', mintedBaseUnits: 9_999_000n });
    expect(w.bridge.get('brg_1').mintTxHash).toBeNull();
  });

  it('sends back for re-attestation a mint that reverted past its expiration block', async () => {
    const w = inFlight();
    w.homeChain.receipts.set(MINT, { success: false, blockNumber: 50n });
    w.homeChain.expirations.set('0xattested', 51n);
    w.homeChain.head = 50n;
    expect(await mintOnce(w.home, none)).toEqual({
      kind: 'expired',
      transferId: 'brg_1',
      expirationBlock: 51n,
    });
    expect(w.bridge.get('brg_1')).toMatchObject({ step: 'attest', mintTx: null, mintTxHash: null });
  });

  it('releases a reverted mint, or one whose nonce went elsewhere, to be sent again after its back-off', async () => {
    const reverted = inFlight();
    reverted.homeChain.receipts.set(MINT, { success: false, blockNumber: 50n });
    expect(await mintOnce(reverted.home, none)).toEqual({
      kind: 'setback',
      transferId: 'brg_1',
      reason: `mint ${MINT} reverted`,
    });
    expect(reverted.bridge.get('brg_1')).toMatchObject({
      step: 'mint',
      mintTx: null,
      mintTxHash: null,
      attempts: 1,
    });
    const lost = inFlight();
    lost.homeRelayer.chainNonce = 4n;
    expect(await mintOnce(lost.home, none)).toMatchObject({ reason: `mint ${MINT} is not on the chain` });
    expect(lost.homeRelayer.broadcasts).toEqual([]);
  });

  it('refuses a mint in flight without its signed transaction', async () => {
    const w = inFlight({ mintTx: null });
    await expect(mintOnce(w.home, none)).rejects.toThrow('bridge transfer brg_1 has no mint in flight');
  });
});
