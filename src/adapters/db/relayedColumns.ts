import type { RelayedTransaction } from '../../app/gasless/relayedTransaction.ts';

/**
 * The relayer's transaction as a row stores it (`gasless_authorizations`, `subscription_charges`): amounts in wei
 * and the nonce as decimal text, null until known.
 */
export interface RelayedTransactionColumns {
  tx_hash: string | null;
  raw_tx: string | null;
  relayer_nonce: string | null;
  gas_used: string | null;
  fee_wei: string | null;
  failure_reason: string | null;
}

export function relayedColumns(t: RelayedTransaction): RelayedTransactionColumns {
  return {
    tx_hash: t.txHash,
    raw_tx: t.rawTx,
    relayer_nonce: t.relayerNonce?.toString() ?? null,
    gas_used: t.gasUsed?.toString() ?? null,
    fee_wei: t.feeWei?.toString() ?? null,
    failure_reason: t.failureReason,
  };
}

export function relayedFrom(row: RelayedTransactionColumns): RelayedTransaction {
  const bigOrNull = (text: string | null) => (text === null ? null : BigInt(text));
  return {
    txHash: row.tx_hash,
    rawTx: row.raw_tx,
    relayerNonce: bigOrNull(row.relayer_nonce),
    gasUsed: bigOrNull(row.gas_used),
    feeWei: bigOrNull(row.fee_wei),
    failureReason: row.failure_reason,
  };
}
