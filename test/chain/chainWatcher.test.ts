import { type Address, encodeFunctionData } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import type { ChainReader } from '../../src/app/chain/ports.ts';
import { expirePayments } from '../../src/app/chain/refreshPayments.ts';
import { type ChainHarness, PAYMENT_TTL_MS, ROLES, startChainHarness } from '../helpers/chainHarness.ts';
import { dialects } from '../helpers/database.ts';

describe.each(dialects)('chain watcher on anvil, %s', (dialect) => {
  let h: ChainHarness;
  beforeEach(async () => {
    h = await startChainHarness(dialect);
  });
  afterEach(() => h.close());

  const eventTypes = async (paymentId: string) =>
    (await h.stores.ledger.listEvents(paymentId)).map((e) => e.type);
  /** Moves the test clock and the chain's clock forward together. */
  const advanceTime = async (ms: number) => {
    h.clock.advance(ms);
    await h.anvil.testClient.increaseTime({ seconds: Math.ceil(ms / 1000) });
    await h.anvil.testClient.mine({ blocks: 1 });
  };

  it('an exact payment goes processing, then paid once final, with its block time and txid', async () => {
    const payment = await h.createPayment('25.50');
    const tx = await h.pay(payment.deposit!.depositAddress, 25_500_000n);
    await h.poll();
    expect((await h.status(payment.id)).state.status).toBe('processing');
    expect(await eventTypes(payment.id)).toEqual(['payment.processing']);

    await h.finalizeAll();
    await h.poll();
    const { payment: stored, state } = await h.status(payment.id);
    expect(stored.status).toBe('paid');
    expect(state).toMatchObject({ status: 'paid', amountReceivedBaseUnits: 25_500_000n, late: false });
    const receipt = await h.anvil.publicClient.getTransactionReceipt({ hash: tx });
    const block = await h.anvil.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(state.paidAt).toStrictEqual(new Date(Number(block.timestamp) * 1000));
    expect(stored.txid).toBe(tx);
    expect(await eventTypes(payment.id)).toEqual(['payment.processing', 'payment.paid']);
    const paidEvent = (await h.stores.ledger.listEvents(payment.id))[1]!;
    expect(JSON.parse(paidEvent.payload)).toMatchObject({
      event: 'payment.paid',
      payment_id: payment.id,
      status: 'paid',
      txid: tx,
      payout_amount: '24.8625 USDC', // 25.50 − 2.5% (0.6375)
      coin_type: 'polygon_usdc',
    });
  });

  it('two transfers complete one payment; paid_at is the block of the second', async () => {
    const payment = await h.createPayment('10');
    await h.pay(payment.deposit!.depositAddress, 4_000_000n);
    const second = await h.pay(payment.deposit!.depositAddress, 6_000_000n);
    await h.finalizeAll();
    await h.poll();
    const { payment: stored, state } = await h.status(payment.id);
    expect(state.status).toBe('paid');
    expect(state.amountReceivedBaseUnits).toBe(10_000_000n);
    expect(stored.txid).toBe(second);
  });

  it('records an overpayment as amount received', async () => {
    const payment = await h.createPayment('10');
    await h.pay(payment.deposit!.depositAddress, 12_345_678n);
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).state).toMatchObject({
      status: 'paid',
      amountReceivedBaseUnits: 12_345_678n,
    });
  });

  it('fails an underpayment at expiry, then a top-up makes it paid and late', async () => {
    const payment = await h.createPayment('10');
    await h.pay(payment.deposit!.depositAddress, 7_000_000n);
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('processing');

    await advanceTime(PAYMENT_TTL_MS + 1_000);
    const expired = await expirePayments({ ledger: h.stores.ledger, clock: h.clock });
    expect(expired.map((c) => c.to)).toEqual(['failed']);
    expect(await eventTypes(payment.id)).toEqual(['payment.processing', 'payment.failed']);

    await h.pay(payment.deposit!.depositAddress, 3_000_000n);
    await h.finalizeAll();
    await h.poll();
    const { payment: stored, state } = await h.status(payment.id);
    expect(stored.status).toBe('paid');
    expect(state.late).toBe(true);
    // The top-up is seen before it is final: "payment detected" again, then paid (docs/decisions/0003).
    expect(await eventTypes(payment.id)).toEqual([
      'payment.processing',
      'payment.failed',
      'payment.processing',
      'payment.paid',
    ]);
  });

  it('expires a payment nobody paid', async () => {
    const payment = await h.createPayment('10');
    await advanceTime(PAYMENT_TTL_MS + 1_000);
    await h.poll();
    await expirePayments({ ledger: h.stores.ledger, clock: h.clock });
    expect((await h.status(payment.id)).payment.status).toBe('expired');
    expect(await eventTypes(payment.id)).toEqual(['payment.expired']);
  });

  it('sees a payment paid before the watcher’s first pass, however late that pass comes', async () => {
    // The API sold the link while no watcher had run yet (started first, or the node unreachable).
    const payment = await h.createPayment('10');
    await h.pay(payment.deposit!.depositAddress, 10_000_000n);
    await h.anvil.testClient.mine({ blocks: 20 });
    // The first pass, with no configured start block: it must not start at the head it finds.
    const result = await h.poll({ startBlock: undefined });
    expect(result.nextBlock).toBe(result.head + 1n);
    expect((await h.status(payment.id)).payment.status).toBe('paid');
  });

  it('starts a new cursor at the head when no payment exists yet', async () => {
    await h.anvil.testClient.mine({ blocks: 5 });
    const head = await h.anvil.publicClient.getBlockNumber({ cacheTime: 0 });
    const first = await h.poll({ startBlock: undefined });
    expect(first.nextBlock).toBe(head + 1n);
    expect(h.logs()).toContain(`"startBlock":"${head}"`);
  });

  it('a reorg removing a seen transfer takes the payment back to pending, and tells the merchant so', async () => {
    const payment = await h.createPayment('10');
    await h.poll();
    await h.pay(payment.deposit!.depositAddress, 10_000_000n);
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('processing');

    // Replace the last block (the one holding the transfer) with an empty one.
    await h.anvil.testClient.request({ method: 'anvil_reorg', params: [1, []] } as never);
    const result = await h.poll();
    expect(result.reorgDepth).toBeGreaterThan(0);
    const { payment: stored, state } = await h.status(payment.id);
    expect(stored.status).toBe('pending');
    expect(state.amountSeenBaseUnits).toBe(0n);
    // After payment.processing, the merchant is told the transfer is gone: not left waiting for a payment.
    const events = await h.stores.ledger.listEvents(payment.id);
    expect(events.map((e) => e.type)).toEqual(['payment.processing', 'payment.pending']);
    expect(JSON.parse(events[1]!.payload)).toMatchObject({
      event: 'payment.pending',
      payment_id: payment.id,
      status: 'pending',
      txid: null,
      paid_at: null,
    });
    const transfers = await h.stores.ledger.listTransfers(payment.id);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.orphaned).toBe(true);

    // Finality never resurrects an orphaned transfer.
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('pending');
    expect(await eventTypes(payment.id)).toEqual(['payment.processing', 'payment.pending']);
  });

  it('a transfer re-mined in another block after a reorg counts once', async () => {
    const payment = await h.createPayment('10');
    const tx = await h.pay(payment.deposit!.depositAddress, 10_000_000n);
    await h.poll();
    const raw = await h.anvil.publicClient.getTransaction({ hash: tx });
    // Reorg the block away but include the same transaction again in the replacement block.
    const signed = await h.anvil.testClient.request({
      method: 'eth_getRawTransactionByHash',
      params: [tx],
    } as never);
    await h.anvil.testClient.request({ method: 'anvil_reorg', params: [1, [[signed, 0]]] } as never);
    expect(raw.hash).toBe(tx);
    await h.poll();
    await h.finalizeAll();
    await h.poll();
    const { state } = await h.status(payment.id);
    expect(state).toMatchObject({ status: 'paid', amountReceivedBaseUnits: 10_000_000n });
    const transfers = await h.stores.ledger.listTransfers(payment.id);
    expect(transfers.filter((t) => !t.orphaned)).toHaveLength(1);
    // Each committed change is announced: the reorg's return to pending, then the transfer seen again.
    expect(await eventTypes(payment.id)).toEqual([
      'payment.processing',
      'payment.pending',
      'payment.processing',
      'payment.paid',
    ]);
  });

  it('a transfer reorged away in one pass and mined again in a later one: pending, then processing again', async () => {
    const payment = await h.createPayment('10');
    const tx = await h.pay(payment.deposit!.depositAddress, 10_000_000n);
    await h.poll();
    const signed = await h.anvil.testClient.request({
      method: 'eth_getRawTransactionByHash',
      params: [tx],
    } as never);
    await h.anvil.testClient.request({ method: 'anvil_reorg', params: [1, []] } as never);
    await h.poll();
    expect((await h.status(payment.id)).payment).toMatchObject({
      status: 'pending',
      announcedStatus: 'pending',
    });
    const again = await h.anvil.testClient.request({
      method: 'eth_sendRawTransaction',
      params: [signed],
    } as never);
    // Mined before the pass reads the chain (on a loaded machine the answer can come before the block).
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: again as `0x${string}` });
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('processing');
    expect(await eventTypes(payment.id)).toEqual([
      'payment.processing',
      'payment.pending',
      'payment.processing',
    ]);
  });

  /** The status now, with the transfer's block and the finalized block the chain reports. */
  const blockOf = async (tx: `0x${string}`) =>
    (await h.anvil.publicClient.getTransactionReceipt({ hash: tx })).blockNumber;

  it('counts a transfer final when the finalized block reaches its block, and not one block before', async () => {
    const payment = await h.createPayment('10');
    const transferBlock = await blockOf(await h.pay(payment.deposit!.depositAddress, 10_000_000n));
    const seen = new Map<bigint, string>();
    for (let i = 0; i < 6 && !seen.has(transferBlock); i += 1) {
      // Nothing else is mined meanwhile: the finalized block read here is the one the pass sees.
      const finalized = (await h.anvil.publicClient.getBlock({ blockTag: 'finalized' })).number;
      await h.poll();
      seen.set(finalized, (await h.status(payment.id)).payment.status);
      await h.anvil.testClient.mine({ blocks: 1 });
    }
    expect(seen.get(transferBlock - 1n)).toBe('processing');
    expect(seen.get(transferBlock)).toBe('paid');
  });

  it('with confirmations:3 against the chain, a transfer is final with exactly 3 blocks on top of it', async () => {
    const confirmations = chainReader(createRpcClient([h.anvil.rpcUrl]), {
      kind: 'confirmations',
      confirmations: 3,
    });
    const payment = await h.createPayment('10');
    const transferBlock = await blockOf(await h.pay(payment.deposit!.depositAddress, 10_000_000n));
    const statusAtHead = async () => {
      await h.poll({}, confirmations);
      const head = await h.anvil.publicClient.getBlockNumber({ cacheTime: 0 });
      return [head - transferBlock, (await h.status(payment.id)).payment.status] as const;
    };
    expect(await statusAtHead()).toEqual([0n, 'processing']);
    await h.anvil.testClient.mine({ blocks: 2 });
    expect(await statusAtHead()).toEqual([2n, 'processing']);
    await h.anvil.testClient.mine({ blocks: 1 });
    expect(await statusAtHead()).toEqual([3n, 'paid']);
  });

  it('a transfer in a block timestamped exactly at expires_at is on time; one second later is late', async () => {
    const onTime = await h.createPayment('10');
    const late = await h.createPayment('10');
    expect(late.expiresAt).toEqual(onTime.expiresAt);
    const expiresAtS = BigInt(onTime.expiresAt.getTime()) / 1000n;
    expect(expiresAtS * 1000n).toBe(BigInt(onTime.expiresAt.getTime())); // a whole second: the chain's unit
    await h.anvil.testClient.setNextBlockTimestamp({ timestamp: expiresAtS });
    await h.pay(onTime.deposit!.depositAddress, 10_000_000n);
    await h.anvil.testClient.setNextBlockTimestamp({ timestamp: expiresAtS + 1n });
    await h.pay(late.deposit!.depositAddress, 10_000_000n);
    h.clock.advance(PAYMENT_TTL_MS + 60_000);
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(onTime.id)).state).toMatchObject({
      status: 'paid',
      late: false,
      paidAt: onTime.expiresAt,
    });
    expect((await h.status(late.id)).state).toMatchObject({
      status: 'paid',
      late: true,
      paidAt: new Date(onTime.expiresAt.getTime() + 1_000),
    });
  });

  it('a zero-value transfer changes nothing: the payment stays pending, then expires, never fails', async () => {
    const payment = await h.createPayment('10');
    await h.pay(payment.deposit!.depositAddress, 0n);
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).state).toMatchObject({ status: 'pending', amountSeenBaseUnits: 0n });
    expect(await eventTypes(payment.id)).toEqual([]);
    await advanceTime(PAYMENT_TTL_MS + 1_000);
    await h.poll();
    await expirePayments({ ledger: h.stores.ledger, clock: h.clock });
    expect((await h.status(payment.id)).payment.status).toBe('expired');
    expect(await eventTypes(payment.id)).toEqual(['payment.expired']);
  });

  it('a range whose last block is replaced while its logs are read is not recorded, and is read again', async () => {
    const payment = await h.createPayment('10');
    await h.poll();
    await h.anvil.testClient.mine({ blocks: 1 }); // the next range's last block, empty when its logs are read
    // The customer's transfer, signed now and mined only in the block that replaces that one.
    const customer = h.anvil.wallet(ROLES.customer);
    const signed = await customer.signTransaction(
      await customer.prepareTransactionRequest({
        to: h.usdc,
        data: encodeFunctionData({
          abi: testUsdcAbi,
          functionName: 'transfer',
          args: [payment.deposit!.depositAddress as Address, 10_000_000n],
        }),
      }),
    );
    const real = chainReader(createRpcClient([h.anvil.rpcUrl]), { kind: 'finalized' });
    let replaced = false;
    const racing: ChainReader = {
      ...real,
      async transferLogs(tokens, from, to) {
        const logs = await real.transferLogs(tokens, from, to);
        if (!replaced) {
          replaced = true;
          await h.anvil.testClient.request({ method: 'anvil_reorg', params: [1, [[signed, 0]]] } as never);
        }
        return logs;
      },
    };
    // Recording that range would skip the transfer for good: the cursor would move past its block.
    await expect(h.poll({}, racing)).rejects.toThrow('changed during the scan');
    expect(await h.stores.ledger.listTransfers(payment.id)).toEqual([]);
    await h.poll();
    expect((await h.status(payment.id)).state).toMatchObject({
      status: 'processing',
      amountSeenBaseUnits: 10_000_000n,
    });
  });

  it('ignores another token, transfers to unknown addresses, and transfers out of a deposit address', async () => {
    const payment = await h.createPayment('10');
    const otherToken = await deployTestUsdc(h.anvil.wallet(3), h.anvil.publicClient);
    const mint = await h.anvil.wallet(3).writeContract({
      address: otherToken,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [h.addresses.customer, 100_000_000n],
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: mint });
    await h.pay(payment.deposit!.depositAddress, 10_000_000n, { token: otherToken });
    await h.pay('0x000000000000000000000000000000000000dEaD', 10_000_000n);
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('pending');
    expect(await h.stores.ledger.listTransfers(payment.id)).toHaveLength(0);
  });

  it('resumes after a crash before the cursor moved without counting anything twice', async () => {
    const payment = await h.createPayment('10');
    await h.pay(payment.deposit!.depositAddress, 5_000_000n);
    await h.finalizeAll();
    await h.poll();
    // As if the process died after recording the range but the next run starts from an older cursor.
    await h.database.handle.db.updateTable('chain_cursors').set({ next_block: 0 }).execute();
    await h.database.handle.db.deleteFrom('chain_blocks').execute();
    await h.poll();
    const { state } = await h.status(payment.id);
    expect(state.amountReceivedBaseUnits).toBe(5_000_000n);
    expect(await h.stores.ledger.listTransfers(payment.id)).toHaveLength(1);
    expect(await eventTypes(payment.id)).toEqual(['payment.processing']);
  });

  it('keeps block records only near the tip: old ones are pruned once deep below finality', async () => {
    await h.anvil.testClient.mine({ blocks: 400 });
    let result = await h.poll();
    while (result.lagBlocks > 0n) result = await h.poll();
    const blocks = await h.database.handle.db.selectFrom('chain_blocks').select('number').execute();
    const numbers = blocks.map((b) => BigInt(b.number));
    expect(numbers.length).toBeGreaterThan(0);
    expect(numbers.every((n) => n >= result.finalized - 128n)).toBe(true);
    // The last scanned block is still recorded, so the next reorg can be detected.
    expect(numbers).toContain(result.nextBlock - 1n);
  });

  it('scans one eth_getLogs per block range, whatever the number of open payments', async () => {
    for (let i = 0; i < 30; i += 1) await h.createPayment('1');
    const calls: string[] = [];
    const original = h.anvil.publicClient.request;
    await h.anvil.testClient.mine({ blocks: 120 });
    const spy = await import('../../src/adapters/chain/chainReader.ts');
    const client = spy.createRpcClient([h.anvil.rpcUrl]);
    const counting = new Proxy(client, {
      get(target, key, receiver) {
        if (key === 'getLogs') {
          return (...args: unknown[]) => {
            calls.push('getLogs');
            return (target.getLogs as (...a: unknown[]) => unknown)(...args);
          };
        }
        return Reflect.get(target, key, receiver);
      },
    });
    const { pollChainOnce } = await import('../../src/app/chain/watchChain.ts');
    const { capturingLogger } = await import('../helpers/logCapture.ts');
    const result = await pollChainOnce(
      {
        ledger: h.stores.ledger,
        chain: spy.chainReader(counting, { kind: 'finalized' }),
        clock: h.clock,
        logger: capturingLogger().logger,
      },
      {
        chainId: h.anvil.chain.id,
        tokens: [{ address: h.usdc.toLowerCase(), symbol: 'USDC', decimals: 6, accepted: true }],
        maxBlockRange: 50,
        startBlock: 0n,
      },
    );
    expect(original).toBeDefined();
    const head = await h.anvil.publicClient.getBlockNumber();
    expect(result.nextBlock).toBe(head + 1n);
    expect(calls).toHaveLength(Math.ceil(Number(head + 1n) / 50));
  });
});
