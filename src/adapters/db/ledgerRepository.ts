import type {
  BlockRef,
  ChainCursor,
  Ledger,
  OutboxEvent,
  TransferRecord,
  UnacceptedTransfer,
} from '../../app/chain/ports.ts';
import type { DatabaseHandle } from './database.ts';
import type { Db } from './db.ts';
import {
  blockParam,
  type LedgerReactions,
  ledgerTransaction,
  listTransfers,
  toTransfer,
} from './ledgerTransaction.ts';
import { toOutboxEvent } from './outbox.ts';

/**
 * What the chain watcher reads between its transactions, and its transactions (ledgerTransaction.ts), which
 * run `reactions` where they raise what happened (a payment paid).
 */
export function ledgerRepository(handle: DatabaseHandle, reactions: LedgerReactions = {}): Ledger {
  const { db, dialect } = handle;
  return {
    transaction: (work) =>
      db.transaction().execute((trx) => work(ledgerTransaction(trx, dialect, reactions))),
    paymentsByDepositAddress: (chainId, addresses, factory) =>
      paymentsByDepositAddress(db, chainId, addresses, factory),
    cursor: (chainId) => cursor(db, chainId),
    recentBlocks: (chainId, atOrBelow, limit) => recentBlocks(db, chainId, atOrBelow, limit),
    transfersToFinalize: (chainId, blockNumber, limit) =>
      transfersToFinalize(db, chainId, blockNumber, limit),
    earliestPaymentCreatedAt: (chainId) => earliestPaymentCreatedAt(db, chainId),
    openPaymentsPastExpiry: (now, limit) => openPaymentsPastExpiry(db, now, limit),
    listTransfers: (paymentId) => listTransfers(db, paymentId),
    listUnacceptedTransfers: (paymentId) => listUnacceptedTransfers(db, paymentId),
    listEvents: (paymentId) => listEvents(db, paymentId),
  };
}

/**
 * Addresses per IN list when matching logs: SQLite allows 32,766 parameters and PostgreSQL 65,535; beyond a
 * thousand or so the per-query overhead is already amortized (bench/matching.ts).
 */
const IN_LIST_SIZE = 1_000;

async function paymentsByDepositAddress(
  db: Db,
  chainId: number,
  addresses: readonly string[],
  factory: string | undefined,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let i = 0; i < addresses.length; i += IN_LIST_SIZE) {
    let query = db
      .selectFrom('payments')
      .select(['id', 'deposit_address'])
      .where('chain_id', '=', chainId)
      .where('deposit_address', 'in', addresses.slice(i, i + IN_LIST_SIZE));
    // Stored lowercase (paymentRepository), as the watcher passes it.
    if (factory !== undefined) query = query.where('factory_address', '=', factory);
    const rows = await query.execute();
    for (const row of rows) if (row.deposit_address) found.set(row.deposit_address, row.id);
  }
  return found;
}

async function cursor(db: Db, chainId: number): Promise<ChainCursor | undefined> {
  const row = await db
    .selectFrom('chain_cursors')
    .selectAll()
    .where('chain_id', '=', chainId)
    .executeTakeFirst();
  return (
    row && {
      chainId: Number(row.chain_id),
      nextBlock: BigInt(row.next_block),
      headBlock: BigInt(row.head_block),
      finalizedBlock: BigInt(row.finalized_block),
      updatedAt: new Date(row.updated_at),
    }
  );
}

async function recentBlocks(db: Db, chainId: number, atOrBelow: bigint, limit: number): Promise<BlockRef[]> {
  const rows = await db
    .selectFrom('chain_blocks')
    .selectAll()
    .where('chain_id', '=', chainId)
    .where('number', '<=', blockParam(atOrBelow))
    .orderBy('number', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ number: BigInt(r.number), hash: r.hash }));
}

async function transfersToFinalize(
  db: Db,
  chainId: number,
  blockNumber: bigint,
  limit: number,
): Promise<TransferRecord[]> {
  const rows = await db
    .selectFrom('transfers')
    .selectAll()
    .where('chain_id', '=', chainId)
    .where('final', '=', 0)
    .where('orphaned', '=', 0)
    .where('block_number', '<=', blockParam(blockNumber))
    .orderBy('block_number')
    .limit(limit)
    .execute();
  return rows.map(toTransfer);
}

async function earliestPaymentCreatedAt(db: Db, chainId: number): Promise<Date | undefined> {
  const row = await db
    .selectFrom('payments')
    .select((eb) => eb.fn.min('created_at').as('earliest'))
    .where('chain_id', '=', chainId)
    .executeTakeFirst();
  return row?.earliest ? new Date(row.earliest) : undefined;
}

async function openPaymentsPastExpiry(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('payments')
    .select('id')
    .where('status', 'in', ['pending', 'processing'])
    .where('expires_at', '<', now.toISOString())
    .orderBy('expires_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

async function listUnacceptedTransfers(db: Db, paymentId: string): Promise<UnacceptedTransfer[]> {
  const rows = await db
    .selectFrom('unaccepted_transfers')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('orphaned', '=', 0)
    .orderBy('block_number')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    chainId: Number(row.chain_id),
    paymentId: row.payment_id,
    txHash: row.tx_hash,
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash,
    tokenAddress: row.token_address,
    tokenSymbol: row.token_symbol,
    tokenDecimals: Number(row.token_decimals),
    amountBaseUnits: BigInt(row.amount_base_units),
    fromAddress: row.from_address,
    seenAt: new Date(row.seen_at),
  }));
}

async function listEvents(db: Db, paymentId: string): Promise<OutboxEvent[]> {
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .orderBy('sequence')
    .execute();
  return rows.map(toOutboxEvent);
}
