import type { BridgeRepositoryHooks } from '../adapters/db/bridgeRepository.ts';
import { customerEmails } from '../adapters/email/customerEmails.ts';
import { refreshPayments } from '../app/chain/refreshPayments.ts';
import { type Config, NETWORKS } from '../config/index.ts';
import type { WorkerChain } from './chains/workerChains.ts';

/**
 * A final mint refreshes its payment's status in the mint's own database transaction (decision 0037): a fast
 * transfer's payment is paid once the mint is final on the home chain, with the event and the customer's receipt
 * the chain watcher would write, and the settler flushes it in the same pass.
 */
export function statusRefreshOnMint(config: Config, chains: readonly WorkerChain[]): BridgeRepositoryHooks {
  const explorers = new Map(
    chains.map((chain) => [chain.target.chainId, NETWORKS[chain.settings.network].explorerUrl]),
  );
  const receipts = customerEmails(config, (chainId) => explorers.get(chainId))?.receipts;
  return {
    afterMint: (tx, paymentId, at) => refreshPayments(tx, [paymentId], at, config.payoutPolicy, receipts),
  };
}
