import type { TransferLog } from './ports.ts';

/**
 * What a chain's watcher counts for which payments when one payment can be paid on several chains (decision
 * 0030): a source chain's transfers pay the home chain's payments, and the home chain's mints of our own CCTP
 * settlement pay nothing.
 */

/** A watcher's options where a payment can be paid on several chains. */
export interface CrossChainOptions {
  /**
   * The chain whose id the payments' deposit rows name; default: the watched chain's. Another id makes this a
   * source chain's watcher: its transfers are recorded under its own chain id, with its own cursor, reorg
   * handling and finality, and counted for payments of the home chain `depositChainId`.
   */
  readonly depositChainId?: number | undefined;
  /**
   * Only payments whose forwarder comes from this factory are matched. Required on a source chain: only the
   * version 3 factory is at one address on every chain, and an older factory's deposit address does not exist
   * there (or is someone else's).
   */
  readonly depositFactory?: string | undefined;
  /**
   * CCTP's MessageTransmitterV2 on this chain, where burns are minted to it (the home chain): its
   * `MessageReceived` is read in the same request, so that our own settlement's mint into a deposit address is
   * not taken for a payment.
   */
  readonly cctpMessageTransmitter?: string | undefined;
}

/** The chain whose id the payments' deposit rows name: the home chain, for a source chain's watcher. */
export function depositChainOf(options: { readonly chainId: number } & CrossChainOptions): number {
  return options.depositChainId ?? options.chainId;
}

/**
 * CCTP's mint of a burn whose depositor is the deposit address itself: our own settlement bringing a source
 * chain's USDC home (counted already, on the chain it was paid on), never a payment. A customer's own CCTP
 * transfer to the address has another depositor (their wallet) and pays like any transfer.
 */
export function isOwnSettlementMint(log: TransferLog): boolean {
  return log.cctpBurnSender !== undefined && log.cctpBurnSender === log.to.toLowerCase();
}
