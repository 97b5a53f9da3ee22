import { describe, expect, it } from 'vitest';
import { bridgeWorld, NOW, SOURCE_OPTIONS } from '../../../test/fakes/bridgeWorld.ts';
import { bridgeTransfer, FORWARDER } from '../../../test/fakes/fakeBridgeChains.ts';
import { burnOnce } from './burnStep.ts';
import type { BurnCandidate } from './ports.ts';

/**
 * The burn step over in-memory fakes of its ports (test/fakes/memoryBridge.ts, fakeBridgeChains.ts): which money
 * is burnt, with which terms, and what a burn found on chain or refused by the fee bound does. The burn in flight
 * is burnStepInFlight.test.ts's; the real chains and store are test/bridge/bridgeSettlement.test.ts's.
 */
const DEPOSIT = FORWARDER.depositAddress.toLowerCase();

function candidate(changes: Partial<BurnCandidate> = {}): BurnCandidate {
  return {
    ...FORWARDER,
    sourceChainId: 8453,
    tokenAddress: SOURCE_OPTIONS.tokenAddress,
    unburntBaseUnits: 5_000_000n,
    firstTransferBlock: 100n,
    ...changes,
  };
}

function worldWith(found: BurnCandidate) {
  const w = bridgeWorld();
  w.bridge.candidates.push(found);
  w.sourceChain.balances.set(DEPOSIT, found.unburntBaseUnits);
  w.bridge.firstBlocks.set(`${found.paymentId}@8453`, found.firstTransferBlock);
  return w;
}

describe('burnOnce: a new burn', () => {
  it('is idle with nothing to burn, having recorded the relayer balance', async () => {
    const w = bridgeWorld();
    w.sourceRelayer.balanceWei = 123n;
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({ kind: 'idle' });
    expect(w.readings).toEqual([
      {
        chainId: 8453,
        address: w.sourceRelayer.address,
        balanceWei: 123n,
        lowBalanceWei: SOURCE_OPTIONS.relayerLowBalanceWei,
        observedAt: NOW,
      },
    ]);
    expect(w.bridge.asked.burnCandidates).toEqual([
      {
        sourceChainId: 8453,
        tokenAddress: SOURCE_OPTIONS.tokenAddress,
        dustThresholdBaseUnits: 1_000_000n,
        limit: 1,
      },
    ]);
  });

  it('burns a balance of exactly the dust threshold, and leaves one a base unit below it', async () => {
    const below = worldWith(candidate({ unburntBaseUnits: 999_999n }));
    expect(await burnOnce(below.source, SOURCE_OPTIONS)).toEqual({ kind: 'idle' });
    expect(below.bridge.transfers.size).toBe(0);
    const at = worldWith(candidate({ unburntBaseUnits: 1_000_000n }));
    expect(await burnOnce(at.source, SOURCE_OPTIONS)).toMatchObject({ kind: 'sent' });
  });

  it('opens a standard transfer of the unburnt amount and sends its burn at the minimum fee', async () => {
    const w = worldWith(candidate());
    w.sourceChain.minimumFee = 500n;
    const outcome = await burnOnce(w.source, SOURCE_OPTIONS);
    expect(outcome).toMatchObject({ kind: 'sent', txHash: `0x${'c'.repeat(63)}1` });
    if (outcome.kind !== 'sent') throw new Error('sent');
    expect(outcome.transferId).toMatch(/^brg_[0-9A-Za-z]{22}$/);
    expect(w.bridge.get(outcome.transferId)).toMatchObject({
      paymentId: FORWARDER.paymentId,
      sourceChainId: 8453,
      sourceDomain: 6,
      homeChainId: 137,
      tokenAddress: SOURCE_OPTIONS.tokenAddress,
      depositAddress: FORWARDER.depositAddress,
      amountBaseUnits: 5_000_000n,
      speed: 'standard',
      maxFeeBaseUnits: 500n,
      quotedMaxFeeBaseUnits: 0n,
      minFinalityThreshold: 2000,
      step: 'burn',
      burnTx: { relayer: w.sourceRelayer.address, nonce: 0n, txHash: `0x${'c'.repeat(63)}1` },
      burnTxHash: `0x${'c'.repeat(63)}1`,
      attempts: 0,
      createdAt: NOW,
      updatedAt: NOW,
      completedAt: null,
    });
    expect(w.sourceRelayer.signedCalls.map((s) => JSON.parse(s.call.data))).toEqual([
      { burn: FORWARDER.depositAddress, amount: '5000000', maxFee: '500', minFinalityThreshold: 2000 },
    ]);
    expect(w.sourceRelayer.signedCalls[0]?.call.to).toBe(FORWARDER.factoryAddress);
    expect(w.sourceRelayer.broadcasts).toEqual([`0xcall${'c'.repeat(63)}1`]);
    // The chain was asked for burns of the forwarder since its first final transfer, before the transfer was
    // opened and again before its burn was sent.
    expect(w.sourceChain.burnsAsked).toEqual([
      { forwarder: FORWARDER.depositAddress, fromBlock: 100n },
      { forwarder: FORWARDER.depositAddress, fromBlock: 100n },
    ]);
    expect(w.logger.lines).toContainEqual({
      level: 'info',
      fields: { transferId: outcome.transferId, paymentId: FORWARDER.paymentId, txHash: outcome.txHash },
      message: 'burn sent',
    });
  });

  it('keeps a fee bound of 0 as it is (nothing rebound) when the messenger asks no fee', async () => {
    const w = worldWith(candidate());
    let rebound = 0;
    const rebind = w.bridge.rebindBurnFee.bind(w.bridge);
    w.bridge.rebindBurnFee = async (...args) => {
      rebound++;
      return rebind(...args);
    };
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toMatchObject({ kind: 'sent' });
    expect(rebound).toBe(0);
  });

  it("sends a fast transfer's burn at Circle's fast fee, with the fast threshold", async () => {
    const w = bridgeWorld();
    w.attestations.fastFee = 1_000n;
    w.bridge.add(bridgeTransfer({ speed: 'fast', minFinalityThreshold: 1000 }));
    expect(await burnOnce(w.source, { ...SOURCE_OPTIONS, speed: 'fast' })).toMatchObject({
      kind: 'sent',
      transferId: 'brg_1',
    });
    expect(JSON.parse(w.sourceRelayer.signedCalls[0]?.call.data ?? '{}')).toMatchObject({
      maxFee: '1000',
      minFinalityThreshold: 1000,
    });
    expect(w.bridge.get('brg_1').maxFeeBaseUnits).toBe(1_000n);
  });

  it('burns a forwarder holding exactly what its transfers brought, and not one holding a unit less', async () => {
    const short = worldWith(candidate());
    short.sourceChain.balances.set(DEPOSIT, 4_999_999n);
    expect(await burnOnce(short.source, SOURCE_OPTIONS)).toEqual({ kind: 'idle' });
    expect(short.bridge.transfers.size).toBe(0);
    expect(short.logger.lines).toEqual([
      {
        level: 'error',
        fields: { paymentId: FORWARDER.paymentId, held: '4999999', owed: '5000000' },
        message:
          'the forwarder holds less than its final transfers brought and no burn explains it; not burnt',
      },
    ]);
    const exact = worldWith(candidate());
    expect(await burnOnce(exact.source, SOURCE_OPTIONS)).toMatchObject({ kind: 'sent' });
  });

  it('is idle when another burn already carries the candidate (open refused)', async () => {
    const w = worldWith(candidate({ carries: ['t1'] }));
    w.bridge.carried.set('t1', 'brg_other');
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({ kind: 'idle' });
    expect(w.sourceRelayer.signedCalls).toEqual([]);
  });

  it('holds a burn whose minimum fee is above the cap, and sends one exactly at it', async () => {
    // 5 USDC at 10 bp: a cap of 5 000 base units.
    const over = worldWith(candidate());
    over.sourceChain.minimumFee = 5_001n;
    const held = await burnOnce(over.source, SOURCE_OPTIONS);
    expect(held).toMatchObject({
      kind: 'setback',
      reason: expect.stringContaining('above the cap of 0.005 USDC'),
    });
    if (held.kind !== 'setback') throw new Error('setback');
    expect(over.bridge.get(held.transferId)).toMatchObject({
      attempts: 1,
      nextAttemptAt: new Date(NOW.getTime() + 10_000),
      stalledSince: NOW,
      burnTx: null,
    });
    expect(over.sourceRelayer.signedCalls).toEqual([]);
    expect(over.logger.lines.at(-1)).toEqual({
      level: 'warn',
      fields: { transferId: held.transferId, paymentId: FORWARDER.paymentId, reason: held.reason },
      message: 'burn held up; tried again after its back-off',
    });
    const at = worldWith(candidate());
    at.sourceChain.minimumFee = 5_000n;
    const sent = await burnOnce(at.source, SOURCE_OPTIONS);
    if (sent.kind !== 'sent') throw new Error(`sent, not ${sent.kind}`);
    expect(at.bridge.get(sent.transferId).maxFeeBaseUnits).toBe(5_000n);
  });
});

describe('burnOnce: a burn found on chain', () => {
  const onChain = (minFinalityThreshold: number) => ({
    txHash: `0x${'AB'.repeat(32)}`,
    blockNumber: 120n,
    amountBaseUnits: 4_000_000n,
    maxFeeBaseUnits: 300n,
    minFinalityThreshold,
  });

  it('follows a burn of the forwarder not in our records as ours, with its own terms', async () => {
    for (const [threshold, speed] of [
      [1000, 'fast'],
      [1001, 'standard'],
    ] as const) {
      const w = worldWith(candidate());
      w.sourceChain.burns.set(DEPOSIT, [onChain(threshold)]);
      const outcome = await burnOnce(w.source, SOURCE_OPTIONS);
      expect(outcome).toMatchObject({ kind: 'found', txHash: `0x${'AB'.repeat(32)}` });
      if (outcome.kind !== 'found') throw new Error('found');
      expect(w.bridge.get(outcome.transferId)).toMatchObject({
        amountBaseUnits: 4_000_000n,
        maxFeeBaseUnits: 300n,
        quotedMaxFeeBaseUnits: 0n,
        minFinalityThreshold: threshold,
        speed,
        burnTxHash: `0x${'ab'.repeat(32)}`,
        burnTx: null,
      });
      expect(w.sourceRelayer.signedCalls).toEqual([]);
      expect(w.logger.lines).toEqual([
        {
          level: 'warn',
          fields: {
            transferId: outcome.transferId,
            paymentId: FORWARDER.paymentId,
            txHash: onChain(1).txHash,
          },
          message: 'a burn of this forwarder was found on chain, not in our records: it is followed as ours',
        },
      ]);
    }
  });

  it('ignores burns already recorded, in any case, and those before the first transfer', async () => {
    const w = worldWith(candidate());
    w.bridge.add(bridgeTransfer({ id: 'brg_0', step: 'done', burnTxHash: `0x${'ab'.repeat(32)}` }));
    w.sourceChain.burns.set(DEPOSIT, [onChain(2000), { ...onChain(2000), txHash: '0x99', blockNumber: 99n }]);
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toMatchObject({ kind: 'sent' });
  });

  it('is idle when the found burn cannot be opened (another transfer is open)', async () => {
    const w = worldWith(candidate());
    w.sourceChain.burns.set(DEPOSIT, [onChain(2000)]);
    const open = w.bridge.open.bind(w.bridge);
    w.bridge.open = async () => false;
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({ kind: 'idle' });
    w.bridge.open = open;
    expect(w.logger.lines).toEqual([]);
  });
});

describe('burnOnce: a transfer due again', () => {
  it('retries the burn of a transfer whose last one failed, before any new candidate', async () => {
    const w = worldWith(candidate({ paymentId: 'pay_other' }));
    w.bridge.firstBlocks.set('pay_1@8453', 90n);
    w.bridge.add(bridgeTransfer({ attempts: 2, nextAttemptAt: NOW }));
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toMatchObject({ kind: 'sent', transferId: 'brg_1' });
    expect(w.sourceChain.burnsAsked).toEqual([{ forwarder: FORWARDER.depositAddress, fromBlock: 90n }]);
  });

  it('waits for a transfer not due yet (a millisecond early) and opens nothing new while it is open', async () => {
    const w = worldWith(candidate());
    w.bridge.add(bridgeTransfer({ nextAttemptAt: new Date(NOW.getTime() + 1) }));
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({ kind: 'idle' });
  });

  it('adopts a burn found on chain for a transfer due again, instead of burning twice', async () => {
    const w = bridgeWorld();
    w.bridge.firstBlocks.set('pay_1@8453', 90n);
    w.bridge.add(bridgeTransfer({ nextAttemptAt: NOW }));
    w.sourceChain.burns.set(DEPOSIT, [
      {
        txHash: '0xFEED',
        blockNumber: 95n,
        amountBaseUnits: 9n,
        maxFeeBaseUnits: 1n,
        minFinalityThreshold: 1000,
      },
    ]);
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({
      kind: 'found',
      transferId: 'brg_1',
      txHash: '0xFEED',
    });
    expect(w.bridge.get('brg_1')).toMatchObject({
      burnTx: null,
      burnTxHash: '0xfeed',
      amountBaseUnits: 9n,
      maxFeeBaseUnits: 1n,
      minFinalityThreshold: 1000,
    });
    expect(w.sourceRelayer.signedCalls).toEqual([]);
  });

  it('looks for no burn on chain when the payment has no final transfer there', async () => {
    const w = bridgeWorld();
    w.bridge.add(bridgeTransfer());
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toMatchObject({ kind: 'sent' });
    expect(w.sourceChain.burnsAsked).toEqual([]);
  });

  it('holds the burn back when it would revert, with nothing in flight', async () => {
    const w = bridgeWorld();
    w.bridge.add(bridgeTransfer());
    w.sourceRelayer.callEstimate = { ok: false, reason: 'execution reverted' };
    expect(await burnOnce(w.source, SOURCE_OPTIONS)).toEqual({
      kind: 'setback',
      transferId: 'brg_1',
      reason: 'burn would revert: execution reverted',
    });
    expect(w.bridge.get('brg_1')).toMatchObject({
      burnTx: null,
      attempts: 1,
      lastError: 'burn would revert: execution reverted',
    });
  });

  it('refuses to burn for a payment without a forwarder', async () => {
    const w = bridgeWorld();
    w.bridge.forwarders.clear();
    w.bridge.add(bridgeTransfer());
    await expect(burnOnce(w.source, SOURCE_OPTIONS)).rejects.toThrow(
      'bridge transfer brg_1 has no payment forwarder',
    );
  });
});
