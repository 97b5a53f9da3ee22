import type { LedgerReactions } from '../adapters/db/ledgerTransaction.ts';
import { customerEmails } from '../adapters/email/customerEmails.ts';
import { receiptReactions } from '../app/email/receipts.ts';
import { type Config, NETWORKS } from '../config/index.ts';
import type { WorkerChain } from './chains/workerChains.ts';

/**
 * What the worker's ledger does, inside the transaction that marks a payment paid, when that transaction raises
 * it: queue the customer's receipt where e-mail is configured (decision 0024), and an updated one when a paid
 * payment counts more (an overpayment, decision 0050); nothing otherwise. The chain
 * watcher raises, the e-mail capability reacts; neither imports the other (decision 0043).
 */
export function paymentPaidReactions(config: Config, chains: readonly WorkerChain[]): LedgerReactions {
  const explorers = new Map(
    chains.map((chain) => [chain.target.chainId, NETWORKS[chain.settings.network].explorerUrl]),
  );
  const receipts = customerEmails(config, (chainId) => explorers.get(chainId))?.receipts;
  return receipts ? receiptReactions(receipts) : {};
}
