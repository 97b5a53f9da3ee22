import type { RelayedTransactionColumns } from './relayedColumns.ts';
// The tables of money going out: the settler's batches and the relayer's signed transactions, and the gasless
// relayer's authorizations, and the bridge's transfers across chains (schema.ts holds the whole schema).

import type { Generated } from 'kysely';

/** One flush of a batch of deposit addresses (migration 0005): one nonce, one or more transactions. */
export interface SettlementsTable {
  id: string;
  chain_id: number;
  /** int8: a string from pg, a number from SQLite; converted in the repository. */
  nonce: string | number;
  status: string;
  payout_tx_hash: string | null;
  failure_reason: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface SettlementItemsTable {
  settlement_id: string;
  payment_id: string;
  expected_base_units: string;
}

/** A signed relayer transaction, persisted before it is broadcast (wei and gas as TEXT integers). */
export interface RelayerTransactionsTable {
  id: string;
  settlement_id: string;
  chain_id: number;
  from_address: string;
  nonce: string | number;
  tx_hash: string;
  raw_tx: string;
  gas: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  status: string;
  replaces_id: string | null;
  created_at: string;
  broadcast_at: string | null;
}

/** The relayer's gas balance as its settler last read it (migration 0011): /metrics of any process reports it. */
export interface RelayerAccountsTable {
  chain_id: number;
  address: string;
  balance_wei: string;
  low_balance_wei: string;
  observed_at: string;
}

/** A customer's signed EIP-3009 authorization and what became of it (migration 0014). */
export interface GaslessAuthorizationsTable extends RelayedTransactionColumns {
  id: string;
  payment_id: string;
  chain_id: number;
  token_address: string;
  from_address: string;
  to_address: string;
  value_base_units: string;
  valid_after: string;
  valid_before: string;
  nonce: string;
  signature: string;
  client_address: string;
  status: string;
  created_at: string;
  finished_at: string | null;
}

/** One burn on a source chain and its attestation and mint on the home chain (migration 0027). */
export interface BridgeTransfersTable {
  id: string;
  payment_id: string;
  source_chain_id: number;
  source_domain: number;
  home_chain_id: number;
  token_address: string;
  deposit_address: string;
  amount_base_units: string;
  speed: string;
  max_fee_base_units: string;
  /** The most the payment's quote let CCTP keep of this amount (migration 0032). */
  quoted_max_fee_base_units: Generated<string>;
  min_finality_threshold: number;
  step: string;
  burn_relayer: string | null;
  burn_nonce: string | null;
  burn_raw_tx: string | null;
  burn_tx_hash: string | null;
  /** int8: a string from pg, a number from SQLite. */
  burn_block_number: string | number | null;
  message: string | null;
  attested_message: string | null;
  attestation: string | null;
  cctp_nonce: string | null;
  fee_executed_base_units: string | null;
  mint_relayer: string | null;
  mint_nonce: string | null;
  mint_raw_tx: string | null;
  mint_tx_hash: string | null;
  minted_base_units: string | null;
  /** Migration 0036: the attested message expired before its mint; Circle asked to re-attest it. */
  expired_at: string | null;
  reattest_requested_at: string | null;
  attempts: Generated<number>;
  next_attempt_at: string | null;
  last_error: string | null;
  stalled_since: string | null;
  delay_notified_at: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}
