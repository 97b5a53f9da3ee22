import type { Logger } from 'pino';
import { type AbiFunction, type Address, getAbiItem, type Hex, toFunctionSelector } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPaymentResponse, paymentStatusResponse } from '../../src/adapters/api/presenters.ts';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { forwarderFactoryV3Abi } from '../../src/adapters/chain/contractAbis.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { createWebhookSender } from '../../src/adapters/outbound/webhookSender.ts';
import type { SettleOptions, SettlePaymentsDeps } from '../../src/app/settlement/options.ts';
import type { Relayer } from '../../src/app/settlement/ports.ts';
import { runSettler, type SettleResult, settleOnce } from '../../src/app/settlement/settleOnce.ts';
import { dispatchWebhooks } from '../../src/app/webhooks/dispatchWebhooks.ts';
import { formatUsdc, parseUsdc } from '../../src/domain/money.ts';
import { type Payment, payoutStateOf } from '../../src/domain/payment.ts';
import { settledBaseUnits } from '../../src/domain/payout.ts';
import { ANVIL_RELAYER_KEY, type ChainHarness, ROLES, startChainHarness } from '../helpers/chainHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { until } from '../helpers/net.ts';
import { freshSettler } from '../helpers/settler.ts';
import { verifyAsMerchant, WebhookReceiver } from '../helpers/webhookReceiver.ts';

/** Bytecode that reverts on any call: stands in for a forwarder whose flush cannot succeed at all. */
const ALWAYS_REVERTS = '0x60006000fd';
const ONE_ETHER = 10n ** 18n;
const DELAYED_AFTER_MS = 10 * 60_000;
const BLACKLISTED = 'Blacklistable: account is blacklisted';
const PAUSED = 'Pausable: paused';

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

  const policy = { dustThresholdBaseUnits: 10_000n, delayedAfterMs: DELAYED_AFTER_MS };
  const options = (): SettleOptions => ({
    chainId: h.anvil.chain.id,
    payoutPolicy: policy,
    relayerLowBalanceWei: ONE_ETHER,
    stuckAfterMs: 60_000,
  });

  /** A settler as a freshly started worker builds it: new clients, new repository, nothing in memory. */
  const settler = (overrides: Partial<SettlePaymentsDeps> = {}) => freshSettler(h, logger, overrides);
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

  const paidPayment = async (
    amount: string,
    paidBaseUnits = parseUsdc(amount)!,
    forwarderVersion: 1 | 2 | 3 = 2,
  ): Promise<Payment> => {
    const payment = await h.createPayment(amount, 'USDC', { forwarderVersion });
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
  const stored = async (paymentId: string) => (await h.status(paymentId)).payment;
  const settledOf = async (paymentId: string) => settledBaseUnits((await stored(paymentId)).payout);
  /** The status response as the merchant API answers it now. */
  const statusBody = async (paymentId: string) => {
    const { payment, state } = await h.status(paymentId);
    return paymentStatusResponse(payment, state, payoutStateOf(payment, state, policy, h.clock.now()));
  };
  /** The webhook bodies written for a payment, oldest first. */
  const eventBodies = async (paymentId: string) =>
    (await h.stores.ledger.listEvents(paymentId)).map(
      (e) => JSON.parse(e.payload) as Record<string, unknown>,
    );
  const payoutEvents = async (paymentId: string) =>
    (await eventBodies(paymentId)).filter((e) => String(e.event).startsWith('payment.payout_'));
  /** Passes of the settler with the clock moved on between them, finalizing what each sends. */
  const drive = async (passes: number, stepMs: number, deps = settler()) => {
    const results: SettleResult[] = [];
    for (let i = 0; i < passes; i += 1) {
      h.clock.advance(stepMs);
      results.push(await settle(deps));
      await h.finalizeAll();
    }
    return results;
  };
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

  it('pays an exact payment out to the base unit, shows the payout, and tells the merchant exactly what it got', async () => {
    const payment = await paidPayment('25.50');
    const before = await balances(payment);
    expect((await statusBody(payment.id)).payout_status).toBe('pending');
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

    const settled = await stored(payment.id);
    expect(settled.payout).toMatchObject({
      merchantPaidBaseUnits: quote.merchantShareBaseUnits,
      treasuryPaidBaseUnits: quote.commissionBaseUnits,
      txHash: sent.send.txHash.toLowerCase(),
      failures: 0,
      retryAt: null,
      blockedSince: null,
    });
    expect(settled.payout.sentAt).not.toBeNull();
    const body = await statusBody(payment.id);
    expect(body).toMatchObject({ payout_status: 'sent', payout_txid: sent.send.txHash.toLowerCase() });
    expect(body).not.toHaveProperty('payout_delayed_reason');
    expect(await payoutEvents(payment.id)).toEqual([
      expect.objectContaining({
        event: 'payment.payout_sent',
        payout_status: 'sent',
        payout_txid: sent.send.txHash.toLowerCase(),
        merchant_received_base_units: quote.merchantShareBaseUnits.toString(),
        treasury_received_base_units: quote.commissionBaseUnits.toString(),
        payout_delayed_reason: null,
      }),
    ]);
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

  it('settles a payment created on the version 1 factory with version 1', async () => {
    const v1 = await paidPayment('12', undefined, 1);
    const v2 = await paidPayment('3');
    expect(v1.deposit!.factoryAddress).toBe(h.factoryV1);
    const before = await balances(v1);
    // One factory per transaction: the pass that applies the first flush sends the second.
    await settleFully();
    await h.finalizeAll();
    expect((await settle()).inFlight).toMatchObject({ kind: 'confirmed' });
    const after = await balances(v1);
    expect(after.deposit).toBe(0n);
    expect(after.treasury - before.treasury).toBe(
      v1.quote.commissionBaseUnits + v2.quote.commissionBaseUnits,
    );
    expect(after.merchant - before.merchant).toBe(
      v1.quote.merchantShareBaseUnits + v2.quote.merchantShareBaseUnits,
    );
    expect(await settledOf(v1.id)).toBe(12_000_000n);
    expect(await payoutEvents(v1.id)).toMatchObject([
      {
        event: 'payment.payout_sent',
        merchant_received_base_units: v1.quote.merchantShareBaseUnits.toString(),
      },
    ]);
    expect(logs()).toContain('"forwarderVersion":1');
    expect(logs()).toContain('"forwarderVersion":2');
  });

  it('settles version 3 payments through flushBatchDeploying: new bare clones deployed, then one already there', async () => {
    const first = await paidPayment('12', undefined, 3);
    const second = await paidPayment('3', undefined, 3);
    expect(first.deposit!.factoryAddress).toBe(h.factoryV3);
    const before = await balances(first);
    await settleFully();
    const after = await balances(first);
    expect(after.deposit).toBe(0n);
    expect(await h.balanceOf(second.deposit!.depositAddress)).toBe(0n);
    expect(after.treasury - before.treasury).toBe(
      first.quote.commissionBaseUnits + second.quote.commissionBaseUnits,
    );
    expect(after.merchant - before.merchant).toBe(
      first.quote.merchantShareBaseUnits + second.quote.merchantShareBaseUnits,
    );
    for (const p of [first, second]) {
      // The 45-byte EIP-1167 proxy: no args in the code.
      const code = await h.anvil.publicClient.getCode({ address: p.deposit!.depositAddress as Address });
      expect(code?.length).toBe(2 + 2 * 45);
      expect(await settledOf(p.id)).toBe(p.quote.usdcBaseUnits);
    }
    const selectorOf = async (index: number) => {
      const row = (await transactionRows())[index]!;
      const tx = await h.anvil.publicClient.getTransaction({ hash: row.tx_hash as Hex });
      return tx.input.slice(0, 10);
    };
    const deploying = toFunctionSelector(
      getAbiItem({ abi: forwarderFactoryV3Abi, name: 'flushBatchDeploying' }) as AbiFunction,
    );
    expect(await selectorOf(0)).toBe(deploying);

    // Paid again to the first, now deployed, address: claimed not new, flushed as it is.
    await h.pay(first.deposit!.depositAddress, 1_000_000n);
    await h.finalizeAll();
    await h.poll();
    const beforeAgain = await balances(first);
    await settleFully();
    const again = await balances(first);
    expect(again.deposit).toBe(0n);
    expect(again.merchant - beforeAgain.merchant + (again.treasury - beforeAgain.treasury)).toBe(1_000_000n);
    expect(await selectorOf(1)).toBe(deploying);
    expect(logs()).toContain('"forwarderVersion":3');
  });

  it('splits an overpayment on the amount actually received', async () => {
    const payment = await paidPayment('10', 12_345_678n);
    const before = await balances(payment);
    await settleFully();
    const after = await balances(payment);
    const commission = (12_345_678n * BigInt(payment.quote.commissionBps)) / 10_000n;
    expect(after.treasury - before.treasury).toBe(commission);
    expect(after.merchant - before.merchant).toBe(12_345_678n - commission);
    expect(await settledOf(payment.id)).toBe(12_345_678n);
    expect((await statusBody(payment.id)).payout_status).toBe('sent');
  });

  it('lets dust wait, then settles a late deposit to an already flushed forwarder again', async () => {
    const payment = await paidPayment('10');
    const first = await settleFully();
    const depositAddress = payment.deposit!.depositAddress;

    // 0.005 USDC: below the 0.01 threshold, it waits, and the payout still counts as sent.
    await h.pay(depositAddress, 5_000n);
    await h.finalizeAll();
    await h.poll();
    expect((await stored(payment.id)).amountReceivedBaseUnits).toBe(10_005_000n);
    const nonce = await relayerNonce();
    expect((await settle()).send).toEqual({ kind: 'idle' });
    expect(await relayerNonce()).toBe(nonce);
    expect(await h.balanceOf(depositAddress)).toBe(5_000n);
    expect((await statusBody(payment.id)).payout_status).toBe('sent');

    // More arrives: 0.025 in all is due, and the deployed forwarder is flushed again.
    await h.pay(depositAddress, 20_000n);
    await h.finalizeAll();
    await h.poll();
    expect((await statusBody(payment.id)).payout_status).toBe('pending');
    const before = await balances(payment);
    const second = await settleFully();
    const after = await balances(payment);
    const commission = (25_000n * BigInt(payment.quote.commissionBps)) / 10_000n;
    expect(after.treasury - before.treasury).toBe(commission);
    expect(after.merchant - before.merchant).toBe(25_000n - commission);
    expect(after.deposit).toBe(0n);
    const settled = await stored(payment.id);
    expect(settledBaseUnits(settled.payout)).toBe(10_025_000n);
    if (second.sent.send?.kind !== 'sent' || first.sent.send?.kind !== 'sent') throw new Error('not sent');
    expect(settled.payout.txHash).toBe(second.sent.send.txHash.toLowerCase());
    expect(second.sent.send.txHash).not.toBe(first.sent.send.txHash);
    expect((await payoutEvents(payment.id)).map((e) => e.merchant_received_base_units)).toEqual([
      payment.quote.merchantShareBaseUnits.toString(),
      (25_000n - commission).toString(),
    ]);
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
      const settled = await stored(payment.id);
      expect(settledBaseUnits(settled.payout)).toBe(payment.quote.usdcBaseUnits);
      expect(settled.payout.txHash).toBe(sent.send.txHash.toLowerCase());
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
    }
    const shares = payments.reduce((sum, p) => sum + p.quote.merchantShareBaseUnits, 0n);
    expect((await h.balanceOf(h.addresses.merchant)) - before).toBe(shares);
  });

  it('treasury blacklisted: merchants still get exactly their share, the treasury its commission once it can receive — no command', async () => {
    const payments = [await paidPayment('27'), await paidPayment('4.4')];
    const before = await Promise.all(payments.map(balances));
    await h.control('blacklist', h.addresses.treasury);

    await settleFully();
    const commissions = payments.reduce((sum, p) => sum + p.quote.commissionBaseUnits, 0n);
    const shares = payments.reduce((sum, p) => sum + p.quote.merchantShareBaseUnits, 0n);
    expect((await h.balanceOf(h.addresses.merchant)) - before[0]!.merchant).toBe(shares);
    expect((await h.balanceOf(h.addresses.treasury)) - before[0]!.treasury).toBe(0n);
    for (const payment of payments) {
      // The commission waits in the forwarder, for the treasury alone; the merchant's payout is done.
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(payment.quote.commissionBaseUnits);
      expect(await statusBody(payment.id)).toMatchObject({ payout_status: 'sent' });
      expect((await stored(payment.id)).payout).toMatchObject({
        merchantPaidBaseUnits: payment.quote.merchantShareBaseUnits,
        treasuryPaidBaseUnits: 0n,
        blockedSince: null,
        commissionBlockedReason: BLACKLISTED,
        failures: 1,
      });
    }
    expect(logs()).toContain(BLACKLISTED);

    // Back-off: nothing is tried before it ends; then it is tried, and still refused.
    const nonce = await relayerNonce();
    expect((await settle()).send).toEqual({ kind: 'idle' });
    h.clock.advance(10_000);
    expect((await settle()).send).toMatchObject({ kind: 'stuck' });
    expect(await relayerNonce()).toBe(nonce);
    const waiting = (await stored(payments[0]!.id)).payout;
    expect(waiting.failures).toBe(2);
    expect(waiting.retryAt!.getTime() - h.clock.now().getTime()).toBe(20_000);

    // Un-blacklisted: the next retry sends each commission, exactly, with no operator involved.
    await h.control('unBlacklist', h.addresses.treasury);
    await drive(3, 20_000);
    expect((await h.balanceOf(h.addresses.treasury)) - before[0]!.treasury).toBe(commissions);
    expect((await h.balanceOf(h.addresses.merchant)) - before[0]!.merchant).toBe(shares);
    for (const payment of payments) {
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
      expect((await stored(payment.id)).payout).toMatchObject({
        treasuryPaidBaseUnits: payment.quote.commissionBaseUnits,
        failures: 0,
        retryAt: null,
        commissionBlockedSince: null,
      });
      // The merchant heard once, when its own money went out.
      expect((await payoutEvents(payment.id)).map((e) => e.event)).toEqual(['payment.payout_sent']);
    }
  });

  it('a version 1 payment held up by a blacklisted treasury says why, and resumes on its own', async () => {
    const payment = await paidPayment('5', undefined, 1);
    await h.control('blacklist', h.addresses.treasury);
    expect((await settle()).send).toEqual({ kind: 'stuck', paymentIds: [payment.id] });
    // Version 1 reverts the whole flush: the merchant waits too, and the token's words say why.
    expect((await stored(payment.id)).payout).toMatchObject({
      blockedReason: BLACKLISTED,
      commissionBlockedReason: BLACKLISTED,
      failures: 1,
    });
    await h.control('unBlacklist', h.addresses.treasury);
    await drive(3, 10_000);
    expect(await settledOf(payment.id)).toBe(5_000_000n);
    expect((await stored(payment.id)).payout).toMatchObject({
      blockedSince: null,
      commissionBlockedSince: null,
    });
  });

  it('token paused for 60 s: nothing is sent while paused, and every payout goes out on its own after unpause', async () => {
    const payments = [await paidPayment('1'), await paidPayment('2'), await paidPayment('3')];
    const before = await h.balanceOf(h.addresses.merchant);
    await h.control('pause');
    // Read after the pause: in this harness the relayer's account also owns the token.
    const nonce = await relayerNonce();
    expect((await settle()).send).toMatchObject({ kind: 'stuck' });
    for (const payment of payments) {
      expect((await stored(payment.id)).payout).toMatchObject({
        blockedReason: PAUSED,
        commissionBlockedReason: PAUSED,
      });
    }
    // 60 s of passes every 5 s: retries come as each back-off ends, all refused, and no gas is spent.
    const whilePaused = await drive(12, 5_000);
    expect(whilePaused.some((r) => r.send?.kind === 'stuck')).toBe(true);
    expect(await relayerNonce()).toBe(nonce);
    expect((await stored(payments[0]!.id)).payout.failures).toBeGreaterThanOrEqual(3);

    await h.control('unpause');
    await drive(40, 5_000);
    const shares = payments.reduce((sum, p) => sum + p.quote.merchantShareBaseUnits, 0n);
    expect((await h.balanceOf(h.addresses.merchant)) - before).toBe(shares);
    for (const payment of payments) {
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
      expect((await stored(payment.id)).payout).toMatchObject({ failures: 0, blockedSince: null });
      expect((await statusBody(payment.id)).payout_status).toBe('sent');
    }
  });

  it('merchant blacklisted: the treasury is paid, the merchant is told of the delay once, then paid on un-blacklisting — signed webhooks with exact amounts', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      await h.stores.merchants.save({ ...h.merchant, webhookUrl: receiver.url() });
      const payment = await paidPayment('40');
      const { quote } = payment;
      await h.control('blacklist', h.addresses.merchant);

      await settleFully();
      expect(await h.balanceOf(h.addresses.treasury)).toBe(quote.commissionBaseUnits);
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(quote.merchantShareBaseUnits);
      expect(await statusBody(payment.id)).toMatchObject({ payout_status: 'pending' });

      // Failing for 10 minutes makes it delayed, with the token's reason, and owes one payment.payout_delayed.
      await drive(9, 60_000);
      expect((await statusBody(payment.id)).payout_status).toBe('pending');
      await drive(3, 60_000);
      expect(await statusBody(payment.id)).toMatchObject({
        payout_status: 'delayed',
        payout_delayed_reason: BLACKLISTED,
      });
      expect((await payoutEvents(payment.id)).map((e) => e.event)).toEqual(['payment.payout_delayed']);

      await h.control('unBlacklist', h.addresses.merchant);
      // The back-off after a dozen failures is capped at an hour: still tried, with no command.
      await drive(3, 60 * 60_000);
      expect(await h.balanceOf(h.addresses.merchant)).toBe(quote.merchantShareBaseUnits);
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
      expect(await statusBody(payment.id)).toMatchObject({ payout_status: 'sent' });

      const webhookDeps = {
        webhooks: h.stores.webhooks,
        clock: h.clock,
        logger,
        sender: createWebhookSender({ allowPrivate: true, timeoutMs: 5_000 }),
        config: { retryScheduleMs: [5_000], leaseMs: 60_000 },
      };
      await dispatchWebhooks(webhookDeps);
      await webhookDeps.sender.close();
      const bodies = receiver.received.map(
        (r) => verifyAsMerchant(h.merchant.webhookSecret, r) as Record<string, unknown>,
      );
      const payouts = bodies.filter((b) => String(b.event).startsWith('payment.payout_'));
      expect(payouts).toEqual([
        expect.objectContaining({
          event: 'payment.payout_delayed',
          payment_id: payment.id,
          payout_status: 'delayed',
          payout_delayed_reason: BLACKLISTED,
          payout_delayed_since: expect.any(String),
        }),
        expect.objectContaining({
          event: 'payment.payout_sent',
          payment_id: payment.id,
          payout_status: 'sent',
          merchant_received_base_units: quote.merchantShareBaseUnits.toString(),
          // The commission went out in the earlier flush.
          treasury_received_base_units: '0',
        }),
      ]);
    } finally {
      await receiver.stop();
    }
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
    expect(await settledOf(payment.id)).toBe(0n);
    // The balance every process's /metrics reports.
    expect(await h.stores.settlements.relayerBalances()).toMatchObject([
      { chainId: h.anvil.chain.id, balanceWei: 0n, lowBalanceWei: ONE_ETHER },
    ]);

    // Enough for the flush but under the 1 POL low-balance mark: it settles, and says the balance is low.
    await h.anvil.testClient.setBalance({ address: h.addresses.relayer, value: ONE_ETHER / 100n });
    await settleFully();
    expect(logs()).toContain('relayer gas balance low');
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
    expect(await settledOf(payment.id)).toBe(10_000_000n);
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
    expect(await settle(settler())).toEqual({ inFlight: null, send: { kind: 'idle' }, delayNotices: [] });

    const after = await balances(payment);
    expect(after.merchant - before.merchant).toBe(payment.quote.merchantShareBaseUnits);
    expect(after.treasury - before.treasury).toBe(payment.quote.commissionBaseUnits);
    expect(await settledOf(payment.id)).toBe(10_000_000n);
    expect(await payoutEvents(payment.id)).toHaveLength(1);
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
    expect(await settledOf(payment.id)).toBe(10_000_000n);
  });

  it('with confirmations:3, applies a mined flush with exactly 3 blocks on top of it, not one block before', async () => {
    const payment = await paidPayment('10');
    const deps = settler({
      chain: chainReader(createRpcClient([h.anvil.rpcUrl]), { kind: 'confirmations', confirmations: 3 }),
    });
    const sent = await settle(deps);
    if (sent.send?.kind !== 'sent') throw new Error('not sent');
    const minedIn = (
      await h.anvil.publicClient.getTransactionReceipt({ hash: sent.send.txHash as `0x${string}` })
    ).blockNumber;
    const confirmationsNow = async () =>
      (await h.anvil.publicClient.getBlockNumber({ cacheTime: 0 })) - minedIn;

    await h.anvil.testClient.mine({ blocks: 2 });
    expect(await confirmationsNow()).toBe(2n);
    expect((await settle(deps)).inFlight).toMatchObject({ kind: 'awaiting-finality' });
    expect(await settledOf(payment.id)).toBe(0n);
    expect((await statusBody(payment.id)).payout_status).toBe('pending');

    await h.anvil.testClient.mine({ blocks: 1 });
    expect(await confirmationsNow()).toBe(3n);
    expect((await settle(deps)).inFlight).toMatchObject({ kind: 'confirmed', txHash: sent.send.txHash });
    expect(await settledOf(payment.id)).toBe(10_000_000n);
  });

  it('a nonce taken by another transaction of the relayer key: the settlement is dropped, and the payout sent once on the next nonce', async () => {
    const payment = await paidPayment('10');
    const before = await balances(payment);
    const real = settler().relayer;
    const crashing: Relayer = {
      ...real,
      broadcast: async () => {
        throw new Error('process killed before broadcasting');
      },
    };
    await expect(settle(settler({ relayer: crashing }))).rejects.toThrow('process killed');
    const [persisted] = await transactionRows();
    // Meanwhile the operator used the relayer's key for something else: that transaction takes the nonce.
    const other = await h.anvil
      .wallet(ROLES.relayer)
      .sendTransaction({ to: h.addresses.treasury, value: 1n });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: other });
    const otherNonce = (await h.anvil.publicClient.getTransaction({ hash: other })).nonce;
    expect(BigInt(otherNonce)).toBe(BigInt(persisted!.nonce));

    const dropped = await settle(settler());
    expect(dropped.inFlight).toMatchObject({ kind: 'dropped' });
    expect(logs()).toContain('settlement dropped; its payments are released');
    expect(await settledOf(payment.id)).toBe(0n);
    await h.finalizeAll();
    await drive(4, 61_000);

    const rows = await settlementRows();
    expect(rows.map((row) => row.status)).toEqual(['failed', 'confirmed']);
    const mined = (await transactionRows()).filter((row) => row.status === 'mined');
    expect(mined).toHaveLength(1);
    expect(BigInt(mined[0]!.nonce)).toBe(BigInt(persisted!.nonce) + 1n);
    const after = await balances(payment);
    expect(after.merchant - before.merchant).toBe(payment.quote.merchantShareBaseUnits);
    expect(after.treasury - before.treasury).toBe(payment.quote.commissionBaseUnits);
    expect(await settledOf(payment.id)).toBe(10_000_000n);
  });

  it('a node that reports an old nonce never makes the settler reuse one of its own', async () => {
    await paidPayment('1');
    const { sent: first } = await settleFully();
    if (first.send?.kind !== 'sent') throw new Error('not sent');
    const payment = await paidPayment('2');
    const real = settler().relayer;
    // A fallback RPC a block behind: it has not seen the settler's last transaction yet.
    const lagging: Relayer = { ...real, nonce: async () => (await real.nonce()) - 1n };
    const deps = settler({ relayer: lagging });
    const sent = await settle(deps);
    expect(sent.send).toMatchObject({ kind: 'sent', broadcast: true, nonce: first.send.nonce + 1n });
    await h.finalizeAll();
    expect((await settle(deps)).inFlight).toMatchObject({ kind: 'confirmed' });
    expect(await settledOf(payment.id)).toBe(2_000_000n);
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
    const settled = await stored(payment.id);
    expect(settledBaseUnits(settled.payout)).toBe(10_000_000n);
    expect(settled.payout.txHash).toBe(replacement!.tx_hash);
  });

  /**
   * A forwarder whose flush reverts outright (not a refused transfer, which version 2 absorbs): its deposit
   * address is given code that always reverts, so the factory skips the deployment and its flush call reverts —
   * the whole batch with it. The params stay valid, so the off-chain checks pass.
   */
  it('a batch never waits on its worst member; the worst is retried with a growing back-off, never given up', async () => {
    const good1 = await paidPayment('1');
    const bad = await paidPayment('2');
    const good2 = await paidPayment('3');
    await h.anvil.testClient.setCode({
      address: bad.deposit!.depositAddress as `0x${string}`,
      bytecode: ALWAYS_REVERTS,
    });

    const { sent } = await settleFully();
    if (sent.send?.kind !== 'sent') throw new Error('not sent');
    expect([...sent.send.paymentIds].sort()).toEqual([good1.id, good2.id].sort());
    expect(logs()).toContain('payout cannot be sent now');
    for (const good of [good1, good2]) expect(await settledOf(good.id)).toBe(good.quote.usdcBaseUnits);
    expect((await stored(bad.id)).payout).toMatchObject({
      failures: 1,
      blockedReason: 'reverted without a reason',
    });

    // Retried at each back-off's end (10 s, 20 s, 40 s …), refused each time, nothing sent, never set aside.
    const nonce = await relayerNonce();
    const waits: number[] = [];
    for (let failures = 1; failures <= 7; failures += 1) {
      const payout = (await stored(bad.id)).payout;
      waits.push(payout.retryAt!.getTime() - h.clock.now().getTime());
      expect((await settle()).send).toEqual({ kind: 'idle' });
      h.clock.set(payout.retryAt!);
      expect((await settle()).send).toEqual({ kind: 'stuck', paymentIds: [bad.id] });
    }
    expect(waits).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000]);
    expect(await relayerNonce()).toBe(nonce);
    expect(await h.balanceOf(bad.deposit!.depositAddress)).toBe(2_000_000n);

    // The cause removed: it settles at its next retry, with no operator.
    await h.anvil.testClient.setCode({
      address: bad.deposit!.depositAddress as `0x${string}`,
      bytecode: '0x',
    });
    h.clock.set((await stored(bad.id)).payout.retryAt!);
    await settleFully();
    expect(await h.balanceOf(bad.deposit!.depositAddress)).toBe(0n);
    expect((await stored(bad.id)).payout).toMatchObject({ failures: 0, retryAt: null, blockedSince: null });
    expect(await settledOf(bad.id)).toBe(2_000_000n);
  });

  it('a batch that reverts on chain fails; its payments wait their back-off and the good ones settle', async () => {
    const good = await paidPayment('1');
    const bad = await paidPayment('2');
    await h.anvil.testClient.setAutomine(false);
    const sent = await settle();
    expect(sent.send).toMatchObject({ kind: 'sent', paymentIds: expect.arrayContaining([good.id, bad.id]) });
    // Between the simulation and the block, the bad forwarder starts reverting: the whole batch reverts.
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
    expect(await failuresOf(good.id)).toBe(1);
    expect((await stored(good.id)).payout.blockedReason).toMatch(
      /^settlement transaction 0x[0-9a-f]{64} reverted$/,
    );
    await drive(6, 10_000);
    expect(await settledOf(good.id)).toBe(1_000_000n);
    expect(await failuresOf(good.id)).toBe(0);
    expect(await failuresOf(bad.id)).toBeGreaterThanOrEqual(2);
    expect((await settlementRows()).map((s) => s.status)).toEqual(['failed', 'confirmed']);
    expect(await h.balanceOf(bad.deposit!.depositAddress)).toBe(2_000_000n);
  });

  it('does not flush a payment whose stored params do not yield its deposit address, and says why', async () => {
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
    expect(await failuresOf(tampered.id)).toBe(1);
    expect((await stored(tampered.id)).payout.blockedReason).toContain('do not yield the deposit address');
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
    await until(
      'two failed passes',
      async () => (logs().match(/background job failed/g) ?? []).length,
      (failed) => failed >= 2,
      { everyMs: 25 },
    );
    stopBroken.abort();
    await brokenLoop;
    // An unreachable node is nobody's fault: no payment counts a failure for it.
    expect(await failuresOf(payment.id)).toBe(0);

    const stop = new AbortController();
    const loop = runSettler(settler(), { ...options(), intervalMs: 5, signal: stop.signal });
    await until(
      'the settlement',
      async () => {
        await h.anvil.testClient.mine({ blocks: 1 });
        return settledOf(payment.id);
      },
      (settled) => settled === 10_000_000n,
      { everyMs: 25 },
    );
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
