import type { Generated } from 'kysely';
import type {
  DashboardPasswordLinksTable,
  DashboardSessionsTable,
  DashboardUsersTable,
} from './dashboardSchema.ts';
import type {
  EmailMessagesTable,
  EventsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookDeliveryAttemptsTable,
  WebhookEndpointsTable,
} from './messageSchema.ts';
import type { MerchantBrandsTable, PosCatalogueItemsTable } from './posSchema.ts';
import type {
  BridgeTransfersTable,
  GaslessAuthorizationsTable,
  RelayerAccountsTable,
  RelayerTransactionsTable,
  SettlementItemsTable,
  SettlementsTable,
} from './settlementSchema.ts';
import type {
  ChargerCursorsTable,
  SubscriptionChargesTable,
  SubscriptionMandatesTable,
  SubscriptionPaymentsTable,
  SubscriptionPlansTable,
  SubscriptionsTable,
} from './subscriptionSchema.ts';

export type * from './dashboardSchema.ts';
export type * from './messageSchema.ts';
export type * from './settlementSchema.ts';

/**
 * Table types, shared by both dialects. Portable column choices (docs/decisions/0004-storage.md):
 * money in base units as TEXT integers (no float, no 64-bit driver surprises), timestamps as ISO-8601 UTC TEXT
 * (sortable, identical on SQLite and PostgreSQL), booleans as INTEGER 0/1. The settler's, the messages' and the
 * dashboard's tables are in settlementSchema.ts, messageSchema.ts and dashboardSchema.ts, re-exported here.
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
  /** Null while the key is current; set when it is rotated out (with a grace period), or chosen at creation. */
  expires_at: string | null;
  /** `secret`: every scope and key management; `restricted`: only `scopes` (migration 0044). */
  kind: 'secret' | 'restricted';
  /** A restricted key's scopes, space-separated; empty for a secret key. */
  scopes: string;
  /** A restricted key's name; null for a secret key. */
  name: string | null;
  revoked_at: string | null;
  /** Written at most once a minute per key. */
  last_used_at: string | null;
}

export interface PaymentsTable {
  id: string;
  /** `PL-…` (migration 0042); null only for a payment made before whose reference was taken. */
  reference: string | null;
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
  /** The chain of that transfer (migration 0039). */
  txid_chain_id: number | null;
  /** The accepted token of that transfer (migration 0013). */
  paid_token_address: string | null;
  paid_token_symbol: string | null;
  settled_base_units: Generated<string>;
  payout_tx_hash: string | null;
  settled_at: string | null;
  return_url: string | null;
  /** Flush attempts that failed in a row (migration 0005); the back-off grows with them (migration 0011). */
  settlement_failures: Generated<number>;
  /** What went to each recipient (migration 0011); with the CCTP fee, their sum is `settled_base_units`. */
  merchant_paid_base_units: Generated<string>;
  treasury_paid_base_units: Generated<string>;
  /** The fees CCTP took of the payment's transfers to the home chain (migration 0031). */
  bridge_fee_base_units: Generated<string>;
  /** The most CCTP may still keep of its burns not minted yet (migration 0031). */
  bridge_fee_bound_base_units: Generated<string>;
  /** The most the quote let CCTP keep of what was burnt, and how many burns were bound above it (0032). */
  bridge_fee_quoted_base_units: Generated<string>;
  bridge_burns_above_quote: Generated<number>;
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
  /**
   * 'payment', 'refund' for a refund's deposit address (migration 0015; same id as the refund), or 'x402' for a
   * merchant's x402 address (migration 0047; one per merchant and mode).
   */
  kind: Generated<string>;
  /** Where the customer goes, the merchant's references (JSON), the link paid through (migration 0021). */
  success_url: string | null;
  cancel_url: string | null;
  metadata: string | null;
  link_id: string | null;
  /** The public receipt page's token, set when the receipt is queued (migration 0024). */
  receipt_token: Generated<string | null>;
  /** The language the merchant gave, and the one the checkout showed the payer (migration 0025). */
  customer_language: string | null;
  payer_language: string | null;
  /** What the customer is told they buy; the lines as JSON, money as integer text (migration 0040). */
  title: string | null;
  description: string | null;
  line_items: string | null;
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
  /** One purchase's lines as JSON, money as integer text (migration 0040). */
  line_items: string | null;
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
  /** The fast burn carrying it home (migration 0037); null until one does. */
  bridge_transfer_id: string | null;
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
  /** The home chain's row: what CCTP minted into the forwarder for this payment (migration 0027). */
  bridged_base_units: Generated<string>;
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
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  settlements: SettlementsTable;
  settlement_items: SettlementItemsTable;
  relayer_transactions: RelayerTransactionsTable;
  relayer_accounts: RelayerAccountsTable;
  bridge_transfers: BridgeTransfersTable;
  gasless_authorizations: GaslessAuthorizationsTable;
  dashboard_users: DashboardUsersTable;
  dashboard_password_links: DashboardPasswordLinksTable;
  dashboard_sessions: DashboardSessionsTable;
  email_messages: EmailMessagesTable;
  pos_catalogue_items: PosCatalogueItemsTable;
  merchant_brands: MerchantBrandsTable;
  subscription_plans: SubscriptionPlansTable;
  subscriptions: SubscriptionsTable;
  subscription_payments: SubscriptionPaymentsTable;
  subscription_mandates: SubscriptionMandatesTable;
  subscription_charges: SubscriptionChargesTable;
  charger_cursors: ChargerCursorsTable;
  x402_payments: X402PaymentsTable;
}

/** Each call settled through the x402 facilitator (migration 0047): its payment and its signed authorization. */
export interface X402PaymentsTable {
  payment_id: string;
  authorization_id: string;
  merchant_id: string;
  /** CAIP-2, `eip155:<chain id>`. */
  network: string;
  /** The resource paid for, as the resource server named it. */
  resource_url: string | null;
  /** The authorizer, lowercase. */
  payer: string;
  created_at: string;
}

export type { Generated };
