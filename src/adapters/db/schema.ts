import type { Generated } from 'kysely';

/**
 * Table types, shared by both dialects. Portable column choices (docs/decisions/0004-storage.md):
 * money in base units as TEXT integers (no float, no 64-bit driver surprises), timestamps as ISO-8601 UTC TEXT
 * (sortable, identical on SQLite and PostgreSQL), booleans as INTEGER 0/1.
 */
export interface MerchantsTable {
  id: string;
  name: string;
  wallet_address: string | null;
  webhook_url: string | null;
  webhook_secret: string;
  /** The secret a rotation replaced, still signing until `previous_webhook_secret_until` (migration 0003). */
  previous_webhook_secret: string | null;
  previous_webhook_secret_until: string | null;
  commission_bps: number;
  underpayment_tolerance_bps: number;
  /** 1: a paid payment with a customer e-mail gets a receipt (migration 0024). */
  send_receipts: Generated<number>;
  status: 'active' | 'disabled';
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  key_hash: string;
  key_prefix: string;
  mode: 'live' | 'test';
  created_at: string;
  /** Null while the key is current; set when it is rotated out (with a grace period) or revoked. */
  expires_at: string | null;
}

export interface PaymentsTable {
  id: string;
  merchant_id: string;
  amount_minor_units: string;
  currency: string;
  exchange_rate: string;
  rate_source: string;
  rate_observed_at: string;
  usdc_amount_base_units: string;
  commission_bps: number;
  commission_base_units: string;
  merchant_share_base_units: string;
  underpayment_tolerance_bps: number;
  payout_address: string;
  webhook_url: string | null;
  order_id: string | null;
  customer_email: string | null;
  status: string;
  /** The status of the last event written for the payment (migration 0012). */
  announced_status: Generated<string>;
  amount_received_base_units: string;
  paid_at: string | null;
  late: number;
  expires_at: string;
  created_at: string;
  updated_at: string;
  chain_id: number | null;
  token_address: string | null;
  factory_address: string | null;
  treasury_address: string | null;
  /** Lowercase hex, as matched against log topics. */
  deposit_address: string | null;
  /** The customer's transfer that completed (or last moved) the payment. */
  txid: string | null;
  /** The accepted token of that transfer (migration 0013). */
  paid_token_address: string | null;
  paid_token_symbol: string | null;
  settled_base_units: Generated<string>;
  payout_tx_hash: string | null;
  settled_at: string | null;
  return_url: string | null;
  /** Flush attempts that failed in a row (migration 0005); the back-off grows with them (migration 0011). */
  settlement_failures: Generated<number>;
  /** What went to each recipient (migration 0011); their sum is `settled_base_units`. */
  merchant_paid_base_units: Generated<string>;
  treasury_paid_base_units: Generated<string>;
  /** Back-off: not flushed again before this. */
  settlement_retry_at: string | null;
  /** Since when the merchant's share fails to go out, and the decoded reason of the last failure. */
  payout_blocked_since: string | null;
  payout_blocked_reason: string | null;
  /** The same for the treasury's commission alone. */
  commission_blocked_since: string | null;
  commission_blocked_reason: string | null;
  /** When `payment.payout_delayed` was written for the current delay. */
  payout_delay_notified_at: string | null;
  /** The mode of the key that created the payment (migration 0008); 'live' for every older payment. */
  mode: Generated<'live' | 'test'>;
  /** 'payment', or 'refund' for a refund's deposit address (migration 0015; same id as the refund). */
  kind: Generated<string>;
  /** Where the customer goes, the merchant's references (JSON), the link paid through (migration 0021). */
  success_url: string | null;
  cancel_url: string | null;
  metadata: string | null;
  link_id: string | null;
  /** The public receipt page's token, set when the receipt is queued (migration 0024). */
  receipt_token: Generated<string | null>;
}

/** A reusable payment link (migration 0021); amounts in `currency`'s minor units, as integer text. */
export interface PaymentLinksTable {
  id: string;
  merchant_id: string;
  mode: 'live' | 'test';
  title: string;
  description: string | null;
  image_url: string | null;
  price_type: 'fixed' | 'open';
  currency: string;
  amount_minor_units: string | null;
  max_quantity: number | null;
  min_minor_units: string | null;
  max_minor_units: string | null;
  /** JSON array of integer text. */
  suggested_minor_units: string | null;
  max_uses: number | null;
  ends_at: string | null;
  success_url: string | null;
  cancel_url: string | null;
  metadata: string | null;
  deactivated_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A refund a merchant asked for (migration 0015); its deposit address, once known, is a `payments` row. */
export interface RefundsTable {
  id: string;
  merchant_id: string;
  mode: 'live' | 'test';
  /** The payment refunded. */
  payment_id: string;
  amount_base_units: string;
  requested_amount: string;
  requested_currency: string;
  reason: string | null;
  /** Checksummed; null until the merchant or the customer gives it. */
  address: string | null;
  address_source: 'merchant' | 'customer' | null;
  address_given_at: string | null;
  claim_expires_at: string;
  canceled_at: string | null;
  /** The status of the last refund event written. */
  announced_status: string;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: string;
  updated_at: string;
}

export interface TransfersTable {
  /** `<chain id>:<block hash>:<log index>`: a log is identified by the block it is in. */
  id: string;
  chain_id: number;
  payment_id: string;
  tx_hash: string;
  log_index: number;
  /** int8: a string from pg, a number from SQLite; converted in the repository. */
  block_number: string | number;
  block_hash: string;
  block_timestamp: string;
  token_address: string;
  /** Which accepted token (migration 0013). */
  token_symbol: string;
  from_address: string;
  to_address: string;
  amount_base_units: string;
  final: number;
  orphaned: number;
  created_at: string;
}

/** A token that does not pay, sent to a deposit address (migration 0013). */
export interface UnacceptedTransfersTable {
  id: string;
  chain_id: number;
  payment_id: string;
  tx_hash: string;
  block_number: string | number;
  block_hash: string;
  token_address: string;
  token_symbol: string;
  token_decimals: number;
  from_address: string;
  amount_base_units: string;
  orphaned: Generated<number>;
  seen_at: string;
}

/** Per deposit address and token: what arrived (final) and what went out to each side (migration 0013). */
export interface DepositBalancesTable {
  owner_id: string;
  owner_kind: Generated<string>;
  chain_id: number;
  token_address: string;
  accepted: number;
  received_base_units: Generated<string>;
  merchant_paid_base_units: Generated<string>;
  treasury_paid_base_units: Generated<string>;
  settled_base_units: Generated<string>;
}

export interface ChainCursorsTable {
  chain_id: number;
  next_block: string | number;
  head_block: string | number;
  finalized_block: string | number;
  updated_at: string;
}

export interface ChainBlocksTable {
  chain_id: number;
  number: string | number;
  hash: string;
}

export interface EventsTable {
  id: string;
  payment_id: string;
  merchant_id: string;
  sequence: number;
  type: string;
  /** The webhook body, serialized once so every delivery attempt sends the same bytes. */
  payload: string;
  created_at: string;
  /** Delivery state (migration 0003); defaults make every new event owed a delivery. */
  delivery_status: Generated<string>;
  attempt_count: Generated<number>;
  schedule_step: Generated<number>;
  next_attempt_at: string | null;
  claimed_until: string | null;
  delivered_at: string | null;
}

/** One row per webhook delivery attempt. */
export interface WebhookAttemptsTable {
  event_id: string;
  attempt_number: number;
  url: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  status_code: number | null;
  outcome: string | null;
  error: string | null;
  response_body: string | null;
  next_attempt_at: string | null;
}

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
export interface GaslessAuthorizationsTable {
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
  tx_hash: string | null;
  raw_tx: string | null;
  relayer_nonce: string | null;
  gas_used: string | null;
  fee_wei: string | null;
  failure_reason: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface IdempotencyKeysTable {
  merchant_id: string;
  key: string;
  /** SHA-256 of the request body's bytes: the same key with another body is a client bug. */
  request_hash: string;
  /** Null while the first request is in flight. */
  payment_id: string | null;
  claimed_at: string;
  expires_at: string;
}

export interface DashboardUsersTable {
  id: string;
  email: string;
  /** 'operator' | 'merchant' */
  role: string;
  /** The merchant a merchant user belongs to; null for operators. */
  merchant_id: string | null;
  /** `scrypt$…` (passwordHash.ts); null until the person sets a password. */
  password_hash: string | null;
  /** Base32 TOTP secret once the user enrolled a second factor. */
  totp_secret: string | null;
  /** The last TOTP time step accepted: a code is good once. */
  totp_last_step: string | number | bigint | null;
  /** 'active' | 'disabled' */
  status: string;
  created_at: string;
  updated_at: string;
}

export interface DashboardPasswordLinksTable {
  token_hash: string;
  user_id: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface DashboardSessionsTable {
  token_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  /** The absolute end, whatever the activity. */
  expires_at: string;
}

/** The e-mail queue (migration 0020): each message rendered when queued, with its delivery state. */
export interface EmailMessagesTable {
  id: string;
  kind: string;
  merchant_id: string;
  payment_id: string | null;
  refund_id: string | null;
  recipient: string;
  language: string;
  subject: string;
  text_body: string;
  html_body: string;
  status: Generated<string>;
  attempt_count: Generated<number>;
  next_attempt_at: string | null;
  claimed_until: string | null;
  last_error: string | null;
  last_response_code: number | null;
  message_id: string;
  smtp_response: string | null;
  created_at: string;
  sent_at: string | null;
  failed_at: string | null;
}

export interface DatabaseSchema {
  merchants: MerchantsTable;
  api_keys: ApiKeysTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  payment_links: PaymentLinksTable;
  transfers: TransfersTable;
  unaccepted_transfers: UnacceptedTransfersTable;
  deposit_balances: DepositBalancesTable;
  chain_cursors: ChainCursorsTable;
  chain_blocks: ChainBlocksTable;
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_attempts: WebhookAttemptsTable;
  settlements: SettlementsTable;
  settlement_items: SettlementItemsTable;
  relayer_transactions: RelayerTransactionsTable;
  relayer_accounts: RelayerAccountsTable;
  gasless_authorizations: GaslessAuthorizationsTable;
  dashboard_users: DashboardUsersTable;
  dashboard_password_links: DashboardPasswordLinksTable;
  dashboard_sessions: DashboardSessionsTable;
  email_messages: EmailMessagesTable;
}

export type { Generated };
