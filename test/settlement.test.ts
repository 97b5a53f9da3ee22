import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chainReader, createRpcClient } from '../src/adapters/chain/chainReader.ts';
import { createRelayer } from '../src/adapters/chain/relayer.ts';
import { settlementRepository } from '../src/adapters/db/settlementRepository.ts';
import { createPaymentResponse, paymentStatusResponse } from '../src/adapters/http/presenters.ts';
import type { Relayer } from '../src/app/ports.ts';
import {
  MAX_SETTLEMENT_FAILURES,
  runSettler,
  type SettleOptions,
  type SettlePaymentsDeps,
  type SettleResult,
  settleOnce,
} from '../src/app/settlePayments.ts';
import { formatUsdc, parseUsdc } from '../src/domain/money.ts';
import type { Payment } from '../src/domain/payment.ts';
import { ANVIL_RELAYER_KEY, type ChainHarness, startChainHarness } from './helpers/chainHarness.ts';
import { dialects } from './helpers/database.ts';
import { capturingLogger } from './helpers/logCapture.ts';

/** Bytecode that reverts on any call: stands in for a forwarder whose flush cannot succeed (see below). */
const ALWAYS_REVERTS = '0x60006000fd';
const ONE_ETHER = 10n ** 18n;

describe.each(dialects)('settlement on anvil, %s', (dialect) => {
  let h: ChainHarness;
  let logger: Logger;
  let logs: () => string;

  beforeEach(async () => {
    h = await startChainHarness(dialect);
    ({ logger, text: logs } = capturingLogger());
  });
  afterEach(async () => {
    // Whatever a test did, the relayer's key never reached a log line.
    const all = `${logs()}${h.logs()}`.toLowerCase();
    expect(all).not.toContain(ANVIL_RELAYER_KEY.slice(2).toLowerCase());
    await h.close();
  });

  const options = (): SettleOptions => ({
    chainId: h.anvil.chain.id,
    dustThresholdBaseUnits: 10_000n,
    relayerLowBalanceWei: ONE_ETHER,
    stuckAfterMs: 60_000,
  });

  /** A settler as a freshly started worker builds it: new clients, new repository, nothing in memory. */
  const settler = (overrides: Partial<SettlePaymentsDeps> = {}): SettlePaymentsDeps => ({
    settlements: settlementRepository(h.database.handle),
    relayer: createRelayer({
      client: createRpcClient([h.anvil.rpcUrl]),
      chainId: h.anvil.chain.id,
      relayerKey: ANVIL_RELAYER_KEY,
    }),
    chain: chainReader(createRpcClient([h.anvil.rpcUrl]), { kind: 'finalized' }),
    clock: h.clock,
    logger,
    ...overrides,
  });
  const settle = (deps = settler()) => settleOnce(deps, options());

  /** Sends, makes the transaction final, applies it: the normal two passes. */
  const settleFully = async (deps = settler()): Promise<{ sent: SettleResult; applied: SettleResult }> => {
    const sent = await settle(deps);
    expect(sent.send).toMatchObject({ kind: 'sent', broadcast: true });
    await h.finalizeAll();
    const applied = await settle(deps);
    expect(applied.inFlight).toMatchObject({ kind: 'confirmed' });
    return { sent, applied };
  };

  const paidPayment = async (amount: string, paidBaseUnits = parseUsdc(amount)!): Promise<Payment> => {
    const payment = await h.createPayment(amount);
    await h.pay(payment.deposit!.depositAddress, paidBaseUnits);
    await h.finalizeAll();
    await h.poll();
    const { payment: stored } = await h.status(payment.id);
    expect(stored.status).toBe('paid');
    return stored;
  };

  const balances = async (payment: Payment) => ({
    merchant: await h.balanceOf(h.addresses.merchant),
    treasury: await h.balanceOf(h.addresses.treasury),
    deposit: await h.balanceOf(payment.deposit!.depositAddress),
  });
  const relayerNonce = () => h.anvil.publicClient.getTransactionCount({ address: h.addresses.relayer });
  const db = () => h.database.handle.db;
  const failuresOf = async (paymentId: string) =>
    Number(
      (
        await db()
          .selectFrom('payments')
          .select('settlement_failures')
          .where('id', '=', paymentId)
          .executeTakeFirstOrThrow()
      ).settlement_failures,
    );
  const settlementRows = () => db().selectFrom('settlements').selectAll().orderBy('created_at').execute();
  const transactionRows = () =>
    db().selectFrom('relayer_transactions').selectAll().orderBy('created_at').execute();

  it('pays an exact payment out to the base unit and shows the payout transaction', async () => {
    const payment = await paidPayment('25.50');
    const before = await balances(payment);
    const { sent } = await settleFully();
    if (sent.send?.kind !== 'sent') throw new Error('not sent');

    const after = await balances(payment);
    const { quote } = payment;
    // merchant_will_receive exactly, and the commission exactly.
    expect(after.merchant - before.merchant).toBe(quote.merchantShareBaseUnits);
    expect(after.treasury - before.treasury).toBe(quote.commissionBaseUnits);
    expect(createPaymentResponse(payment, 'http://x').details.merchant_will_receive).toBe(
      `${formatUsdc(after.merchant - before.merchant)} USDC`,
    );
    expect(after.deposit).toBe(0n);

    const { payment: stored, state } = await h.status(payment.id);
    expect(stored.settledBaseUnits).toBe(25_500_000n);
    expect(stored.payoutTxHash).toBe(sent.send.txHash.toLowerCase());
    expect(stored.settledAt).not.toBeNull();
    expect(paymentStatusResponse(stored, state).payout_txid).toBe(sent.send.txHash.toLowerCase());
    const receipt = await h.anvil.publicClient.getTransactionReceipt({
      hash: sent.send.txHash as `0x${string}`,
    });
    expect(receipt.from.toLowerCase()).toBe(h.addresses.relayer.toLowerCase());
    // Each step is logged with what an operator needs to follow it on chain.
    for (const field of [sent.send.settlementId, sent.send.txHash, `"nonce":"${sent.send.nonce}"`])
      expect(logs()).toContain(field);

    // Nothing is due any more: no transaction is sent.
    const nonce = await relayerNonce();
    expect((await settle()).send).toEqual({ kind: 'idle' });
    expect(await relayerNonce()).toBe(nonce);
    expect(await settlementRows()).toMatchObject([{ status: 'confirmed' }]);
    expect(await transactionRows()).toMatchObject([{ status: 'mined' }]);
  });

  it('splits an overpayment on the amount actually received', async () => {
    const payment = await paidPayment('10', 12_345_678n);
    const before = await balances(payment);
    await settleFully();
    const after = await balances(payment);
    const commission = (12_345_678n * BigInt(payment.quote.commissionBps)) / 10_000n;
    expect(after.treasury - before.treasury).toBe(commission);
    expect(after.merchant - before.merchant).toBe(12_345_678n - commission);
    expect((await h.status(payment.id)).payment.settledBaseUnits).toBe(12_345_678n);
  });

  it('lets dust wait, then settles a late deposit to an already flushed forwarder again', async () => {
    const payment = await paidPayment('10');
    const first = await settleFully();
    const depositAddress = payment.deposit!.depositAddress;

    // 0.005 USDC: below the 0.01 threshold, it waits.
    await h.pay(depositAddress, 5_000n);
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).payment.amountReceivedBaseUnits).toBe(10_005_000n);
    const nonce = await relayerNonce();
    expect((await settle()).send).toEqual({ kind: 'idle' });
    expect(await relayerNonce()).toBe(nonce);
    expect(await h.balanceOf(depositAddress)).toBe(5_000n);

    // More arrives: 0.025 in all is due, and the deployed forwarder is flushed again.
    await h.pay(depositAddress, 20_000n);
    await h.finalizeAll();
    await h.poll();
    const before = await balances(payment);
    const second = await settleFully();
    const after = await balances(payment);
    const commission = (25_000n * BigInt(payment.quote.commissionBps)) / 10_000n;
    expect(after.treasury - before.treasury).toBe(commission);
    expect(after.merchant - before.merchant).toBe(25_000n - commission);
    expect(after.deposit).toBe(0n);
    const { payment: stored } = await h.status(payment.id);
    expect(stored.settledBaseUnits).toBe(10_025_000n);
    if (second.sent.send?.kind !== 'sent' || first.sent.send?.kind !== 'sent') throw new Error('not sent');
    expect(stored.payoutTxHash).toBe(second.sent.send.txHash.toLowerCase());
    expect(second.sent.send.txHash).not.toBe(first.sent.send.txHash);
  });

  it('flushes several payments in one transaction', async () => {
    const payments = [await paidPayment('1'), await paidPayment('2.5'), await paidPayment('7.25')];
    const before = await h.balanceOf(h.addresses.merchant);
    const { sent } = await settleFully();
    if (sent.send?.kind !== 'sent') throw new Error('not sent');
    expect([...sent.send.paymentIds].sort()).toEqual(payments.map((p) => p.id).sort());

    expect(await settlementRows()).toHaveLength(1);
    expect(await transactionRows()).toHaveLength(1);
    const items = await db().selectFrom('settlement_items').selectAll().execute();
    expect(items).toHaveLength(3);
    for (const payment of payments) {
      const { payment: stored } = await h.status(payment.id);
      expect(stored.settledBaseUnits).toBe(payment.quote.usdcBaseUnits);
      expect(stored.payoutTxHash).toBe(sent.send.txHash.toLowerCase());
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
    }
    const shares = payments.reduce((sum, p) => sum + p.quote.merchantShareBaseUnits, 0n);
    expect((await h.balanceOf(h.addresses.merchant)) - before).toBe(shares);
  });

  it('sends nothing while the relayer is out of gas, and settles once topped up', async () => {
    const payment = await paidPayment('10');
    await h.anvil.testClient.setBalance({ address: h.addresses.relayer, value: 0n });
    const nonce = await relayerNonce();

    const result = await settle();
    expect(result.send).toMatchObject({ kind: 'out-of-gas', balanceWei: 0n });
    expect(logs()).toContain('relayer out of gas');
    expect(await relayerNonce()).toBe(nonce);
    expect(await settlementRows()).toHaveLength(0);
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(10_000_000n);
    expect((await h.status(payment.id)).payment.settledBaseUnits).toBe(0n);

    // Enough for the flush but under the 1 POL low-balance mark: it settles, and says the balance is low.
    await h.anvil.testClient.setBalance({ address: h.addresses.relayer, value: ONE_ETHER / 100n });
    await settleFully();
    expect(logs()).toContain('relayer gas balance low');
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
    expect((await h.status(payment.id)).payment.settledBaseUnits).toBe(10_000_000n);
  });

  it('after a crash between broadcast and receipt, a restarted settler applies the flush exactly once', async () => {
    const payment = await paidPayment('10');
    const before = await balances(payment);
    await h.anvil.testClient.setAutomine(false);

    const first = await settle(settler());
    if (first.send?.kind !== 'sent') throw new Error('not sent');
    expect(first.send.broadcast).toBe(true);
    // The process dies here. A new one starts with nothing but the database.
    const restarted = settler();
    expect((await settle(restarted)).inFlight).toMatchObject({ kind: 'awaiting-receipt' });
    await h.anvil.testClient.mine({ blocks: 1 });
    expect((await settle(restarted)).inFlight).toMatchObject({ kind: 'awaiting-finality' });
    await h.finalizeAll();
    expect((await settle(restarted)).inFlight).toEqual({
      kind: 'confirmed',
      settlementId: first.send.settlementId,
      txHash: first.send.txHash,
    });
    // And again, after yet another restart: nothing more happens.
    expect(await settle(settler())).toEqual({ inFlight: null, send: { kind: 'idle' } });

    const after = await balances(payment);
    expect(after.merchant - before.merchant).toBe(payment.quote.merchantShareBaseUnits);
    expect(after.treasury - before.treasury).toBe(payment.quote.commissionBaseUnits);
    expect((await h.status(payment.id)).payment.settledBaseUnits).toBe(10_000_000n);
    expect(await transactionRows()).toMatchObject([
      { status: 'mined', tx_hash: first.send.txHash.toLowerCase() },
    ]);
  });

  it('after a crash between persist and broadcast, the next pass broadcasts the very same transaction', async () => {
    const payment = await paidPayment('10');
    const before = await balances(payment);
    const nonce = await relayerNonce();
    const real = settler().relayer;
    const crashing: Relayer = {
      ...real,
      broadcast: async () => {
        throw new Error('process killed before broadcasting');
      },
    };
    await expect(settle(settler({ relayer: crashing }))).rejects.toThrow('process killed');
    const [persisted] = await transactionRows();
    expect(persisted).toMatchObject({ status: 'signed', broadcast_at: null });
    expect(await relayerNonce()).toBe(nonce);

    const resumed = await settle(settler());
    expect(resumed.inFlight).toMatchObject({ kind: 'broadcast', txHash: persisted!.tx_hash });
    await h.finalizeAll();
    expect((await settle(settler())).inFlight).toMatchObject({
      kind: 'confirmed',
      txHash: persisted!.tx_hash,
    });

    const rows = await transactionRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'mined', raw_tx: persisted!.raw_tx });
    const mined = await h.anvil.publicClient.getTransaction({ hash: persisted!.tx_hash as `0x${string}` });
    expect(BigInt(mined.nonce)).toBe(BigInt(nonce));
    const after = await balances(payment);
    expect(after.merchant - before.merchant).toBe(payment.quote.merchantShareBaseUnits);
    expect((await h.status(payment.id)).payment.settledBaseUnits).toBe(10_000_000n);
  });

  it('replaces a stuck transaction with higher fees, same nonce, and applies only the one mined', async () => {
    const payment = await paidPayment('10');
    const before = await balances(payment);
    await h.anvil.testClient.setAutomine(false);
    const deps = settler();

    const first = await settle(deps);
    if (first.send?.kind !== 'sent') throw new Error('not sent');
    expect((await settle(deps)).inFlight).toMatchObject({ kind: 'awaiting-receipt' });

    h.clock.advance(61_000);
    const bumped = await settle(deps);
    expect(bumped.inFlight).toMatchObject({ kind: 'replaced', replacedTxHash: first.send.txHash });
    const [original, replacement] = await transactionRows();
    expect(replacement).toMatchObject({ status: 'broadcast', replaces_id: original!.id });
    expect(BigInt(replacement!.nonce)).toBe(BigInt(original!.nonce));
    expect(replacement!.gas).toBe(original!.gas);
    expect(BigInt(replacement!.max_fee_per_gas) * 100n).toBeGreaterThanOrEqual(
      BigInt(original!.max_fee_per_gas) * 125n,
    );
    expect(BigInt(replacement!.max_priority_fee_per_gas) * 100n).toBeGreaterThanOrEqual(
      BigInt(original!.max_priority_fee_per_gas) * 125n,
    );

    await h.anvil.testClient.mine({ blocks: 1 });
    await h.finalizeAll();
    expect((await settle(deps)).inFlight).toMatchObject({ kind: 'confirmed', txHash: replacement!.tx_hash });
    expect(await transactionRows()).toMatchObject([
      { id: original!.id, status: 'replaced' },
      { id: replacement!.id, status: 'mined' },
    ]);
    await expect(
      h.anvil.publicClient.getTransactionReceipt({ hash: original!.tx_hash as `0x${string}` }),
    ).rejects.toThrow();

    const after = await balances(payment);
    expect(after.merchant - before.merchant).toBe(payment.quote.merchantShareBaseUnits);
    expect(after.treasury - before.treasury).toBe(payment.quote.commissionBaseUnits);
    const { payment: stored } = await h.status(payment.id);
    expect(stored.settledBaseUnits).toBe(10_000_000n);
    expect(stored.payoutTxHash).toBe(replacement!.tx_hash);
  });

  /**
   * TestUSDC has no blacklist, so no merchant address can refuse it. What a blacklisted merchant does to a
   * real USDC flush (the forwarder's flush reverts) is reproduced by replacing the code at one deposit address
   * with code that always reverts: the factory sees code there, skips the deployment and calls flush, which
   * reverts — the whole batch would revert with it. The params stay valid, so the off-chain checks pass.
   */
  it('isolates a payment whose flush reverts; the others settle and nothing is lost', async () => {
    const good1 = await paidPayment('1');
    const bad = await paidPayment('2');
    const good2 = await paidPayment('3');
    await h.anvil.testClient.setCode({
      address: bad.deposit!.depositAddress as `0x${string}`,
      bytecode: ALWAYS_REVERTS,
    });

    const { sent, applied } = await settleFully();
    if (sent.send?.kind !== 'sent') throw new Error('not sent');
    expect([...sent.send.paymentIds].sort()).toEqual([good1.id, good2.id].sort());
    expect(logs()).toContain('flush would revert');
    for (const good of [good1, good2])
      expect((await h.status(good.id)).payment.settledBaseUnits).toBe(good.quote.usdcBaseUnits);
    // The pass that applied the flush went on to try the bad payment alone: refused again, nothing sent.
    expect(applied.send).toEqual({ kind: 'rejected', paymentIds: [bad.id] });
    expect(await failuresOf(bad.id)).toBe(2);

    // Alone, it keeps failing estimation: no transaction is sent for it, and after 5 failures it is left alone.
    const nonce = await relayerNonce();
    const kinds: string[] = [];
    for (let pass = 0; pass < 10; pass += 1) {
      const result = await settle();
      kinds.push(result.send?.kind ?? 'in-flight');
      if (result.send?.kind === 'idle') break;
    }
    expect(kinds).toEqual(['rejected', 'rejected', 'rejected', 'idle']);
    expect(logs()).toContain('no longer settled automatically');
    expect(await failuresOf(bad.id)).toBe(MAX_SETTLEMENT_FAILURES);
    expect(await relayerNonce()).toBe(nonce);
    expect(await h.balanceOf(bad.deposit!.depositAddress)).toBe(2_000_000n);
    expect((await h.status(bad.id)).payment.settledBaseUnits).toBe(0n);

    // The cause removed and the counter reset by an operator: it settles.
    await h.anvil.testClient.setCode({
      address: bad.deposit!.depositAddress as `0x${string}`,
      bytecode: '0x',
    });
    await db().updateTable('payments').set({ settlement_failures: 0 }).where('id', '=', bad.id).execute();
    await settleFully();
    expect(await h.balanceOf(bad.deposit!.depositAddress)).toBe(0n);
    expect((await h.status(bad.id)).payment.settledBaseUnits).toBe(2_000_000n);
  });

  it('a batch that reverts on chain fails; its payments are retried alone and the good ones settle', async () => {
    const good = await paidPayment('1');
    const bad = await paidPayment('2');
    await h.anvil.testClient.setAutomine(false);
    const sent = await settle();
    expect(sent.send).toMatchObject({ kind: 'sent', paymentIds: expect.arrayContaining([good.id, bad.id]) });
    // Between the estimate and the block, the bad forwarder starts reverting: the whole batch reverts.
    await h.anvil.testClient.setCode({
      address: bad.deposit!.depositAddress as `0x${string}`,
      bytecode: ALWAYS_REVERTS,
    });
    await h.anvil.testClient.mine({ blocks: 1 });
    await h.anvil.testClient.setAutomine(true);
    await h.finalizeAll();

    const reverted = await settle();
    expect(reverted.inFlight).toMatchObject({ kind: 'reverted' });
    expect(logs()).toContain('settlement transaction reverted');
    expect(await failuresOf(good.id)).toBeGreaterThanOrEqual(1);
    // From now on each goes alone: the good one is sent and settles, the bad one is refused until set aside.
    for (let pass = 0; pass < 10; pass += 1) {
      const result = await settle();
      if (result.inFlight === null && result.send?.kind === 'idle') break;
      await h.finalizeAll();
    }
    expect((await h.status(good.id)).payment.settledBaseUnits).toBe(1_000_000n);
    expect(await failuresOf(good.id)).toBe(0);
    expect(await failuresOf(bad.id)).toBe(MAX_SETTLEMENT_FAILURES);
    expect((await settlementRows()).map((s) => s.status)).toEqual(['failed', 'confirmed']);
    expect(await h.balanceOf(bad.deposit!.depositAddress)).toBe(2_000_000n);
  });

  it('refuses to flush a payment whose stored params do not yield its deposit address', async () => {
    const good = await paidPayment('1');
    const tampered = await paidPayment('2');
    // A flush with these params would deploy an empty forwarder elsewhere and move nothing.
    await db()
      .updateTable('payments')
      .set({ payout_address: '0x0000000000000000000000000000000000000001' })
      .where('id', '=', tampered.id)
      .execute();
    const { sent } = await settleFully();
    expect(sent.send).toMatchObject({ paymentIds: [good.id] });
    expect(await failuresOf(tampered.id)).toBe(MAX_SETTLEMENT_FAILURES);
    expect(await h.balanceOf(tampered.deposit!.depositAddress)).toBe(2_000_000n);
    expect(logs()).toContain('do not yield the deposit address');
  });

  it('runs in the background, survives a dead RPC, and stops on abort; the key is never logged', async () => {
    const payment = await paidPayment('10');
    // First a settler whose RPC is unreachable: each pass fails, is logged, and the loop goes on.
    const dead = createRpcClient(['http://127.0.0.1:9']);
    const broken = settler({
      relayer: createRelayer({ client: dead, chainId: h.anvil.chain.id, relayerKey: ANVIL_RELAYER_KEY }),
    });
    const stopBroken = new AbortController();
    const brokenLoop = runSettler(broken, {
      ...options(),
      intervalMs: 5,
      maxBackoffMs: 20,
      signal: stopBroken.signal,
    });
    await until(() => (logs().match(/background job failed/g) ?? []).length >= 2);
    stopBroken.abort();
    await brokenLoop;

    const stop = new AbortController();
    const loop = runSettler(settler(), { ...options(), intervalMs: 5, signal: stop.signal });
    await until(async () => {
      await h.anvil.testClient.mine({ blocks: 1 });
      return (await h.status(payment.id)).payment.settledBaseUnits === 10_000_000n;
    });
    stop.abort();
    await loop;
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
    expect(logs()).toContain('settlement confirmed');
    expect(logs().toLowerCase()).not.toContain(ANVIL_RELAYER_KEY.slice(2).toLowerCase());
  });

  it('a bad relayer key is refused without quoting it', () => {
    const badKey = `0x${'f'.repeat(64)}` as const; // above the curve order: not a valid key
    let message = '';
    try {
      createRelayer({ client: createRpcClient([h.anvil.rpcUrl]), chainId: 1, relayerKey: badKey });
    } catch (error) {
      message = `${(error as Error).message} ${(error as Error).stack} ${String((error as Error).cause)}`;
    }
    expect(message).toContain('not a valid');
    expect(message.toLowerCase()).not.toContain('f'.repeat(64));
  });
});

/** Polls a condition (bounded), for background loops; no assertion on how long it takes. */
async function until(condition: () => boolean | Promise<boolean>, attempts = 400): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition not met');
}
