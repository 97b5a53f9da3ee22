import type { Logger } from 'pino';
import { chainReader, createRpcClient } from '../adapters/chain/chainReader.ts';
import type { ChainTarget } from '../adapters/chain/depositPlanner.ts';
import type { Clock, Ledger } from '../app/ports.ts';
import { expirePayments } from '../app/refreshPayments.ts';
import { pollChainOnce } from '../app/watchChain.ts';
import type { Config } from '../config.ts';
import { runLoop } from './loop.ts';

export interface WorkerDeps {
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: Config;
  readonly chain: { readonly target: ChainTarget; readonly rpcUrls: readonly string[] };
}

const LAG_LOG_EVERY_MS = 30_000;
const LAG_WORTH_LOGGING_BLOCKS = 10n;

/** The background jobs of the `worker` role, until `signal` aborts. Resolves when they have all stopped. */
export async function runWorker(deps: WorkerDeps, signal: AbortSignal): Promise<void> {
  const { config, logger } = deps;
  const reader = chainReader(createRpcClient(deps.chain.rpcUrls), config.chain.finality);
  const watch = {
    chainId: deps.chain.target.chainId,
    tokenAddress: deps.chain.target.tokenAddress.toLowerCase(),
    maxBlockRange: config.chain.maxBlockRange,
    startBlock: config.chain.startBlock,
  };
  let lastLagLogMs = 0;
  const watcher = runLoop(
    { name: 'chain-watcher', intervalMs: config.chain.pollIntervalMs, signal, logger },
    async () => {
      const result = await pollChainOnce(
        { ledger: deps.ledger, chain: reader, clock: deps.clock, logger },
        watch,
      );
      const nowMs = deps.clock.now().getTime();
      if (result.lagBlocks > LAG_WORTH_LOGGING_BLOCKS && nowMs - lastLagLogMs > LAG_LOG_EVERY_MS) {
        lastLagLogMs = nowMs;
        logger.info(
          { lagBlocks: result.lagBlocks.toString(), head: result.head.toString() },
          'chain watcher catching up',
        );
      }
      return result.lagBlocks > 0n ? 'busy' : 'idle';
    },
  );
  const expirer = runLoop(
    { name: 'expirer', intervalMs: config.chain.pollIntervalMs, signal, logger },
    async () => {
      const changes = await expirePayments({ ledger: deps.ledger, clock: deps.clock });
      return changes.length > 0 ? 'busy' : 'idle';
    },
  );
  await Promise.all([watcher, expirer]);
}
