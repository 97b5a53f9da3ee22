import type { Logger } from 'pino';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { settlementRepository } from '../../src/adapters/db/settlementRepository.ts';
import { announceRefunds } from '../../src/app/refunds/announceRefunds.ts';
import { settleOnce } from '../../src/app/settlement/settleOnce.ts';
import { ANVIL_RELAYER_KEY, type ChainHarness } from './chainHarness.ts';

/**
 * What the worker does for refunds in a pass or two, with the real parts: watch to finality, flush the
 * forwarders and apply the flush once final, then tell the merchant of each refund whose status moved.
 * Returns the ids of the refunds announced.
 */
export async function refundWorkerPasses(h: ChainHarness, logger: Logger): Promise<string[]> {
  await h.finalizeAll();
  await h.poll();
  const deps = {
    settlements: settlementRepository(h.database.handle),
    relayer: createRelayer({
      client: createRpcClient([h.anvil.rpcUrl]),
      chainId: h.anvil.chain.id,
      relayerKey: ANVIL_RELAYER_KEY,
    }),
    chain: chainReader(createRpcClient([h.anvil.rpcUrl]), { kind: 'finalized' }),
    clock: h.clock,
    logger,
  };
  const options = {
    chainId: h.anvil.chain.id,
    payoutPolicy: { dustThresholdBaseUnits: 0n, delayedAfterMs: 10 * 60_000 },
    relayerLowBalanceWei: 10n ** 18n,
    stuckAfterMs: 60_000,
  };
  await settleOnce(deps, options);
  await h.finalizeAll();
  await settleOnce(deps, options);
  await h.poll();
  return announceRefunds({ refunds: h.stores.refunds, clock: h.clock });
}
