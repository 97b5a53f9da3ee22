import { describe, expect, it } from 'vitest';
import { bridgeWorld, NOW } from '../../../test/fakes/bridgeWorld.ts';
import { bridgeTransfer } from '../../../test/fakes/fakeBridgeChains.ts';
import { sendStepTransaction } from './stepTransaction.ts';

/**
 * A step's transaction: estimated with headroom, refused for want of gas, given a nonce past the chain's count,
 * every nonce this step used and the one other writers used, persisted before its broadcast.
 */
const CALL = { to: '0x00000000000000000000000000000000000000fa', data: '0xdata' };

function world() {
  const w = bridgeWorld();
  w.bridge.add(bridgeTransfer());
  return w;
}

const send = (w: ReturnType<typeof world>, usedNonce?: bigint) =>
  sendStepTransaction(w.source, w.bridge.get('brg_1'), 'burn', CALL, 8453, usedNonce);

describe('sendStepTransaction', () => {
  it('signs the call with 20 % more gas than estimated, rounded up, and persists it before broadcasting', async () => {
    const w = world();
    w.sourceRelayer.callEstimate = { ok: true, gas: 100_001n };
    w.sourceRelayer.chainNonce = 4n;
    let savedBeforeBroadcast = false;
    const broadcast = w.sourceRelayer.broadcast.bind(w.sourceRelayer);
    w.sourceRelayer.broadcast = async (raw) => {
      savedBeforeBroadcast = w.bridge.get('brg_1').burnTx?.rawTx === raw;
      return broadcast(raw);
    };
    const sent = await send(w);
    const tx = {
      relayer: w.sourceRelayer.address,
      nonce: 4n,
      rawTx: `0xcall${'c'.repeat(63)}1`,
      txHash: `0x${'c'.repeat(63)}1`,
    };
    expect(sent).toEqual({ kind: 'sent', tx, broadcast: true });
    expect(w.sourceRelayer.estimatedCalls).toEqual([CALL]);
    expect(w.sourceRelayer.signedCalls).toEqual([
      { call: CALL, tx: { nonce: 4n, gas: 120_002n, fees: w.sourceRelayer.fees } },
    ]);
    expect(savedBeforeBroadcast).toBe(true);
    expect(w.bridge.get('brg_1')).toMatchObject({ burnTx: tx, burnTxHash: tx.txHash, updatedAt: NOW });
  });

  it("is a setback, with the node's reason, when the call would revert", async () => {
    const w = world();
    w.sourceRelayer.callEstimate = { ok: false, reason: 'execution reverted: paused' };
    expect(await send(w)).toEqual({
      kind: 'setback',
      setback: {
        reason: 'burn would revert: execution reverted: paused',
        nextAttemptAt: new Date(NOW.getTime() + 10_000),
        stalled: true,
      },
    });
    expect(w.sourceRelayer.signedCalls).toEqual([]);
  });

  it('sends with a balance of exactly gas × max fee, and not with one wei less', async () => {
    // 100 000 gas estimated: 120 000 with headroom, at 50 wei: 6 000 000 wei.
    const short = world();
    short.sourceRelayer.balanceWei = 5_999_999n;
    expect(await send(short)).toMatchObject({
      kind: 'setback',
      setback: {
        reason: `the relayer ${short.sourceRelayer.address} on chain 8453 lacks gas for the burn`,
        stalled: true,
      },
    });
    expect(short.sourceRelayer.signedCalls).toEqual([]);
    const exact = world();
    exact.sourceRelayer.balanceWei = 6_000_000n;
    expect(await send(exact)).toMatchObject({ kind: 'sent' });
  });

  it("takes the next nonce after the highest this step used when the chain's count lags, else the chain's", async () => {
    const cases: [recorded: bigint | undefined, chain: bigint, expected: bigint][] = [
      [5n, 3n, 6n],
      [5n, 4n, 6n],
      [5n, 5n, 6n],
      [5n, 6n, 6n],
      [5n, 7n, 7n],
      [undefined, 2n, 2n],
    ];
    for (const [recorded, chainNonce, expected] of cases) {
      const w = world();
      if (recorded !== undefined)
        w.bridge.add(
          bridgeTransfer({
            id: 'brg_0',
            step: 'done',
            burnTx: { relayer: '0x1', nonce: recorded, rawTx: '0x', txHash: '0x0' },
          }),
        );
      w.sourceRelayer.chainNonce = chainNonce;
      const sent = await send(w);
      expect(sent.kind === 'sent' && sent.tx.nonce).toBe(expected);
    }
  });

  it("goes past the nonce other writers of the relayer used (the home settler's), whichever is higher", async () => {
    const cases: [recorded: bigint | undefined, used: bigint | undefined, expected: bigint][] = [
      [undefined, 8n, 9n],
      [5n, 8n, 9n],
      [8n, 5n, 9n],
      [8n, 8n, 9n],
      [undefined, undefined, 0n],
    ];
    for (const [recorded, used, expected] of cases) {
      const w = world();
      if (recorded !== undefined)
        w.bridge.add(
          bridgeTransfer({
            id: 'brg_0',
            step: 'done',
            burnTx: { relayer: '0x1', nonce: recorded, rawTx: '0x', txHash: '0x0' },
          }),
        );
      const sent = await send(w, used);
      expect(sent.kind === 'sent' && sent.tx.nonce).toBe(expected);
    }
  });

  it('keeps a transaction the node refused for now, to broadcast again next pass', async () => {
    const w = world();
    w.sourceRelayer.broadcastOutcome = { accepted: false, reason: 'nonce too low' };
    const sent = await send(w);
    expect(sent).toMatchObject({ kind: 'sent', broadcast: false });
    expect(w.bridge.get('brg_1').burnTxHash).toBe(`0x${'c'.repeat(63)}1`);
    expect(w.logger.lines).toEqual([
      {
        level: 'warn',
        fields: {
          transferId: 'brg_1',
          step: 'burn',
          txHash: `0x${'c'.repeat(63)}1`,
          reason: 'nonce too low',
        },
        message: 'bridge transaction refused by the node for now; broadcast again next pass',
      },
    ]);
  });
});
