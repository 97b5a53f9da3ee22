import { describe, expect, it } from 'vitest';
import { CHAIN_ID, testPayment, USDC } from '../../../test/fakes/paymentFixture.ts';
import { pay, TEN_USDC, watcher } from '../../../test/fakes/watchedChain.ts';

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
