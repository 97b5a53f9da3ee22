import { describe, expect, it } from 'vitest';
import { FakeChain } from '../../../test/fakes/fakeChain.ts';
import { MemoryLedger } from '../../../test/fakes/memoryLedger.ts';
import {
  CHAIN_ID,
  depositAddress,
  testPayment,
  USDC,
  USDC_E,
  USDT,
} from '../../../test/fakes/paymentFixture.ts';
import { recordingLogger } from '../../../test/fakes/recordingLogger.ts';
import { NOW, pay, TEN_USDC, TOKENS, watcher } from '../../../test/fakes/watchedChain.ts';
import { ChainMovedError } from './blockReads.ts';
import { pollChainOnce } from './watchChain.ts';

describe('where a new cursor starts', () => {
  it('at the head when no payment exists yet, and says so', async () => {
    const chain = new FakeChain();
    chain.mine(10);
    const ledger = new MemoryLedger();
    const logger = recordingLogger();
    const deps = { ledger, chain, clock: { now: () => NOW }, logger };
    const result = await pollChainOnce(deps, { chainId: CHAIN_ID, tokens: TOKENS, maxBlockRange: 1000 });
    expect(chain.calls.transferLogs).toEqual([{ tokens: [USDC, USDC_E, USDT], from: 10n, to: 10n }]);
    expect(result).toMatchObject({ head: 10n, nextBlock: 11n, lagBlocks: 0n, reorgDepth: 0, changes: [] });
    expect(logger.lines[0]).toEqual({
      level: 'info',
      fields: { startBlock: '10' },
      message: 'chain watcher starts',
    });
    expect(await ledger.cursor(CHAIN_ID)).toEqual({
      chainId: CHAIN_ID,
      nextBlock: 11n,
      headBlock: 10n,
      finalizedBlock: 0n,
      updatedAt: NOW,
    });
  });

  it('at the configured start block, even with a payment created later', async () => {
    const chain = new FakeChain();
    chain.mine(400);
    const ledger = new MemoryLedger();
    ledger.addPayment(testPayment(1)); // created at 00:10, block 300; less the five minutes' margin, 150
    const deps = { ledger, chain, clock: { now: () => NOW }, logger: recordingLogger() };
    await pollChainOnce(deps, { chainId: CHAIN_ID, tokens: TOKENS, maxBlockRange: 1000, startBlock: 120n });
    expect(chain.calls.transferLogs[0]).toMatchObject({ from: 120n, to: 400n });
  });

  // Blocks are two seconds apart from midnight: block n is at n × 2 s.
  it.each([
    ['exactly at a block five minutes before the payment', '2026-01-01T00:10:00.000Z', 150n],
    ['a millisecond before that block', '2026-01-01T00:09:59.999Z', 149n],
    ['a millisecond after it', '2026-01-01T00:10:00.001Z', 150n],
    ['before the chain began', '2025-12-31T00:00:00.000Z', 0n],
  ])(
    'no later than the last block at or before the first payment, less five minutes: %s',
    async (_, created, start) => {
      const chain = new FakeChain();
      chain.mine(1000);
      const ledger = new MemoryLedger();
      ledger.addPayment(testPayment(1, { createdAt: new Date(created) }));
      ledger.addPayment(testPayment(2, { createdAt: new Date('2026-01-01T00:30:00.000Z') }));
      // A payment on another chain does not count.
      const elsewhere = testPayment(3, { createdAt: new Date('2025-01-01T00:00:00.000Z') });
      ledger.addPayment({ ...elsewhere, deposit: { ...elsewhere.deposit!, chainId: 1 } });
      const deps = { ledger, chain, clock: { now: () => NOW }, logger: recordingLogger() };
      await pollChainOnce(deps, { chainId: CHAIN_ID, tokens: TOKENS, maxBlockRange: 2000 });
      expect(chain.calls.transferLogs[0]).toMatchObject({ from: start, to: 1000n });
    },
  );

  it('at the head when the first payment is newer than the head block', async () => {
    const chain = new FakeChain();
    chain.mine(20); // the head is at 00:00:40
    const ledger = new MemoryLedger();
    ledger.addPayment(testPayment(1));
    const deps = { ledger, chain, clock: { now: () => NOW }, logger: recordingLogger() };
    await pollChainOnce(deps, { chainId: CHAIN_ID, tokens: TOKENS, maxBlockRange: 2000 });
    expect(chain.calls.transferLogs[0]).toMatchObject({ from: 20n, to: 20n });
  });
});

describe('a cursor at block 0', () => {
  it('scans from the genesis block without looking for a reorg below it', async () => {
    const chain = new FakeChain();
    chain.mine(3);
    const ledger = new MemoryLedger();
    const deps = { ledger, chain, clock: { now: () => NOW }, logger: recordingLogger() };
    const options = { chainId: CHAIN_ID, tokens: TOKENS, maxBlockRange: 1000, startBlock: 0n };
    // No range this pass: nothing scanned, nothing to make final below block 0.
    const idle = await pollChainOnce(deps, { ...options, maxRangesPerPass: 0 });
    expect(idle).toEqual({
      head: 3n,
      finalized: 0n,
      nextBlock: 0n,
      lagBlocks: 4n,
      reorgDepth: 0,
      changes: [],
    });
    const result = await pollChainOnce(deps, options);
    expect(result).toEqual({
      head: 3n,
      finalized: 0n,
      nextBlock: 4n,
      lagBlocks: 0n,
      reorgDepth: 0,
      changes: [],
    });
    expect(chain.calls.transferLogs).toEqual([{ tokens: [USDC, USDC_E, USDT], from: 0n, to: 3n }]);
  });
});

describe('scanning', () => {
  it('records a transfer to a deposit address, ignores the others, and announces processing', async () => {
    const w = await watcher({ payments: [testPayment(1), testPayment(2)] });
    const [log] = w.chain.mineTransfers([pay(1, 4_000_000n), pay(99)]);
    w.chain.mine(2);
    const result = await w.poll();

    const header = w.chain.header(log!.blockNumber);
    expect(w.ledger.allTransfers()).toEqual([
      {
        id: `${CHAIN_ID}:${header.hash}:0`,
        chainId: CHAIN_ID,
        paymentId: testPayment(1).id,
        txHash: log!.txHash,
        logIndex: 0,
        blockNumber: 6n,
        blockHash: header.hash,
        blockTimestamp: header.timestamp,
        tokenAddress: USDC,
        tokenSymbol: 'USDC',
        fromAddress: '0x00000000000000000000000000000000000000aa',
        toAddress: depositAddress(1).toLowerCase(),
        amountBaseUnits: 4_000_000n,
        final: false,
        orphaned: false,
      },
    ]);
    const [event] = w.ledger.allEvents();
    expect(event).toMatchObject({ paymentId: testPayment(1).id, type: 'payment.processing', createdAt: NOW });
    expect(result).toEqual({
      head: 8n,
      finalized: 0n,
      nextBlock: 9n,
      lagBlocks: 0n,
      reorgDepth: 0,
      changes: [{ paymentId: testPayment(1).id, from: 'pending', to: 'processing', eventId: event!.id }],
    });
    expect(w.ledger.payment(testPayment(1).id)).toMatchObject({ status: 'processing', txid: log!.txHash });
    expect(w.ledger.payment(testPayment(2).id).status).toBe('pending');
    // The range's end and the transfer's block, to notice a reorg by.
    expect(w.ledger.recordedBlocks(CHAIN_ID).map((b) => b.number)).toEqual([5n, 6n, 8n]);
    expect(w.ledger.recordedBlocks(CHAIN_ID)[1]!.hash).toBe(header.hash);
    expect(w.logger.lines).toEqual([
      {
        level: 'info',
        fields: { from: '6', to: '8', transfers: 1 },
        message: 'transfers recorded',
      },
    ]);
    expect(await w.ledger.cursor(CHAIN_ID)).toEqual({
      chainId: CHAIN_ID,
      nextBlock: 9n,
      headBlock: 8n,
      finalizedBlock: 0n,
      updatedAt: NOW,
    });
  });

  it('records a transfer once however often its range is scanned', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mineTransfers([pay(1, 1n)]);
    await w.poll();
    // A crash after the commit, then the same range again (the cursor of a process that did not see it).
    const cursor = (await w.ledger.cursor(CHAIN_ID))!;
    await w.ledger.transaction((tx) => tx.saveCursor({ ...cursor, nextBlock: 6n }));
    const again = await w.poll();
    expect(w.ledger.allTransfers()).toHaveLength(1);
    expect(again.changes).toEqual([]);
    expect(w.logger.lines.filter((l) => l.message === 'transfers recorded')).toHaveLength(2);
  });

  it('scans in ranges of maxBlockRange, at most maxRangesPerPass of them', async () => {
    const w = await watcher();
    w.chain.mine(10); // 6 … 15
    const result = await w.poll({ maxBlockRange: 3, maxRangesPerPass: 2 });
    expect(w.chain.calls.transferLogs.slice(1).map((c) => [c.from, c.to])).toEqual([
      [6n, 8n],
      [9n, 11n],
    ]);
    expect(result).toMatchObject({ head: 15n, nextBlock: 12n, lagBlocks: 4n });
    const rest = await w.poll({ maxBlockRange: 3, maxRangesPerPass: 2 });
    expect(w.chain.calls.transferLogs.slice(3).map((c) => [c.from, c.to])).toEqual([
      [12n, 14n],
      [15n, 15n],
    ]);
    expect(rest).toMatchObject({ nextBlock: 16n, lagBlocks: 0n });
  });

  it('scans at most twenty ranges a pass unless told otherwise', async () => {
    const w = await watcher();
    w.chain.mine(25);
    const result = await w.poll({ maxBlockRange: 1 });
    expect(w.chain.calls.transferLogs).toHaveLength(21);
    expect(result).toMatchObject({ nextBlock: 26n, lagBlocks: 5n });
  });

  it('reports no lag, not a negative one, while the head is below the start block', async () => {
    const chain = new FakeChain();
    chain.mine(10);
    const ledger = new MemoryLedger();
    const deps = { ledger, chain, clock: { now: () => NOW }, logger: recordingLogger() };
    const result = await pollChainOnce(deps, {
      chainId: CHAIN_ID,
      tokens: TOKENS,
      maxBlockRange: 1000,
      startBlock: 15n,
    });
    expect(result).toMatchObject({ head: 10n, nextBlock: 15n, lagBlocks: 0n });
    expect(chain.calls.transferLogs).toEqual([]);
    expect(await ledger.cursor(CHAIN_ID)).toMatchObject({ nextBlock: 15n, headBlock: 10n });
  });

  it('fetches the headers of many blocks with transfers, sixteen at a time, each at its own height', async () => {
    const w = await watcher({ payments: Array.from({ length: 40 }, (_, i) => testPayment(i + 1)) });
    for (let i = 1; i <= 40; i += 1) w.chain.mineTransfers([pay(i, 1n)]);
    await w.poll();
    const transfers = w.ledger.allTransfers();
    expect(transfers).toHaveLength(40);
    for (const t of transfers) {
      const header = w.chain.header(t.blockNumber);
      expect(t.blockTimestamp).toEqual(header.timestamp);
      expect(t.blockHash).toBe(header.hash);
    }
    expect(w.ledger.recordedBlocks(CHAIN_ID)).toHaveLength(41);
    expect(w.chain.maxConcurrentBlockReads).toBe(16);
  });

  it('records a zero-value transfer but counts nothing: no change, no event', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mineTransfers([pay(1, 0n)]);
    w.chain.finalizedTag = 6n;
    const result = await w.poll();
    expect(w.ledger.allTransfers()).toMatchObject([{ amountBaseUnits: 0n, final: true }]);
    expect(result.changes).toEqual([]);
    expect(w.ledger.allEvents()).toEqual([]);
    expect(w.ledger.payment(testPayment(1).id)).toMatchObject({ status: 'pending', txid: null });
    expect(w.ledger.receivedByToken(testPayment(1).id)).toEqual(new Map());
  });

  it('counts another accepted token like USDC and names it', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mineTransfers([pay(1, TEN_USDC, USDC_E)]);
    w.chain.finalizedTag = 6n;
    await w.poll();
    expect(w.ledger.payment(testPayment(1).id)).toMatchObject({
      status: 'paid',
      paidWith: { address: USDC_E, symbol: 'USDC.e' },
    });
    expect(w.ledger.receivedByToken(testPayment(1).id)).toEqual(new Map([[USDC_E, TEN_USDC]]));
  });

  it('records a token that does not pay apart, tells the merchant, and counts nothing', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    const [log] = w.chain.mineTransfers([pay(1, 5n, USDT)]);
    const result = await w.poll();
    expect(w.ledger.allTransfers()).toEqual([]);
    expect(w.ledger.allUnaccepted()).toEqual([
      {
        orphaned: false,
        transfer: {
          id: `${CHAIN_ID}:${log!.blockHash}:0`,
          chainId: CHAIN_ID,
          paymentId: testPayment(1).id,
          txHash: log!.txHash,
          blockNumber: 6n,
          blockHash: log!.blockHash,
          tokenAddress: USDT,
          tokenSymbol: 'USDT',
          tokenDecimals: 6,
          amountBaseUnits: 5n,
          fromAddress: '0x00000000000000000000000000000000000000aa',
          seenAt: NOW,
        },
      },
    ]);
    expect(result.changes).toEqual([]);
    expect(w.ledger.allEvents().map((e) => e.type)).toEqual(['payment.unaccepted_transfer']);
    expect(w.ledger.payment(testPayment(1).id).status).toBe('pending');
    expect(w.logger.lines).toEqual([
      {
        level: 'warn',
        fields: { transfers: [`USDT to ${testPayment(1).id}`] },
        message: 'tokens that do not pay were sent to payments; the merchants are told',
      },
    ]);
  });
});

describe('a chain that moves during the scan', () => {
  it('writes nothing when the range end changed while its logs were read', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mineTransfers([pay(1)]);
    w.chain.mine(2);
    const before = await w.ledger.cursor(CHAIN_ID);
    w.chain.duringNextLogRead = () => {
      w.chain.reorgFrom(8n);
      w.chain.mine();
    };
    const error = await w.poll().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainMovedError);
    expect(error).toMatchObject({ name: 'ChainMovedError', message: 'block 8 changed during the scan' });
    expect(w.ledger.allTransfers()).toEqual([]);
    expect(await w.ledger.cursor(CHAIN_ID)).toEqual(before);
    // The next pass reads it again, on the chain as it now is.
    await w.poll();
    expect(w.ledger.allTransfers()).toHaveLength(1);
  });

  it('writes nothing when the range end vanished while its logs were read', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mineTransfers([pay(1)]);
    w.chain.mine(2);
    w.chain.duringNextLogRead = () => w.chain.reorgFrom(8n);
    await expect(w.poll()).rejects.toThrow(ChainMovedError);
    expect(w.ledger.allTransfers()).toEqual([]);
  });

  it('writes nothing when a transfer’s block was replaced while the logs were read', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mineTransfers([pay(1)]);
    w.chain.mine(2);
    w.chain.duringNextLogRead = () => w.chain.replaceBlock(6n);
    await expect(w.poll()).rejects.toThrow(new ChainMovedError('block 6 was reorged during the scan'));
    expect(w.ledger.allTransfers()).toEqual([]);
    expect(w.ledger.recordedBlocks(CHAIN_ID).map((b) => b.number)).toEqual([5n]);
  });
});
