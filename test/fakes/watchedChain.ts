// The watcher that the chain watcher's unit tests start from (src/app/chain/watchChain*.test.ts): a fake chain of a
// few blocks, an empty in-memory ledger, and a first pass already run.
import type { WatchedToken } from '../../src/app/chain/transferRecords.ts';
import { pollChainOnce, type WatchChainOptions } from '../../src/app/chain/watchChain.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { FakeChain } from './fakeChain.ts';
import { MemoryLedger } from './memoryLedger.ts';
import { CHAIN_ID, depositAddress, USDC, USDC_E, USDT } from './paymentFixture.ts';
import { recordingLogger } from './recordingLogger.ts';

export const TOKENS: readonly WatchedToken[] = [
  { address: USDC, symbol: 'USDC', decimals: 6, accepted: true },
  { address: USDC_E, symbol: 'USDC.e', decimals: 6, accepted: true },
  { address: USDT, symbol: 'USDT', decimals: 6, accepted: false },
];
export const NOW = new Date('2026-01-01T00:20:00.000Z');
export const TEN_USDC = 10_000_000n;

/** A chain of `blocks` mined blocks, an empty ledger, and a watcher whose first pass has already run. */
export async function watcher(options: { blocks?: number; payments?: readonly Payment[] } = {}) {
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

export const pay = (n: number, amountBaseUnits = TEN_USDC, token = USDC) => ({
  token,
  to: depositAddress(n),
  amountBaseUnits,
});
