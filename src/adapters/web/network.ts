/*
 * The chain a payment or a refund is on, as the pages show it: the checkout's and the dashboard's, and the
 * refund's view they share (refundView.ts).
 */

/** The chain checkout takes payments on, as the customer's wallet needs to know it. */
export interface CheckoutNetwork {
  /** Shown to the customer: "Polygon", "Sandbox (local anvil)". */
  readonly name: string;
  readonly chainId: number;
  /** Block explorer base URL (`https://polygonscan.com`); empty when the chain has none (the sandbox). */
  readonly explorerUrl: string;
  /**
   * A PUBLIC RPC URL a wallet may add for this chain (wallet_addEthereumChain). It is sent to browsers, so it
   * must never be a provider URL carrying an API key. Without it, a wallet lacking the chain is told to add it.
   */
  readonly publicRpcUrl?: string | undefined;
  /** The chain's gas token, for wallet_addEthereumChain (default POL). */
  readonly nativeCurrencySymbol?: string | undefined;
}

/** `https://polygonscan.com/tx/0x…` (without a doubled slash); null for a network without an explorer. */
export function explorerTxUrl(explorerUrl: string, txid: string): string | null {
  return explorerUrl ? `${explorerUrl.replace(/\/+$/, '')}/tx/${txid}` : null;
}
