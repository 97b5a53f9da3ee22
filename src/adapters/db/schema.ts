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
  commission_bps: number;
  underpayment_tolerance_bps: number;
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
  amount_received_base_units: string;
  paid_at: string | null;
  late: number;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export interface DatabaseSchema {
  merchants: MerchantsTable;
  api_keys: ApiKeysTable;
  payments: PaymentsTable;
}

export type { Generated };
