import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inProcessSingletonLocks } from '../../src/adapters/db/singletonLocks.ts';
import { loadConfig } from '../../src/config/index.ts';
import { runWorker } from '../../src/main/worker.ts';
import {
  ANVIL_RELAYER_KEY,
  type ChainHarness,
  startChainHarness,
  workerChainOf,
} from '../helpers/chainHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { until } from '../helpers/net.ts';

/**
 * The worker's log lines as a log shipper reads them: one JSON object per line. The worker binds `chainId` to
 * each chain's logger; a job adding it again wrote the key twice on one line, which JSON parsers keep only one
 * of, and some refuse.
 */
describe.each(dialects)('worker log lines on %s', (dialect) => {
  let h: ChainHarness;

  beforeEach(async () => {
    h = await startChainHarness(dialect);
  });
  afterEach(async () => h.close());

  it('name the chain once per line: watcher, settler and relayer warnings alike', async () => {
    const { logger, text } = capturingLogger();
    const config = loadConfig({
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_POLL_INTERVAL: '20ms',
      PAYLINK_START_BLOCK: '0',
      // Above anvil's 10,000 ETH: every send warns that the relayer runs low, a line that names the chain.
      PAYLINK_RELAYER_LOW_BALANCE: '1000000',
    });
    const payment = await h.createPayment('12.00');
    await h.pay(payment.deposit!.depositAddress, 12_000_000n);
    await h.finalizeAll();

    const stop = new AbortController();
    const worker = runWorker(
      {
        ...h.stores,
        locks: inProcessSingletonLocks(),
        clock: h.clock,
        logger,
        config,
        chains: [workerChainOf(h, config.liveHomeChain, { relayerKey: ANVIL_RELAYER_KEY })],
      },
      stop.signal,
    );
    try {
      await until(
        'the low-balance warning',
        async () => text(),
        (logged) => logged.includes('relayer gas balance low'),
        {
          everyMs: 25,
        },
      );
    } finally {
      stop.abort();
      await worker;
    }

    const lines = text().split('\n').filter(Boolean);
    // The lines that used to repeat the key are among those read here.
    for (const message of ['chain watcher starts', 'relayer gas balance low'])
      expect(
        lines.some((line) => line.includes(message)),
        message,
      ).toBe(true);
    for (const line of lines) {
      expect(line.split('"chainId":').length - 1, line).toBeLessThanOrEqual(1);
      const fields = JSON.parse(line) as { chainId?: number };
      if (fields.chainId !== undefined) expect(fields.chainId).toBe(h.anvil.chain.id);
    }
  });
});
