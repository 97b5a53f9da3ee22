import { describe, expect, it } from 'vitest';
import { bridgeWorld, SOURCE_OPTIONS } from '../../../test/fakes/bridgeWorld.ts';
import { FORWARDER } from '../../../test/fakes/fakeBridgeChains.ts';
import { testPayment, testTransfer } from '../../../test/fakes/paymentFixture.ts';
import type { TransferRecord } from '../chain/ports.ts';
import { burnOnce } from './burnStep.ts';
import type { FastBurnCandidate } from './ports.ts';

/**
 * The burn step on a fast chain (decision 0037): which payment it burns for, once its transfers are
 * `fastConfirmations` deep and still in the canonical chain, and the terms of the transfer it opens.
 */
const FAST = { ...SOURCE_OPTIONS, speed: 'fast' as const, fastConfirmations: 3 };
const TOKEN = SOURCE_OPTIONS.tokenAddress;

function fastWorld(
  candidates: { n: number; transfers: (p: ReturnType<typeof testPayment>) => TransferRecord[] }[],
) {
  const w = bridgeWorld();
  w.sourceChain.head = 103n;
  w.attestations.fastFee = 1_000n;
  for (const { n, transfers } of candidates) {
    const payment = testPayment(n);
    const forwarder = {
      ...FORWARDER,
      paymentId: payment.id,
      depositAddress: payment.deposit!.depositAddress,
    };
    w.bridge.forwarders.set(payment.id, forwarder);
    const listed = transfers(payment);
    for (const t of listed) w.sourceChain.blockHashes.set(t.blockNumber, t.blockHash);
    w.sourceChain.balances.set(forwarder.depositAddress.toLowerCase(), 10_000_000n);
    w.bridge.fastCandidates.push({
      forwarder,
      payment,
      burntBaseUnits: 0n,
      transfers: listed,
    } as FastBurnCandidate);
  }
  return w;
}

const at =
  (block: number, fields: Partial<TransferRecord> = {}) =>
  (payment: ReturnType<typeof testPayment>) => [
    testTransfer(payment, block, {
      chainId: 8453,
      tokenAddress: TOKEN.toLowerCase(),
      final: false,
      ...fields,
    }),
  ];

describe('burnOnce on a fast chain', () => {
  it("burns a payment whose transfer is exactly fastConfirmations deep, carrying it, at the quote's cap", async () => {
    const w = fastWorld([{ n: 1, transfers: at(100) }]);
    const outcome = await burnOnce(w.source, FAST);
    expect(w.bridge.asked.fastBurnCandidates).toEqual([
      { sourceChainId: 8453, tokenAddress: TOKEN, deepestBlock: 100n, limit: 50 },
    ]);
    expect(w.bridge.asked.burnCandidates).toEqual([]);
    if (outcome.kind !== 'sent') throw new Error(`sent, not ${outcome.kind}`);
    expect(w.bridge.get(outcome.transferId)).toMatchObject({
      paymentId: testPayment(1).id,
      amountBaseUnits: 10_000_000n,
      speed: 'fast',
      minFinalityThreshold: 1000,
      maxFeeBaseUnits: 1_000n,
      quotedMaxFeeBaseUnits: 10_000n,
    });
    const carried = w.bridge.fastCandidates[0]?.transfers[0]?.id ?? '';
    expect(w.bridge.carried.get(carried)).toBe(outcome.transferId);
  });

  it('waits for a transfer one block short of its confirmations', async () => {
    const w = fastWorld([{ n: 1, transfers: at(101) }]);
    expect(await burnOnce(w.source, FAST)).toEqual({ kind: 'idle' });
    expect(w.bridge.transfers.size).toBe(0);
  });

  it('asks for nothing while the chain is shorter than the confirmations, and from block 0 once it is as long', async () => {
    const w = fastWorld([{ n: 1, transfers: at(0) }]);
    w.sourceChain.head = 2n;
    expect(await burnOnce(w.source, FAST)).toEqual({ kind: 'idle' });
    expect(w.bridge.asked.fastBurnCandidates).toEqual([]);
    w.sourceChain.head = 3n;
    expect(await burnOnce(w.source, FAST)).toMatchObject({ kind: 'sent' });
    expect(w.bridge.asked.fastBurnCandidates).toMatchObject([{ deepestBlock: 0n }]);
  });

  it('burns nothing while a carried transfer is no longer in the canonical chain (a reorg not seen yet)', async () => {
    const w = fastWorld([{ n: 1, transfers: at(100) }]);
    w.sourceChain.blockHashes.set(100n, `0x${'9'.repeat(64)}`);
    expect(await burnOnce(w.source, FAST)).toEqual({ kind: 'idle' });
    w.sourceChain.blockHashes.delete(100n);
    expect(await burnOnce(w.source, FAST)).toEqual({ kind: 'idle' });
    expect(w.bridge.transfers.size).toBe(0);
  });

  it("compares the canonical block's hash in any case", async () => {
    const w = fastWorld([{ n: 1, transfers: at(100, { blockHash: `0x${'AB'.repeat(32)}` }) }]);
    w.sourceChain.blockHashes.set(100n, `0x${'ab'.repeat(32)}`);
    expect(await burnOnce(w.source, FAST)).toMatchObject({ kind: 'sent' });
  });

  it('checks only the transfers the burn carries: one carried already may have left the chain', async () => {
    const w = fastWorld([
      {
        n: 1,
        transfers: (p) => [
          ...at(90, { carriedHome: 'under-way', amountBaseUnits: 5_000_000n })(p),
          ...at(95, { amountBaseUnits: 5_000_000n })(p),
        ],
      },
    ]);
    (w.bridge.fastCandidates[0] as { burntBaseUnits: bigint }).burntBaseUnits = 5_000_000n;
    w.sourceChain.blockHashes.set(90n, `0x${'9'.repeat(64)}`);
    expect(await burnOnce(w.source, FAST)).toMatchObject({ kind: 'sent' });
  });

  it('passes over a payment not due yet to the next one', async () => {
    const w = fastWorld([
      { n: 1, transfers: at(101) },
      { n: 2, transfers: at(99) },
    ]);
    const outcome = await burnOnce(w.source, FAST);
    if (outcome.kind !== 'sent') throw new Error(`sent, not ${outcome.kind}`);
    expect(w.bridge.get(outcome.transferId).paymentId).toBe(testPayment(2).id);
  });

  it("quotes a burn found on chain at the quote's cap of its own amount", async () => {
    const w = fastWorld([{ n: 1, transfers: at(100) }]);
    w.bridge.firstBlocks.clear();
    w.sourceChain.burns.set(testPayment(1).deposit!.depositAddress.toLowerCase(), [
      {
        txHash: '0xfeed',
        blockNumber: 100n,
        amountBaseUnits: 4_000_000n,
        maxFeeBaseUnits: 4n,
        minFinalityThreshold: 1000,
      },
    ]);
    const outcome = await burnOnce(w.source, FAST);
    if (outcome.kind !== 'found') throw new Error(`found, not ${outcome.kind}`);
    expect(w.bridge.get(outcome.transferId)).toMatchObject({ quotedMaxFeeBaseUnits: 4_000n, speed: 'fast' });
  });
});
