import { describe, expect, it } from 'vitest';
import {
  NOW,
  P1,
  receipt,
  relayerTx,
  SENT_AT,
  settlement,
  setUp,
} from '../../../test/fakes/inFlightSettlement.ts';
import { CHAIN_ID } from '../../../test/fakes/paymentFixture.ts';

describe('a settlement not mined', () => {
  it('is dropped when the account’s nonce went past it, without a failure on its payments', async () => {
    const s = setUp();
    s.relayer.chainNonce = 8n;
    expect(await s.advance()).toEqual({ kind: 'dropped', settlementId: 'stl_1' });
    expect(s.settlements.settlement('stl_1')).toMatchObject({
      status: 'failed',
      failureReason: 'nonce 7 was used by a transaction that is not ours',
      completedAt: NOW,
    });
    expect(s.settlements.payment(P1.id).payout.failures).toBe(0);
    expect(s.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { settlementId: 'stl_1', nonce: '7', chainNonce: '8' },
        message: 'settlement dropped; its payments are released',
      },
    ]);
  });

  it('waits while the account’s nonce is still its own', async () => {
    const s = setUp();
    s.relayer.chainNonce = 7n;
    expect(await s.advance({ stuckAfterMs: 600_000 })).toEqual({
      kind: 'awaiting-receipt',
      settlementId: 'stl_1',
      txHash: relayerTx(1).txHash,
    });
    expect(s.settlements.settlement('stl_1').status).toBe('pending');
  });

  it('is applied, not dropped, when its own transaction took the nonce', async () => {
    const s = setUp();
    const tx = relayerTx(1);
    s.relayer.chainNonce = 8n;
    s.relayer.receipts.set(tx.txHash, receipt(tx));
    expect((await s.advance()).kind).toBe('confirmed');
  });

  it('is broadcast again when a crash left it signed, and marked broadcast', async () => {
    const signed = relayerTx(1, { status: 'signed', broadcastAt: null, createdAt: NOW });
    const s = setUp(settlement([signed]));
    expect(await s.advance()).toEqual({ kind: 'broadcast', settlementId: 'stl_1', txHash: signed.txHash });
    expect(s.relayer.broadcasts).toEqual([signed.rawTx]);
    expect(s.settlements.settlement('stl_1').transactions[0]).toMatchObject({
      status: 'broadcast',
      broadcastAt: NOW,
    });
    expect(s.logger.lines).toEqual([
      {
        level: 'info',
        fields: { settlementId: 'stl_1', nonce: '7', txHash: signed.txHash },
        message: 'settlement transaction broadcast (resumed)',
      },
    ]);
  });

  it('is left to wait when the node refuses the resumed broadcast', async () => {
    const signed = relayerTx(1, { status: 'signed', broadcastAt: null, createdAt: NOW });
    const s = setUp(settlement([signed]));
    s.relayer.broadcastOutcome = { accepted: false, reason: 'nonce too low' };
    expect((await s.advance()).kind).toBe('awaiting-receipt');
    expect(s.settlements.settlement('stl_1').transactions[0]?.status).toBe('signed');
    expect(s.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { settlementId: 'stl_1', nonce: '7', txHash: signed.txHash, reason: 'nonce too low' },
        message: 'settlement broadcast refused',
      },
    ]);
  });

  it('is replaced once it has waited stuckAfterMs since its broadcast, not a millisecond before', async () => {
    const s = setUp();
    s.setNow(new Date(SENT_AT.getTime() + 59_999));
    expect((await s.advance()).kind).toBe('awaiting-receipt');
    s.setNow(new Date(SENT_AT.getTime() + 60_000));
    expect((await s.advance()).kind).toBe('replaced');
  });

  it('counts its wait from creation when it was never broadcast', async () => {
    const signed = relayerTx(1, { status: 'signed', broadcastAt: null, createdAt: SENT_AT });
    const s = setUp(settlement([signed]));
    s.relayer.broadcastOutcome = { accepted: false, reason: 'refused' };
    s.setNow(new Date(SENT_AT.getTime() + 10_000));
    expect((await s.advance({ stuckAfterMs: 10_001 })).kind).toBe('awaiting-receipt');
    expect((await s.advance({ stuckAfterMs: 10_000 })).kind).toBe('replaced');
  });
});

describe('replacing a stuck settlement transaction', () => {
  it('signs it again with both fees up by a quarter (rounded up), persists it, then broadcasts it', async () => {
    const s = setUp();
    s.relayer.fees = { maxFeePerGas: 50n, maxPriorityFeePerGas: 5n };
    const result = await s.advance();
    expect(s.relayer.replacements).toEqual([
      { rawTx: relayerTx(1).rawTx, fees: { maxFeePerGas: 125n, maxPriorityFeePerGas: 13n } },
    ]);
    const replacement = s.settlements.settlement('stl_1').transactions[1]!;
    expect(result).toEqual({
      kind: 'replaced',
      settlementId: 'stl_1',
      txHash: replacement.txHash,
      replacedTxHash: relayerTx(1).txHash,
    });
    expect(replacement).toMatchObject({
      settlementId: 'stl_1',
      nonce: 7n,
      gas: 100_000n,
      maxFeePerGas: 125n,
      maxPriorityFeePerGas: 13n,
      status: 'broadcast',
      replacesId: 'rtx_1',
      createdAt: NOW,
      broadcastAt: NOW,
    });
    expect(replacement.id).not.toBe('rtx_1');
    expect(s.relayer.broadcasts).toEqual([replacement.rawTx]);
    expect(s.settlements.readings()).toEqual([
      {
        chainId: CHAIN_ID,
        address: s.relayer.address,
        balanceWei: s.relayer.balanceWei,
        lowBalanceWei: 10n ** 16n,
        observedAt: NOW,
      },
    ]);
    expect(s.logger.lines[0]).toEqual({
      level: 'warn',
      fields: {
        settlementId: 'stl_1',
        nonce: '7',
        txHash: relayerTx(1).txHash,
        replacementTxHash: replacement.txHash,
        maxFeePerGas: '125',
        maxPriorityFeePerGas: '13',
      },
      message: 'settlement transaction stuck; replacing it with higher fees',
    });
  });

  it('pays at least what the network asks now, and a max fee no lower than the priority fee', async () => {
    const s = setUp();
    s.relayer.fees = { maxFeePerGas: 90n, maxPriorityFeePerGas: 200n };
    await s.advance();
    expect(s.relayer.replacements[0]?.fees).toEqual({ maxFeePerGas: 200n, maxPriorityFeePerGas: 200n });
    const t = setUp();
    t.relayer.fees = { maxFeePerGas: 300n, maxPriorityFeePerGas: 1n };
    await t.advance();
    expect(t.relayer.replacements[0]?.fees).toEqual({ maxFeePerGas: 300n, maxPriorityFeePerGas: 13n });
  });

  it('keeps the replacement signed when the node refuses it, for the next pass to resume', async () => {
    const s = setUp();
    s.relayer.broadcastOutcome = { accepted: false, reason: 'underpriced' };
    expect((await s.advance()).kind).toBe('replaced');
    const replacement = s.settlements.settlement('stl_1').transactions[1]!;
    expect(replacement).toMatchObject({ status: 'signed', broadcastAt: null });
    expect(s.logger.lines.at(-1)).toEqual({
      level: 'warn',
      fields: { settlementId: 'stl_1', nonce: '7', txHash: replacement.txHash, reason: 'underpriced' },
      message: 'settlement broadcast refused',
    });
  });

  it('stops after ten replacements and asks for an operator', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => relayerTx(i + 1));
    const s = setUp(settlement(eleven));
    expect(await s.advance()).toEqual({
      kind: 'awaiting-receipt',
      settlementId: 'stl_1',
      txHash: eleven[10]!.txHash,
    });
    expect(s.relayer.replacements).toEqual([]);
    expect(s.logger.lines).toEqual([
      {
        level: 'error',
        fields: { settlementId: 'stl_1', nonce: '7', txHash: eleven[10]!.txHash },
        message: 'settlement transaction stuck and fee bumps exhausted; an operator must look',
      },
    ]);
    const ten = setUp(settlement(eleven.slice(0, 10)));
    expect((await ten.advance()).kind).toBe('replaced');
  });

  it('does not replace it when the relayer cannot pay the new fees for its gas', async () => {
    const s = setUp();
    s.relayer.balanceWei = 100_000n * 125n - 1n;
    expect((await s.advance()).kind).toBe('awaiting-receipt');
    expect(s.relayer.replacements).toEqual([]);
    expect(s.logger.lines).toEqual([
      {
        level: 'error',
        fields: {
          settlementId: 'stl_1',
          nonce: '7',
          txHash: relayerTx(1).txHash,
          relayer: s.relayer.address,
          balanceWei: '12499999',
          neededWei: '12500000',
        },
        message: 'relayer out of gas: cannot replace a stuck settlement transaction',
      },
    ]);
    s.relayer.balanceWei = 100_000n * 125n;
    expect((await s.advance()).kind).toBe('replaced');
  });

  it('refuses a settlement with no transaction', async () => {
    const s = setUp(settlement([]));
    await expect(s.advance()).rejects.toThrow('settlement stl_1 has no transaction');
  });
});
