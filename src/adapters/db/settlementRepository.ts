import { type Selectable, sql, type UpdateObject } from 'kysely';
import type {
  RelayerTransactionRecord,
  SettlementClosing,
  SettlementItem,
  SettlementRecord,
  SettlementStatus,
  SettlementStore,
  SettlementTransaction,
} from '../../app/settlement/ports.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PayoutProgress } from '../../domain/payout.ts';
import type { DatabaseHandle } from './database.ts';
import type { Db, DialectName } from './db.ts';
import { depositBalanceOf } from './depositBalance.ts';
import { insertOutboxEvent } from './outbox.ts';
import { toPayment } from './paymentRepository.ts';
import {
  closeTransactions,
  insertTransaction,
  markBroadcast,
  nonceParam,
  recordRelayerBalance,
  relayerBalances,
  transactionsOf,
} from './relayerRecords.ts';
import type { DatabaseSchema, SettlementsTable } from './schema.ts';
import { dateOrNull, oneOf } from './storedValues.ts';
import { isUniqueViolation } from './uniqueViolation.ts';
import {
  delayedUnnotified,
  listUnsettled,
  requestSweep,
  retryNow,
  settlementCandidates,
} from './unsettledPayments.ts';

/**
 * The settler's records: settlements (one flush each, its items, its transactions), what each flush paid out,
 * and what is still owed (unsettledPayments.ts). Only the settler holding a chain's worker lock writes them.
 */
export function settlementRepository(handle: DatabaseHandle): SettlementStore {
  const { db, dialect } = handle;
  return {
    inFlight: (chainId) => inFlight(db, chainId),
    candidates: (chainId, options) => settlementCandidates(db, chainId, options),
    requestSweep: (paymentId, tokenAddress, balance) => requestSweep(db, paymentId, tokenAddress, balance),
    highestNonce: (chainId) => highestNonce(db, chainId),
    create: (settlement, items, transaction) => createSettlement(db, settlement, items, transaction),
    addTransaction: (transaction) => insertTransaction(db, transaction),
    markBroadcast: (transactionId, at) => markBroadcast(db, transactionId, at),
    transaction: (work) => db.transaction().execute((trx) => work(transactionOf(trx, dialect))),
    delayedUnnotified: (chainId, blockedBefore, limit) =>
      delayedUnnotified(db, chainId, blockedBefore, limit),
    listUnsettled: (filter) => listUnsettled(db, filter),
    retryNow: (target) => retryNow(db, target),
    recordRelayerBalance: (reading) => recordRelayerBalance(db, reading),
    relayerBalances: () => relayerBalances(db),
  };
}

/** What a settler does in one transaction when a flush is mined or given up. */
function transactionOf(trx: Db, dialect: DialectName): SettlementTransaction {
  return {
    closeSettlement: (settlementId, closing, at) => closeSettlement(trx, settlementId, closing, at),
    lockPayments: (ids) => lockPayments(trx, dialect, ids),
    recordFlush: (ownerId, chainId, tokenAddress, merchantSent, feeSent) =>
      recordFlush(trx, ownerId, chainId, tokenAddress, merchantSent, feeSent),
    savePayout: (paymentId, payout, at) => savePayout(trx, paymentId, payout, at),
    insertEvent: (event) => insertOutboxEvent(trx, event),
  };
}

const SETTLEMENT_STATUSES: readonly SettlementStatus[] = ['pending', 'confirmed', 'failed'];

async function loadSettlement(executor: Db, row: Selectable<SettlementsTable>): Promise<SettlementRecord> {
  const items = await executor
    .selectFrom('settlement_items')
    .innerJoin('payments', 'payments.id', 'settlement_items.payment_id')
    .select([
      'settlement_items.payment_id',
      'settlement_items.expected_base_units',
      'payments.deposit_address',
    ])
    .where('settlement_items.settlement_id', '=', row.id)
    .orderBy('settlement_items.payment_id')
    .execute();
  return {
    id: row.id,
    chainId: Number(row.chain_id),
    nonce: BigInt(row.nonce),
    status: oneOf(SETTLEMENT_STATUSES, row.status, `settlement ${row.id}'s status`),
    payoutTxHash: row.payout_tx_hash,
    failureReason: row.failure_reason,
    createdAt: new Date(row.created_at),
    completedAt: dateOrNull(row.completed_at),
    items: items.map((item) => {
      if (!item.deposit_address) throw new Error(`payment ${item.payment_id} has no deposit address`);
      return {
        paymentId: item.payment_id,
        depositAddress: item.deposit_address,
        expectedBaseUnits: BigInt(item.expected_base_units),
      };
    }),
    transactions: await transactionsOf(executor, row.id),
  };
}

async function inFlight(db: Db, chainId: number): Promise<SettlementRecord | undefined> {
  const row = await db
    .selectFrom('settlements')
    .selectAll()
    .where('chain_id', '=', chainId)
    .where('status', '=', 'pending')
    .orderBy('nonce')
    .executeTakeFirst();
  return row && loadSettlement(db, row);
}

async function highestNonce(db: Db, chainId: number): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('settlements')
    .select((eb) => eb.fn.max('nonce').as('highest'))
    .where('chain_id', '=', chainId)
    .executeTakeFirst();
  return row?.highest === null || row?.highest === undefined ? undefined : BigInt(row.highest);
}

async function createSettlement(
  db: Db,
  settlement: { id: string; chainId: number; nonce: bigint; createdAt: Date },
  items: readonly SettlementItem[],
  transaction: RelayerTransactionRecord,
): Promise<boolean> {
  if (items.length === 0) throw new RangeError('a settlement needs at least one payment');
  try {
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('settlements')
        .values({
          id: settlement.id,
          chain_id: settlement.chainId,
          nonce: nonceParam(settlement.nonce),
          status: 'pending',
          payout_tx_hash: null,
          failure_reason: null,
          created_at: settlement.createdAt.toISOString(),
          completed_at: null,
        })
        .execute();
      await trx
        .insertInto('settlement_items')
        .values(
          items.map((item) => ({
            settlement_id: settlement.id,
            payment_id: item.paymentId,
            expected_base_units: item.expectedBaseUnits.toString(),
          })),
        )
        .execute();
      await insertTransaction(trx, transaction);
    });
    return true;
  } catch (error) {
    // Another settler opened a settlement first (settlements_one_pending): nothing was written.
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

async function closeSettlement(
  trx: Db,
  settlementId: string,
  closing: SettlementClosing,
  at: Date,
): Promise<boolean> {
  const result = await trx
    .updateTable('settlements')
    .set(
      closing.status === 'confirmed'
        ? {
            status: 'confirmed',
            payout_tx_hash: closing.payoutTxHash.toLowerCase(),
            completed_at: at.toISOString(),
          }
        : { status: 'failed', failure_reason: closing.reason, completed_at: at.toISOString() },
    )
    .where('id', '=', settlementId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  // Pending → done, only once: whoever loses a race writes nothing.
  if (result.numUpdatedRows !== 1n) return false;
  await closeTransactions(trx, settlementId, closing.minedTxId);
  return true;
}

/** Row locks in a stable order (PostgreSQL); SQLite has one writer at a time already. */
async function lockPayments(trx: Db, dialect: DialectName, ids: readonly string[]): Promise<Payment[]> {
  if (ids.length === 0) return [];
  let query = trx
    .selectFrom('payments')
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id');
  if (dialect === 'postgres') query = query.forUpdate();
  return (await query.execute()).map(toPayment);
}

async function recordFlush(
  trx: Db,
  ownerId: string,
  chainId: number,
  tokenAddress: string,
  merchantSent: bigint,
  feeSent: bigint,
): Promise<{ readonly accepted: boolean }> {
  const token = tokenAddress.toLowerCase();
  const row = await depositBalanceOf(trx, { ownerId, chainId, tokenAddress: token });
  if (!row) return { accepted: false };
  const merchant = BigInt(row.merchant_paid_base_units) + merchantSent;
  const treasury = BigInt(row.treasury_paid_base_units) + feeSent;
  await trx
    .updateTable('deposit_balances')
    .set({
      merchant_paid_base_units: merchant.toString(),
      treasury_paid_base_units: treasury.toString(),
      settled_base_units: (merchant + treasury).toString(),
    })
    .where('owner_id', '=', ownerId)
    .where('chain_id', '=', chainId)
    .where('token_address', '=', token)
    .execute();
  return { accepted: Number(row.accepted) === 1 };
}

async function savePayout(trx: Db, paymentId: string, payout: PayoutProgress, at: Date): Promise<void> {
  await trx.updateTable('payments').set(payoutColumns(payout, at)).where('id', '=', paymentId).execute();
}

/**
 * The payout columns of a payment; `settled_base_units` is their sum with the CCTP fee, kept for the unsettled
 * index. The fee itself is the bridge's to write (`bridge_fee_base_units`), so the sum takes it from the row.
 */
function payoutColumns(payout: PayoutProgress, at: Date): UpdateObject<DatabaseSchema, 'payments'> {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  const sent = (payout.merchantPaidBaseUnits + payout.treasuryPaidBaseUnits).toString();
  return {
    merchant_paid_base_units: payout.merchantPaidBaseUnits.toString(),
    treasury_paid_base_units: payout.treasuryPaidBaseUnits.toString(),
    // The fee as the row holds it now, not as read: a mint recorded since cannot be undone by a stale payout.
    settled_base_units: sql<string>`cast(cast(${sent} as bigint) + cast(bridge_fee_base_units as bigint) as text)`,
    payout_tx_hash: payout.txHash?.toLowerCase() ?? null,
    settled_at: iso(payout.sentAt),
    settlement_failures: payout.failures,
    settlement_retry_at: iso(payout.retryAt),
    payout_blocked_since: iso(payout.blockedSince),
    payout_blocked_reason: payout.blockedReason,
    commission_blocked_since: iso(payout.commissionBlockedSince),
    commission_blocked_reason: payout.commissionBlockedReason,
    payout_delay_notified_at: iso(payout.delayNotifiedAt),
    updated_at: at.toISOString(),
  };
}
