import type { Selectable } from 'kysely';
import type {
  RelayerBalanceReading,
  RelayerTransactionRecord,
  RelayerTransactionStatus,
} from '../../app/settlement/ports.ts';
import type { Db } from './db.ts';
import type { RelayerTransactionsTable } from './schema.ts';
import { dateOrNull, oneOf } from './storedValues.ts';

/**
 * What the settler keeps of its relayer: every transaction it signed (stored before it is broadcast, so that a
 * restart re-broadcasts or replaces that very transaction) and the gas balance it last read.
 */

const TRANSACTION_STATUSES: readonly RelayerTransactionStatus[] = [
  'signed',
  'broadcast',
  'mined',
  'replaced',
];

/** Nonces are far below 2^53; the conversion still refuses a silently wrong one. */
export function nonceParam(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`nonce out of range: ${value}`);
  return n;
}

function toTransaction(row: Selectable<RelayerTransactionsTable>): RelayerTransactionRecord {
  return {
    id: row.id,
    settlementId: row.settlement_id,
    chainId: Number(row.chain_id),
    fromAddress: row.from_address,
    nonce: BigInt(row.nonce),
    txHash: row.tx_hash,
    rawTx: row.raw_tx,
    gas: BigInt(row.gas),
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    status: oneOf(TRANSACTION_STATUSES, row.status, `relayer transaction ${row.id}'s status`),
    replacesId: row.replaces_id,
    createdAt: new Date(row.created_at),
    broadcastAt: dateOrNull(row.broadcast_at),
  };
}

function transactionRow(t: RelayerTransactionRecord): Selectable<RelayerTransactionsTable> {
  return {
    id: t.id,
    settlement_id: t.settlementId,
    chain_id: t.chainId,
    from_address: t.fromAddress.toLowerCase(),
    nonce: nonceParam(t.nonce),
    tx_hash: t.txHash.toLowerCase(),
    raw_tx: t.rawTx,
    gas: t.gas.toString(),
    max_fee_per_gas: t.maxFeePerGas.toString(),
    max_priority_fee_per_gas: t.maxPriorityFeePerGas.toString(),
    status: t.status,
    replaces_id: t.replacesId,
    created_at: t.createdAt.toISOString(),
    broadcast_at: t.broadcastAt?.toISOString() ?? null,
  };
}

export async function insertTransaction(executor: Db, transaction: RelayerTransactionRecord): Promise<void> {
  await executor.insertInto('relayer_transactions').values(transactionRow(transaction)).execute();
}

/** A settlement's transactions, oldest attempt first. */
export async function transactionsOf(
  executor: Db,
  settlementId: string,
): Promise<RelayerTransactionRecord[]> {
  const rows = await executor
    .selectFrom('relayer_transactions')
    .selectAll()
    .where('settlement_id', '=', settlementId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  // Replacements come later and pay more: sorted by time, then fee, the last is the current attempt.
  return rows
    .map(toTransaction)
    .sort(
      (a, b) =>
        a.createdAt.getTime() - b.createdAt.getTime() ||
        (a.maxFeePerGas < b.maxFeePerGas ? -1 : a.maxFeePerGas > b.maxFeePerGas ? 1 : 0),
    );
}

export async function markBroadcast(db: Db, transactionId: string, at: Date): Promise<void> {
  await db
    .updateTable('relayer_transactions')
    .set({ status: 'broadcast', broadcast_at: at.toISOString() })
    .where('id', '=', transactionId)
    .where('status', '=', 'signed')
    .execute();
}

/** A closed settlement's transactions: the mined one (if any) as mined, every other as replaced. */
export async function closeTransactions(
  trx: Db,
  settlementId: string,
  minedTxId: string | null,
): Promise<void> {
  await trx
    .updateTable('relayer_transactions')
    .set({ status: 'replaced' })
    .where('settlement_id', '=', settlementId)
    .$if(minedTxId !== null, (q) => q.where('id', '<>', minedTxId!))
    .execute();
  if (minedTxId !== null) {
    await trx
      .updateTable('relayer_transactions')
      .set({ status: 'mined' })
      .where('id', '=', minedTxId)
      .where('settlement_id', '=', settlementId)
      .execute();
  }
}

export async function recordRelayerBalance(db: Db, reading: RelayerBalanceReading): Promise<void> {
  const row = {
    chain_id: reading.chainId,
    address: reading.address.toLowerCase(),
    balance_wei: reading.balanceWei.toString(),
    low_balance_wei: reading.lowBalanceWei.toString(),
    observed_at: reading.observedAt.toISOString(),
  };
  await db
    .insertInto('relayer_accounts')
    .values(row)
    .onConflict((oc) => oc.column('chain_id').doUpdateSet(row))
    .execute();
}

/** The last balance read of each chain's relayer (the settler's, and /metrics' and /readyz' view of it). */
export async function relayerBalances(db: Db): Promise<RelayerBalanceReading[]> {
  const rows = await db.selectFrom('relayer_accounts').selectAll().orderBy('chain_id').execute();
  return rows.map((row) => ({
    chainId: Number(row.chain_id),
    address: row.address,
    balanceWei: BigInt(row.balance_wei),
    lowBalanceWei: BigInt(row.low_balance_wei),
    observedAt: new Date(row.observed_at),
  }));
}
