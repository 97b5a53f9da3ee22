/**
 * What the relayer records of the transaction it sends for a signed transfer: a customer's gasless payment, an
 * x402 call's settlement (both `GaslessAuthorization`), and the same columns on a subscription's pulled charge.
 */
export interface RelayedTransaction {
  /** The relayer's transaction, once signed (persisted before it is broadcast). */
  readonly txHash: string | null;
  readonly rawTx: string | null;
  readonly relayerNonce: bigint | null;
  /** Once mined: what it cost the relayer. */
  readonly gasUsed: bigint | null;
  readonly feeWei: bigint | null;
  readonly failureReason: string | null;
}

/** A transfer the relayer has not signed or sent yet: how every relayed record starts. */
export const NOT_YET_SENT: RelayedTransaction = {
  txHash: null,
  rawTx: null,
  relayerNonce: null,
  gasUsed: null,
  feeWei: null,
  failureReason: null,
};
