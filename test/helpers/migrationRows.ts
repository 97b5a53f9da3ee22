import { type Insertable, Migrator } from 'kysely';
import { openDatabase } from '../../src/adapters/db/database.ts';
import type { DialectName } from '../../src/adapters/db/db.ts';
import { migrations } from '../../src/adapters/db/migrations/index.ts';
import { paymentRow } from '../../src/adapters/db/paymentRepository.ts';
import type { MerchantsTable } from '../../src/adapters/db/schema.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { createEmptyDatabase } from './database.ts';

/**
 * A merchant's row as every migration since 0001 has left the table (the keys live in their own table): what the
 * tests of a migration insert first, under the payments and rows they write for the step under test.
 */
export function merchantRow(id: string, at: string): Insertable<MerchantsTable> {
  return {
    id,
    name: 'Shop',
    wallet_address: null,
    webhook_url: null,
    webhook_secret: 'whsec',
    previous_webhook_secret: null,
    previous_webhook_secret_until: null,
    commission_bps: 100,
    underpayment_tolerance_bps: 0,
    status: 'active',
    created_at: at,
    updated_at: at,
  };
}

/**
 * A payment's row as written before migration 0039 (no `txid_chain_id` yet), for the tests of earlier
 * migrations, which insert today's rows into a database migrated only up to the migration they test.
 */
export function paymentRowBefore0039(payment: Payment) {
  const { txid_chain_id: _, ...row } = paymentRowBefore0040(payment);
  return row;
}

/** A payment's row as written before migration 0040 (no `title`, `description` or `line_items` yet). */
export function paymentRowBefore0040(payment: Payment) {
  const { title: _t, description: _d, line_items: _l, ...row } = paymentRowBefore0042(payment);
  return row;
}

/** A payment's row as written before migration 0042 (no `reference` yet). */
export function paymentRowBefore0042(payment: Payment) {
  const { reference: _, ...row } = paymentRow(payment);
  return row;
}

/**
 * An empty database migrated up to `name` and no further, with its migrator for the step under test (the tests of
 * a migration write rows as they were before it, then migrate to the latest).
 */
export async function databaseMigratedTo(dialect: DialectName, name: string) {
  const empty = await createEmptyDatabase(dialect);
  const handle = openDatabase(empty.url);
  const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo(name);
  if (error !== undefined) {
    await handle.close();
    await empty.drop();
    throw error;
  }
  return { handle, migrator, drop: empty.drop };
}

/**
 * A plan's row as migration 0048 made the table: merchant `mch_1`'s live monthly plan "Pro", 10 USDC, no trial,
 * three days' grace, open-ended; `terms` changes what a test needs otherwise.
 */
export function planRowAt0048(
  id: string,
  at: string,
  terms: {
    readonly currency?: string;
    readonly amount_minor_units?: string;
    readonly trial_days?: number;
    readonly idempotency_key?: string | null;
    readonly request_hash?: string | null;
  } = {},
) {
  return {
    id,
    merchant_id: 'mch_1',
    mode: 'live',
    name: 'Pro',
    description: null,
    currency: 'USDC',
    amount_minor_units: '10000000',
    interval_unit: 'month',
    interval_count: 1,
    trial_days: 0,
    grace_days: 3,
    periods: null,
    archived_at: null,
    idempotency_key: null,
    request_hash: null,
    created_at: at,
    ...terms,
  };
}

/** A subscription's row as migration 0048 made the table: `ada@example.com` on plan `p1`, anchored at `at`. */
export function subscriptionRowAt0048(
  id: string,
  at: string,
  facts: { readonly customer_email?: string; readonly announced_status?: string } = {},
) {
  return {
    id,
    merchant_id: 'mch_1',
    mode: 'live',
    plan_id: 'p1',
    customer_email: 'ada@example.com',
    customer_wallet: null,
    language: null,
    started_at: at,
    anchor: at,
    cancel_at: null,
    canceled_by: null,
    announced_status: 'past_due',
    next_check_at: at,
    claimed_until: null,
    idempotency_key: null,
    request_hash: null,
    created_at: at,
    updated_at: at,
    ...facts,
  };
}
