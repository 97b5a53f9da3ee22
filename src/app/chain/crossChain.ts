import type { TransferLog } from './ports.ts';

/**
 * What a chain's watcher counts for which payments when one payment can be paid on several chains (decision
 * 0030): a source chain's transfers pay the home chain's payments, and the home chain's mints of our own CCTP
 * settlement pay nothing.
 */

/** A watcher's options where a payment can be paid on several chains. */
export interface CrossChainOptions {
  /**
   * The home chain whose payments this chain's transfers pay: the id its payments' deposit rows name. Unset (or
   * the watched chain's own id): a home chain's watcher. Another id makes this a source chain's watcher: its
   * transfers are recorded under its own chain id, with its own cursor, reorg handling and finality, and counted
   * for payments of the home chain `homeChainId`.
   */
  readonly homeChainId?: number | undefined;
  /**
   * The home chain's version 3 factory, at the same address here: only payments whose forwarder comes from it
   * are matched. Required on a source chain: an older factory's deposit address does not exist there (or is
   * someone else's).
   */
  readonly homeFactory?: string | undefined;
  /**
   * CCTP's MessageTransmitterV2 on this chain, where burns are minted to it (the home chain): its
   * `MessageReceived` is read in the same request, so that our own settlement's mint into a deposit address is
   * not taken for a payment.
   */
  readonly cctpMessageTransmitter?: string | undefined;
}

/** The home chain whose payments the watched chain's transfers pay: itself, unless it is a source chain. */
export function homeChainOf(options: { readonly chainId: number } & CrossChainOptions): number {
  return options.homeChainId ?? options.chainId;
}

/**
 * CCTP's mint of a burn whose depositor is the deposit address itself: our own settlement bringing a source
 * chain's USDC home (counted already, on the chain it was paid on), never a payment. A customer's own CCTP
 * transfer to the address has another depositor (their wallet) and pays like any transfer.
 */
export function isOwnSettlementMint(log: TransferLog): boolean {
  return log.cctpBurnSender !== undefined && log.cctpBurnSender === log.to.toLowerCase();
}
