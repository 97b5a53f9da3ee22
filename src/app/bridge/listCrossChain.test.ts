import { describe, expect, it } from 'vitest';
import { bridgeTransfer } from '../../../test/fakes/fakeBridgeChains.ts';
import { MemoryBridge } from '../../../test/fakes/memoryBridge.ts';
import { listCrossChain } from './listCrossChain.ts';

/** The operator's list of cross-chain transfers still moving (`paylink settlements cross-chain`). */
describe('listCrossChain', () => {
  it('lists the open transfers, oldest first, amounts in USDC and times in ISO 8601', async () => {
    const bridge = new MemoryBridge();
    const at = (ms: number) => new Date(Date.parse('2026-12-01T00:00:00.000Z') + ms);
    bridge.add(bridgeTransfer({ id: 'brg_2', paymentId: 'pay_2', createdAt: at(2) }));
    bridge.add(
      bridgeTransfer({
        id: 'brg_1',
        createdAt: at(1),
        step: 'attest',
        speed: 'fast',
        amountBaseUnits: 12_345_678n,
        maxFeeBaseUnits: 1_234n,
        burnTxHash: '0xburn',
        mintTxHash: '0xmint',
        attempts: 3,
        nextAttemptAt: at(10),
        stalledSince: at(20),
        lastError: 'attestation not ready',
        expiredAt: at(30),
        reattestRequestedAt: at(40),
      }),
    );
    bridge.add(bridgeTransfer({ id: 'brg_0', paymentId: 'pay_0', step: 'done', createdAt: at(0) }));
    const listed = await listCrossChain({ bridge }, 10);
    expect(listed).toEqual([
      {
        transfer_id: 'brg_1',
        payment_id: 'pay_1',
        source_chain_id: 8453,
        home_chain_id: 137,
        step: 'attest',
        amount: '12.345678',
        speed: 'fast',
        max_fee: '0.001234',
        burn_tx_hash: '0xburn',
        mint_tx_hash: '0xmint',
        attempts: 3,
        next_attempt_at: '2026-12-01T00:00:00.010Z',
        stalled_since: '2026-12-01T00:00:00.020Z',
        last_error: 'attestation not ready',
        expired_at: '2026-12-01T00:00:00.030Z',
        reattest_requested_at: '2026-12-01T00:00:00.040Z',
      },
      expect.objectContaining({
        transfer_id: 'brg_2',
        next_attempt_at: null,
        stalled_since: null,
        expired_at: null,
        reattest_requested_at: null,
        burn_tx_hash: null,
      }),
    ]);
    expect(await listCrossChain({ bridge }, 1)).toHaveLength(1);
  });

  it('asks for 1 to 500 transfers', async () => {
    const bridge = new MemoryBridge();
    for (const limit of [0, 501, 1.5, Number.NaN])
      await expect(listCrossChain({ bridge }, limit)).rejects.toThrow(new RangeError('limit must be 1..500'));
    expect(await listCrossChain({ bridge }, 1)).toEqual([]);
    expect(await listCrossChain({ bridge }, 500)).toEqual([]);
  });
});
