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
import type { Payment } from '../../domain/payment.ts';
import { ChainMovedError, pollChainOnce, type WatchChainOptions, type WatchedToken } from './watchChain.ts';

const TOKENS: readonly WatchedToken[] = [
  { address: USDC, symbol: 'USDC', decimals: 6, accepted: true },
  { address: USDC_E, symbol: 'USDC.e', decimals: 6, accepted: true },
  { address: USDT, symbol: 'USDT', decimals: 6, accepted: false },
];
const NOW = new Date('2026-01-01T00:20:00.000Z');
const TEN_USDC = 10_000_000n;

/** A chain of `blocks` mined blocks, an empty ledger, and a watcher whose first pass has already run. */
async function watcher(options: { blocks?: number; payments?: readonly Payment[] } = {}) {
  const chain = new FakeChain();
  chain.mine(options.blocks ?? 5);
  const ledger = new MemoryLedger();
  const logger = recordingLogger();
  let now = NOW;
  const deps = { ledger, chain, clock: { now: () => now }, logger };
  const poll = (more: Partial<WatchChainOptions> = {}) =>
    pollChainOnce(deps, { chainId: CHAIN_ID, tokens: TOKENS, maxBlockRange: 1000, ...more });
  await poll();
  for (const payment of options.payments ?? []) ledger.addPayment(payment);
  logger.lines.length = 0;
  return {
    chain,
    ledger,
    logger,
    poll,
    setNow: (at: Date) => {
      now = at;
    },
  };
}

const pay = (n: number, amountBaseUnits = TEN_USDC, token = USDC) => ({
  token,
  to: depositAddress(n),
  amountBaseUnits,
});

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

describe('finality', () => {
  it('makes a transfer final when its block is finalized, not a block before', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    const [log] = w.chain.mineTransfers([pay(1)]);
    w.chain.mine(3);
    w.chain.finalizedTag = 5n;
    const first = await w.poll();
    expect(first.changes.map((c) => c.to)).toEqual(['processing']);
    expect(w.ledger.allTransfers()).toMatchObject([{ final: false }]);

    w.chain.finalizedTag = 6n;
    const second = await w.poll();
    expect(w.ledger.allTransfers()).toMatchObject([{ final: true }]);
    const paid = w.ledger.allEvents().at(-1)!;
    expect(second.changes).toEqual([
      { paymentId: testPayment(1).id, from: 'processing', to: 'paid', eventId: paid.id },
    ]);
    expect(paid.type).toBe('payment.paid');
    expect(w.ledger.payment(testPayment(1).id)).toMatchObject({
      status: 'paid',
      paidAt: w.chain.header(6n).timestamp,
      amountReceivedBaseUnits: TEN_USDC,
      txid: log!.txHash,
    });
    expect(w.ledger.receivedByToken(testPayment(1).id)).toEqual(new Map([[USDC, TEN_USDC]]));
    expect((await w.ledger.cursor(CHAIN_ID))?.finalizedBlock).toBe(6n);
    expect(w.logger.lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('makes final only what was scanned, even when more is finalized', async () => {
    const w = await watcher({ payments: [testPayment(1), testPayment(2)] });
    w.chain.mineTransfers([pay(1)]); // 6
    w.chain.mineTransfers([pay(2)]); // 7
    w.chain.finalizedTag = 7n;
    const result = await w.poll({ maxBlockRange: 1, maxRangesPerPass: 1 });
    expect(result.nextBlock).toBe(7n);
    expect(w.ledger.allTransfers()).toMatchObject([{ blockNumber: 6n, final: true }]);
  });

  it('takes a finalized block above the head (a lagging node) as the head', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mineTransfers([pay(1)]);
    w.chain.finalizedTag = 50n;
    const result = await w.poll();
    expect(result).toMatchObject({ head: 6n, finalized: 6n });
    expect(w.ledger.allTransfers()).toMatchObject([{ final: true }]);
    expect((await w.ledger.cursor(CHAIN_ID))?.finalizedBlock).toBe(6n);
  });

  it('writes nothing when nothing changed, and the new finalized block when only that did', async () => {
    const w = await watcher();
    const begun = w.ledger.transactionsBegun;
    await w.poll();
    expect(w.ledger.transactionsBegun).toBe(begun);
    w.chain.finalizedTag = 3n;
    w.setNow(new Date('2026-01-01T00:21:00.000Z'));
    const result = await w.poll();
    expect(result.finalized).toBe(3n);
    expect(await w.ledger.cursor(CHAIN_ID)).toEqual({
      chainId: CHAIN_ID,
      nextBlock: 6n,
      headBlock: 5n,
      finalizedBlock: 3n,
      updatedAt: new Date('2026-01-01T00:21:00.000Z'),
    });
  });

  it('checks at most 200 transfers a pass and makes final only up to the last block it checked', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    for (let i = 0; i < 201; i += 1) w.chain.mineTransfers([pay(1, 1n)]);
    w.chain.finalizedTag = w.chain.head;
    await w.poll();
    const finalBlocks = w.ledger.allTransfers().filter((t) => t.final);
    expect(finalBlocks).toHaveLength(200);
    expect(w.ledger.allTransfers().find((t) => !t.final)?.blockNumber).toBe(206n);
    await w.poll();
    expect(w.ledger.allTransfers().filter((t) => t.final)).toHaveLength(201);
  });

  it('orphans a transfer whose block was replaced below the cursor, rewinds there, and rescans', async () => {
    const w = await watcher({ payments: [testPayment(1), testPayment(2)] });
    w.chain.mineTransfers([pay(1, 1n)]); // 6
    w.chain.mineTransfers([pay(2, TEN_USDC)]); // 7
    w.chain.mine(3); // 10
    await w.poll();
    const replacedId = w.ledger.allTransfers()[1]!.id;
    // Only block 7 answers differently now (a node that lost it, say): the last scanned block did not change.
    w.chain.replaceBlock(7n);
    w.chain.finalizedTag = 10n;
    const result = await w.poll();

    expect(w.ledger.allTransfers().map((t) => [t.blockNumber, t.final, t.orphaned])).toEqual([
      [6n, true, false],
      [7n, false, true],
    ]);
    expect(result.changes.map((c) => [c.paymentId, c.from, c.to])).toEqual([
      [testPayment(1).id, 'processing', 'processing'],
      [testPayment(2).id, 'processing', 'pending'],
    ]);
    expect(w.ledger.payment(testPayment(1).id).amountReceivedBaseUnits).toBe(1n);
    expect(w.ledger.recordedBlocks(CHAIN_ID).map((b) => b.number)).toEqual([5n, 6n]);
    expect(w.logger.lines.at(-1)).toEqual({
      level: 'warn',
      fields: { transfers: [replacedId] },
      message: 'transfers in replaced blocks orphaned before finality',
    });
    expect(await w.ledger.cursor(CHAIN_ID)).toMatchObject({ nextBlock: 7n, finalizedBlock: 10n });

    await w.poll();
    expect(w.ledger.payment(testPayment(2).id)).toMatchObject({
      status: 'paid',
      txid: w.ledger.allTransfers()[2]!.txHash,
    });
    expect(w.ledger.allTransfers().slice(2)).toMatchObject([
      { blockNumber: 7n, blockHash: w.chain.header(7n).hash, final: true },
    ]);
  });

  it('un-counts transfers above a replaced block found at finality, final or not yet', async () => {
    const w = await watcher({ payments: [testPayment(1), testPayment(2)] });
    w.chain.mine(1); // 6
    w.chain.mineTransfers([pay(1)]); // 7
    w.chain.mine(1); // 8
    w.chain.mineTransfers([pay(2)]); // 9
    w.chain.mine(1); // 10
    await w.poll();
    expect(w.ledger.payment(testPayment(2).id).status).toBe('processing');
    // The chain reorganises from block 7 between the reorg check and the finality check of the next pass.
    w.chain.finalizedTag = 7n;
    w.chain.afterNextBlockAt = () => {
      w.chain.reorgFrom(7n);
      w.chain.mine(4);
    };
    const result = await w.poll();
    expect(w.ledger.allTransfers().map((t) => [t.blockNumber, t.orphaned])).toEqual([
      [7n, true],
      [9n, true],
    ]);
    expect(result.changes.map((c) => [c.paymentId, c.to])).toEqual([
      [testPayment(1).id, 'pending'],
      [testPayment(2).id, 'pending'],
    ]);
    expect(w.ledger.payment(testPayment(2).id).status).toBe('pending');
  });

  it('rewinds to the lowest of several replaced blocks', async () => {
    const w = await watcher({ payments: [testPayment(1), testPayment(2)] });
    w.chain.mineTransfers([pay(1)]); // 6
    w.chain.mine(1); // 7
    w.chain.mineTransfers([pay(2)]); // 8
    w.chain.mine(2); // 10
    await w.poll();
    w.chain.replaceBlock(6n);
    w.chain.replaceBlock(8n);
    w.chain.finalizedTag = 10n;
    await w.poll();
    expect(await w.ledger.cursor(CHAIN_ID)).toMatchObject({ nextBlock: 6n });
    await w.poll();
    expect(w.ledger.payment(testPayment(1).id).status).toBe('paid');
    expect(w.ledger.payment(testPayment(2).id).status).toBe('paid');
  });

  it('orphans a transfer whose block is gone from a chain that became shorter', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mine(1); // 6
    w.chain.mineTransfers([pay(1)]); // 7
    w.chain.mine(3); // 10
    await w.poll();
    w.chain.finalizedTag = 8n;
    w.chain.afterNextBlockAt = () => w.chain.reorgFrom(7n);
    const result = await w.poll();
    expect(w.ledger.allTransfers()).toMatchObject([{ orphaned: true, final: false }]);
    expect(result.changes.map((c) => c.to)).toEqual(['pending']);
    expect(await w.ledger.cursor(CHAIN_ID)).toMatchObject({ nextBlock: 7n });
  });

  it('forgets recorded blocks more than 128 below the finalized block, and only those', async () => {
    const w = await watcher();
    w.chain.mine(300);
    w.chain.finalizedTag = 250n;
    await w.poll({ maxBlockRange: 1, maxRangesPerPass: 400 });
    expect(w.ledger.recordedBlocks(CHAIN_ID)[0]!.number).toBe(122n);
    // Without new blocks or transfers, a new finalized block alone prunes too.
    w.chain.finalizedTag = 260n;
    await w.poll();
    expect(w.ledger.recordedBlocks(CHAIN_ID)[0]!.number).toBe(132n);
  });

  it('forgets old recorded blocks when it finalizes transfers too', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mine(200);
    await w.poll({ maxBlockRange: 1, maxRangesPerPass: 400 });
    w.chain.mineTransfers([pay(1)]);
    await w.poll();
    w.chain.finalizedTag = w.chain.head;
    await w.poll();
    expect(w.ledger.allTransfers()).toMatchObject([{ final: true }]);
    expect(w.ledger.recordedBlocks(CHAIN_ID)[0]!.number).toBe(w.chain.head - 128n);
  });
});

describe('a reorg between passes', () => {
  it('rewinds to the newest recorded block still canonical, un-counts what was orphaned, and rescans', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mineTransfers([pay(1)]); // 6
    w.chain.mine(4); // 10
    await w.poll();
    expect(w.ledger.payment(testPayment(1).id).status).toBe('processing');

    w.chain.reorgFrom(6n);
    w.chain.mine(2);
    w.chain.mineTransfers([pay(1)]); // the same payment, mined again in block 8
    w.chain.mine(3); // 11
    w.logger.lines.length = 0;
    const result = await w.poll();

    expect(result.reorgDepth).toBe(5);
    expect(w.logger.lines[0]).toEqual({
      level: 'warn',
      fields: { from: '10', to: '5', depth: 5 },
      message: 'reorg followed',
    });
    expect(w.ledger.allTransfers().map((t) => [t.blockNumber, t.orphaned])).toEqual([
      [6n, true],
      [8n, false],
    ]);
    // Back to pending, then processing again: each change committed is announced as it was committed.
    const [, pending, processing] = w.ledger.allEvents();
    expect(result.changes).toEqual([
      { paymentId: testPayment(1).id, from: 'processing', to: 'pending', eventId: pending!.id },
      { paymentId: testPayment(1).id, from: 'pending', to: 'processing', eventId: processing!.id },
    ]);
    expect(w.ledger.allEvents().map((e) => e.type)).toEqual([
      'payment.processing',
      'payment.pending',
      'payment.processing',
    ]);
    expect(result.nextBlock).toBe(12n);
  });

  it('rewinds to a recorded block at the head of a chain that became shorter', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mine(3); // 8
    await w.poll();
    w.chain.mineTransfers([pay(1)]); // 9
    w.chain.mine(1); // 10
    await w.poll();
    w.chain.reorgFrom(9n); // the head is 8, recorded before
    const result = await w.poll();
    expect(result).toMatchObject({ head: 8n, reorgDepth: 2, nextBlock: 9n });
    expect(w.ledger.allTransfers()).toMatchObject([{ orphaned: true }]);
  });

  it('falls back to the last finalized block when no recorded block is canonical any more', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.finalizedTag = 2n;
    w.chain.mineTransfers([pay(1)]); // 6
    w.chain.mine(2); // 8
    await w.poll();
    w.chain.reorgFrom(4n); // below every recorded block (5, 6, 8)
    w.chain.mine(6); // 9
    const result = await w.poll();
    expect(result.reorgDepth).toBe(6);
    expect(w.ledger.allTransfers()).toMatchObject([{ orphaned: true }]);
    expect(w.chain.calls.transferLogs.at(-1)).toMatchObject({ from: 3n, to: 9n });
  });

  it('rewinds at least one block when everything recorded was final', async () => {
    const w = await watcher();
    w.chain.mine(3); // 8
    w.chain.finalizedTag = 8n;
    await w.poll();
    w.chain.replaceBlock(8n);
    w.chain.replaceBlock(5n);
    const result = await w.poll();
    expect(result).toMatchObject({ reorgDepth: 1, nextBlock: 9n });
    expect(w.chain.calls.transferLogs.at(-1)).toMatchObject({ from: 8n, to: 8n });
  });

  it('does not take a lower recorded block for the last scanned one', async () => {
    const w = await watcher({ payments: [testPayment(1)] });
    w.chain.mineTransfers([pay(1)]); // 6
    w.chain.mine(2); // 8
    await w.poll();
    // Blocks 7 and 8 no longer recorded (as after a rewind to 6 whose cursor was not written yet).
    const cursor = (await w.ledger.cursor(CHAIN_ID))!;
    await w.ledger.transaction(async (tx) => {
      await tx.rewindAbove(CHAIN_ID, 6n);
      await tx.saveCursor(cursor);
    });
    w.chain.mine(1);
    const result = await w.poll();
    expect(result).toMatchObject({ reorgDepth: 0, nextBlock: 10n });
    expect(w.logger.lines.filter((l) => l.message === 'reorg followed')).toEqual([]);
  });

  it('does not look for a reorg when the last scanned block was not recorded', async () => {
    const w = await watcher();
    // The recorded block 5 pruned away (as far below finality): nothing to compare with.
    await w.ledger.transaction((tx) => tx.pruneBlocksBelow(CHAIN_ID, 6n));
    w.chain.replaceBlock(5n);
    const result = await w.poll();
    expect(result.reorgDepth).toBe(0);
    expect(w.chain.calls.transferLogs).toHaveLength(1);
  });
});
