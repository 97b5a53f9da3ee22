import { describe, expect, it } from 'vitest';
import { FakeRelayer } from '../../../test/fakes/fakeRelayer.ts';
import { MemorySettlements } from '../../../test/fakes/memorySettlements.ts';
import { CHAIN_ID, testPayment, USDC, USDT } from '../../../test/fakes/paymentFixture.ts';
import { recordingLogger } from '../../../test/fakes/recordingLogger.ts';
import { settlementCandidate } from '../../../test/fakes/settlementCandidate.ts';
import type { SettlementCandidate, SettlementRecord } from './ports.ts';
import { sendDue } from './sendDue.ts';

const NOW = new Date('2026-01-01T02:00:00.000Z');
const LOW_BALANCE = 10n ** 15n;

function setUp(due: readonly SettlementCandidate[] = [settlementCandidate(1), settlementCandidate(2)]) {
  const settlements = new MemorySettlements();
  const relayer = new FakeRelayer();
  for (const c of due) {
    const n = Number.parseInt(c.paymentId.slice(-12), 16);
    settlements.addPayment(testPayment(n, { status: 'paid' }));
    relayer.deposits.set(c.paymentId, c.depositAddress);
  }
  settlements.due = [...due];
  relayer.chainNonce = 5n;
  const logger = recordingLogger();
  const deps = {
    settlements,
    relayer,
    chain: { finalizedBlockNumber: async () => 0n },
    clock: { now: () => NOW },
    logger,
  };
  const options = {
    chainId: CHAIN_ID,
    payoutPolicy: { dustThresholdBaseUnits: 10_000n, delayedAfterMs: 600_000 },
    relayerLowBalanceWei: LOW_BALANCE,
  };
  return {
    settlements,
    relayer,
    logger,
    send: (more: { maxBatch?: number } = {}) => sendDue(deps, { ...options, ...more }),
  };
}

/** A settlement already closed, whose nonce the chain consumed. */
function closedSettlement(nonce: bigint): SettlementRecord {
  return {
    id: `stl_${nonce}`,
    chainId: CHAIN_ID,
    nonce,
    status: 'confirmed',
    payoutTxHash: null,
    failureReason: null,
    createdAt: NOW,
    completedAt: NOW,
    items: [],
    transactions: [],
  };
}

describe('sendDue', () => {
  it('is idle with nothing due, having asked for the dust threshold, the time and a batch of 50', async () => {
    const s = setUp([]);
    expect(await s.send()).toEqual({ kind: 'idle' });
    expect(s.settlements.candidateQueries).toEqual([
      { chainId: CHAIN_ID, dustThresholdBaseUnits: 10_000n, now: NOW, limit: 50 },
    ]);
  });

  it.each([0, 101, 1.5])('refuses a maxBatch of %s', async (maxBatch) => {
    await expect(setUp().send({ maxBatch })).rejects.toThrow(new RangeError('maxBatch must be 1..100'));
  });

  it.each([1, 100])('takes a maxBatch of %s', async (maxBatch) => {
    const s = setUp();
    await s.send({ maxBatch });
    expect(s.settlements.candidateQueries[0]?.limit).toBe(maxBatch);
  });

  it('signs, persists, then broadcasts one flush of the due payments, with a fifth more gas than estimated', async () => {
    const s = setUp();
    const result = await s.send();
    const [signed] = s.relayer.signed;
    expect(signed?.tx).toEqual({ nonce: 5n, gas: 120_000n, fees: s.relayer.fees });
    expect(signed?.call.items.map((i) => i.paymentId)).toEqual([testPayment(1).id, testPayment(2).id]);
    const created = (await s.settlements.inFlight(CHAIN_ID))!;
    expect(result).toEqual({
      kind: 'sent',
      settlementId: created.id,
      nonce: 5n,
      txHash: created.transactions[0]!.txHash,
      paymentIds: [testPayment(1).id, testPayment(2).id],
      broadcast: true,
    });
    expect(created).toMatchObject({ nonce: 5n, createdAt: NOW, status: 'pending' });
    expect(created.items).toEqual(
      [1, 2].map((n) => ({
        paymentId: testPayment(n).id,
        depositAddress: settlementCandidate(n).depositAddress,
        expectedBaseUnits: 1_000_000n,
      })),
    );
    expect(created.transactions[0]).toMatchObject({
      settlementId: created.id,
      chainId: CHAIN_ID,
      fromAddress: s.relayer.address,
      nonce: 5n,
      gas: 120_000n,
      maxFeePerGas: 50n,
      maxPriorityFeePerGas: 5n,
      status: 'broadcast',
      replacesId: null,
      createdAt: NOW,
      broadcastAt: NOW,
    });
    expect(s.relayer.broadcasts).toEqual([created.transactions[0]!.rawTx]);
    expect(s.settlements.readings()).toEqual([
      {
        chainId: CHAIN_ID,
        address: s.relayer.address,
        balanceWei: s.relayer.balanceWei,
        lowBalanceWei: LOW_BALANCE,
        observedAt: NOW,
      },
    ]);
    const context = { settlementId: created.id, nonce: '5', txHash: created.transactions[0]!.txHash };
    expect(s.logger.lines).toEqual([
      {
        level: 'info',
        fields: { ...context, payments: 2, forwarderVersion: 2, gas: '120000', maxFeePerGas: '50' },
        message: 'settlement signed and persisted',
      },
      { level: 'info', fields: context, message: 'settlement transaction broadcast' },
    ]);
  });

  it('rounds the gas headroom up', async () => {
    const s = setUp([settlementCandidate(1)]);
    s.relayer.estimate = () => ({ ok: true, gas: 101n });
    await s.send();
    expect(s.relayer.signed[0]?.tx.gas).toBe(122n);
  });

  // The nonce guards: never a nonce used already, even when a fallback RPC lags behind.
  it.each([
    ['no settlement yet', undefined, 5n, 5n],
    ['the chain ahead of every settlement', 3n, 5n, 5n],
    ['the chain exactly one past the last settlement', 4n, 5n, 5n],
    ['a lagging node: the chain behind the last settlement', 9n, 5n, 10n],
    ['a lagging node: the chain at the last settlement', 5n, 5n, 6n],
  ])('takes the next nonce with %s', async (_, highest, chainNonce, expected) => {
    const s = setUp();
    if (highest !== undefined) s.settlements.addSettlement(closedSettlement(highest));
    s.relayer.chainNonce = chainNonce;
    const result = await s.send();
    expect(result).toMatchObject({ kind: 'sent', nonce: expected });
    expect(s.relayer.signed[0]?.tx.nonce).toBe(expected);
  });

  it('flushes one factory and one token a batch; the others wait for a later pass', async () => {
    const s = setUp([
      settlementCandidate(1),
      settlementCandidate(2, { factoryAddress: '0x0000000000000000000000000000000000000fac' }),
      settlementCandidate(3, { tokenAddress: USDT }),
      settlementCandidate(4, { tokenAddress: USDC.toUpperCase().replace('0X', '0x') }),
    ]);
    const result = await s.send();
    expect(result).toMatchObject({ paymentIds: [testPayment(1).id, testPayment(4).id] });
  });

  it('sets aside a payment whose stored params do not yield its deposit address', async () => {
    const s = setUp([settlementCandidate(1), settlementCandidate(2), settlementCandidate(3)]);
    s.relayer.deposits.set(testPayment(2).id, settlementCandidate(9).depositAddress);
    s.relayer.deposits.delete(testPayment(3).id);
    s.relayer.deposits.set(testPayment(1).id, settlementCandidate(1).depositAddress.toLowerCase());
    const result = await s.send();
    expect(result).toMatchObject({ kind: 'sent', paymentIds: [testPayment(1).id] });
    const reason = 'the stored forwarder params do not yield the deposit address (an operator must look)';
    for (const n of [2, 3])
      expect(s.settlements.payment(testPayment(n).id).payout).toMatchObject({
        failures: 1,
        blockedSince: NOW,
        blockedReason: reason,
      });
    expect(s.settlements.payment(testPayment(1).id).payout.failures).toBe(0);
    expect(s.logger.lines[0]).toEqual({
      level: 'warn',
      fields: {
        paymentId: testPayment(2).id,
        depositAddress: settlementCandidate(2).depositAddress,
        reason,
        failures: 1,
      },
      message: 'payout cannot be sent now; retried after its back-off',
    });
  });

  it('is stuck without probing when no member’s params yield its deposit address', async () => {
    const s = setUp([settlementCandidate(1)]);
    s.relayer.deposits.clear();
    expect(await s.send()).toEqual({ kind: 'stuck', paymentIds: [testPayment(1).id] });
    expect(s.relayer.calls.simulate).toEqual([]);
    expect(s.settlements.payment(testPayment(1).id).payout.failures).toBe(1);
  });

  it('is stuck, sending nothing, when no member of the batch would move anything', async () => {
    const failing = settlementCandidate(1, { payout: { ...settlementCandidate(1).payout, failures: 2 } });
    const s = setUp([failing]);
    s.relayer.simulate = () => ({ ok: false, reason: 'paused' });
    expect(await s.send()).toEqual({ kind: 'stuck', paymentIds: [testPayment(1).id] });
    expect(s.relayer.signed).toEqual([]);
    expect(s.logger.lines[0]?.fields).toMatchObject({ reason: 'paused', failures: 3 });
  });

  it('records a share held back as that share’s failure, and sends the rest', async () => {
    const s = setUp([settlementCandidate(1)]);
    s.relayer.simulate = () => ({
      ok: true,
      outcomes: [{ merchantSent: 990_000n, feeSent: 0n, merchantOwed: 0n, feeOwed: 10_000n }],
    });
    s.relayer.refusals.set(settlementCandidate(1).treasuryAddress, 'treasury blacklisted');
    expect((await s.send()).kind).toBe('sent');
    expect(s.settlements.payment(testPayment(1).id).payout).toMatchObject({
      failures: 1,
      blockedReason: null,
      commissionBlockedReason: 'treasury blacklisted',
    });
    expect(s.logger.lines[0]).toEqual({
      level: 'warn',
      fields: {
        paymentId: testPayment(1).id,
        merchantReason: undefined,
        commissionReason: 'treasury blacklisted',
      },
      message: 'one share of a payout is held in its forwarder; the other is sent now',
    });
  });

  it('is stuck when the batch no longer passes its estimate, each payment waiting its back-off', async () => {
    const s = setUp();
    s.relayer.estimate = () => ({ ok: false, reason: 'moved' });
    expect(await s.send()).toEqual({ kind: 'stuck', paymentIds: [testPayment(1).id, testPayment(2).id] });
    expect(s.settlements.payment(testPayment(1).id).payout).toMatchObject({
      failures: 1,
      blockedReason: 'moved',
      commissionBlockedReason: 'moved',
    });
    expect(s.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { reason: 'moved' },
        message: 'flush batch no longer passes its estimate',
      },
    ]);
  });

  it('sends nothing when the relayer cannot pay for the gas, and sends at exactly enough', async () => {
    const s = setUp();
    const needed = 120_000n * 50n;
    s.relayer.balanceWei = needed - 1n;
    expect(await s.send()).toEqual({ kind: 'out-of-gas', balanceWei: needed - 1n, neededWei: needed });
    expect(s.relayer.signed).toEqual([]);
    expect(s.logger.lines.at(-1)).toEqual({
      level: 'error',
      fields: {
        relayer: s.relayer.address,
        balanceWei: (needed - 1n).toString(),
        neededWei: needed.toString(),
        paymentsWaiting: 2,
      },
      message: 'relayer out of gas: nothing sent; top up the relayer address',
    });
    s.relayer.balanceWei = needed;
    expect((await s.send()).kind).toBe('sent');
  });

  it('warns of a low gas balance below the threshold, not at it', async () => {
    const s = setUp();
    s.relayer.balanceWei = LOW_BALANCE;
    await s.send();
    expect(s.logger.lines.filter((l) => l.level === 'warn')).toEqual([]);
    const t = setUp();
    t.relayer.balanceWei = LOW_BALANCE - 1n;
    await t.send();
    expect(t.logger.lines[0]).toEqual({
      level: 'warn',
      fields: {
        relayer: t.relayer.address,
        balanceWei: (LOW_BALANCE - 1n).toString(),
        lowBalanceWei: LOW_BALANCE.toString(),
      },
      message: 'relayer gas balance low; top up the relayer address',
    });
  });

  it('sends nothing when another settler opened a settlement first', async () => {
    const s = setUp();
    s.settlements.addSettlement({ ...closedSettlement(1n), status: 'pending' });
    expect(await s.send()).toEqual({ kind: 'busy' });
    expect(s.relayer.broadcasts).toEqual([]);
    expect(s.logger.lines.at(-1)).toEqual({
      level: 'warn',
      fields: {},
      message: 'another settler opened a settlement first; nothing sent',
    });
  });

  it('keeps the transaction signed for the next pass when the node refuses it', async () => {
    const s = setUp();
    s.relayer.broadcastOutcome = { accepted: false, reason: 'underpriced' };
    const result = await s.send();
    expect(result).toMatchObject({ kind: 'sent', broadcast: false });
    const created = (await s.settlements.inFlight(CHAIN_ID))!;
    expect(created.transactions[0]).toMatchObject({ status: 'signed', broadcastAt: null });
    expect(s.logger.lines.at(-1)).toEqual({
      level: 'warn',
      fields: {
        settlementId: created.id,
        nonce: '5',
        txHash: created.transactions[0]!.txHash,
        reason: 'underpriced',
      },
      message: 'settlement broadcast refused; retried next pass',
    });
  });
});
