import { describe, expect, it } from 'vitest';
import { FakeChain } from '../../../test/fakes/fakeChain.ts';
import { MemoryLedger } from '../../../test/fakes/memoryLedger.ts';
import { CHAIN_ID } from '../../../test/fakes/paymentFixture.ts';
import { recordingLogger } from '../../../test/fakes/recordingLogger.ts';
import { NOW, TOKENS } from '../../../test/fakes/watchedChain.ts';
import { chainWatcherPass, LAG_LOG_EVERY_MS, runChainWatcher } from './runChainWatcher.ts';

/** A chain 100 blocks long, watched from block 0 one range of `rangeBlocks` per pass, at a clock the test moves. */
function behind(rangeBlocks: number) {
  const chain = new FakeChain();
  chain.mine(100);
  const ledger = new MemoryLedger();
  const logger = recordingLogger();
  let now = NOW;
  const deps = { ledger, chain, clock: { now: () => now }, logger };
  const options = {
    chainId: CHAIN_ID,
    tokens: TOKENS,
    maxBlockRange: rangeBlocks,
    maxRangesPerPass: 1,
    startBlock: 0n,
  };
  const catchingUp = () => logger.lines.filter((line) => line.message === 'chain watcher catching up');
  return {
    pass: chainWatcherPass(deps, options),
    catchingUp,
    later: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
    deps,
    options,
  };
}

describe('the chain watcher loop', () => {
  it('says how far behind it is, with the head, and runs again at once while behind', async () => {
    const watcher = behind(10); // blocks 0–9 scanned: 91 behind block 100
    expect(await watcher.pass()).toBe('busy');
    expect(watcher.catchingUp()).toEqual([
      { level: 'info', fields: { lagBlocks: '91', head: '100' }, message: 'chain watcher catching up' },
    ]);
  });

  it('says it once in 30 seconds: not again at exactly 30 s, again a millisecond after', async () => {
    const watcher = behind(10);
    await watcher.pass();
    watcher.later(LAG_LOG_EVERY_MS);
    expect(await watcher.pass()).toBe('busy');
    expect(watcher.catchingUp()).toHaveLength(1);
    watcher.later(1);
    await watcher.pass();
    expect(watcher.catchingUp().map((line) => line.fields.lagBlocks)).toEqual(['91', '71']);
  });

  it('is silent 10 blocks behind, and speaks at 11', async () => {
    const ten = behind(91); // blocks 0–90 scanned: 10 behind
    expect(await ten.pass()).toBe('busy');
    expect(ten.catchingUp()).toEqual([]);
    const eleven = behind(90);
    await eleven.pass();
    expect(eleven.catchingUp().map((line) => line.fields.lagBlocks)).toEqual(['11']);
  });

  it('waits for its interval once it has caught up', async () => {
    const watcher = behind(101);
    expect(await watcher.pass()).toBe('idle');
    expect(watcher.catchingUp()).toEqual([]);
  });

  it('passes until its signal aborts, then resolves', async () => {
    const watcher = behind(10);
    const stop = new AbortController();
    const running = runChainWatcher(watcher.deps, {
      ...watcher.options,
      intervalMs: 10,
      signal: stop.signal,
    });
    // Busy passes follow at once: the watcher reaches the head, then waits its interval.
    while ((await watcher.deps.ledger.cursor(CHAIN_ID))?.nextBlock !== 101n)
      await new Promise((resolve) => setTimeout(resolve, 5));
    stop.abort();
    await expect(running).resolves.toBeUndefined();
    expect(watcher.catchingUp().length).toBeGreaterThan(0);
  });
});
