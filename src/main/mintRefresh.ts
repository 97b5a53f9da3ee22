import type { BridgeRepositoryHooks } from '../adapters/db/bridgeRepository.ts';
import { refreshPayments } from '../app/chain/refreshPayments.ts';
import type { Config } from '../config/index.ts';
import type { WorkerChain } from './chains/workerChains.ts';
import { paymentPaidReactions } from './paymentPaidReactions.ts';

/**
 * A final mint refreshes its payment's status in the mint's own database transaction (decision 0037): a fast
 * transfer's payment is paid once the mint is final on the home chain, with the event and the customer's receipt
 * the chain watcher would write, and the settler flushes it in the same pass.
 */
export function statusRefreshOnMint(config: Config, chains: readonly WorkerChain[]): BridgeRepositoryHooks {
  return {
    afterMint: (tx, paymentId, at) => refreshPayments(tx, [paymentId], at, config.payoutPolicy),
    reactions: paymentPaidReactions(config, chains),
  };
}
