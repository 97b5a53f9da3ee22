// Subscriptions' tables (migration 0048, decision 0060); schema.ts holds the whole schema.
import type { Generated } from 'kysely';
import type { RelayedTransactionColumns } from './relayedColumns.ts';

/** A merchant's plan: its price in `currency`'s minor units as integer text, its calendar as integers. */
export interface SubscriptionPlansTable {
  id: string;
  merchant_id: string;
  mode: string;
  name: string;
  description: string | null;
  currency: string;
  amount_minor_units: string;
  interval_unit: string;
  interval_count: number;
  trial_days: number;
  grace_days: number;
  periods: number | null;
  archived_at: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: string;
}

/** A plan bought by a customer: the facts its status is derived from, and the renewal job's lease. */
export interface SubscriptionsTable {
  id: string;
  merchant_id: string;
  mode: string;
  plan_id: string;
  customer_email: string;
  customer_wallet: string | null;
  language: string | null;
  started_at: string;
  anchor: string;
  cancel_at: string | null;
  canceled_by: string | null;
  announced_status: string;
  /** When the renewal job must look at it next; null once it is canceled or ended. */
  next_check_at: string | null;
  claimed_until: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: string;
  updated_at: string;
  /** The customer portal's token (migration 0050): the secret part of the portal's address. */
  portal_token: string | null;
  /** A plan change asked for, and the first period it bills (migration 0050); null: none. */
  pending_plan_id: string | null;
  pending_plan_from: number | null;
}

/** Each billed period's payment: one per (subscription, period). */
export interface SubscriptionPaymentsTable {
  subscription_id: string;
  period: number;
  payment_id: string;
  /** When the customer was reminded before the grace's end; null: not (yet). */
  reminded_at: string | null;
  /** What the subscription's events said of this period's payment: billed, paid or failed. */
  announced: Generated<string>;
  created_at: string;
}

/** A subscription's signed terms for the charger (decision 0061). */
export interface SubscriptionMandatesTable {
  subscription_id: string;
  chain_id: number;
  charger: string;
  mandate_id: string;
  customer: string;
  /** The terms as JSON (numbers of 64 bits and more as decimal strings). */
  terms: string;
  signature: string;
  permit: string | null;
  status: string;
  /** The charger's final `Canceled` of this mandate (migration 0054); null: none seen. */
  chain_canceled_tx: Generated<string | null>;
  chain_canceled_at: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

/** Per chain and charger, the first block whose `Canceled` logs are not read yet (migration 0054). */
export interface ChargerCursorsTable {
  chain_id: number;
  charger: string;
  /** A decimal string. */
  next_block: string;
  updated_at: string;
}

/** One pull charge per (subscription, period), its transaction recorded before it is broadcast. */
export interface SubscriptionChargesTable extends RelayedTransactionColumns {
  subscription_id: string;
  period: number;
  payment_id: string;
  chain_id: number;
  mandate_id: string;
  amount_base_units: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}
