import type { Selectable } from 'kysely';
import type {
  BlockRef,
  ChainCursor,
  LedgerTransaction,
  PaymentStateUpdate,
  TransferRecord,
  UnacceptedTransfer,
} from '../../app/chain/ports.ts';
import type { EmailMessage } from '../../app/email/ports.ts';
import type { ReceiptTransaction } from '../../app/email/receipts.ts';
import type { Payment } from '../../domain/payment.ts';
import { brandRepository } from './brandRepository.ts';
import type { Db, DialectName } from './db.ts';
import { insertEmailMessage } from './emailOutbox.ts';
import { merchantRepository } from './merchantRepository.ts';
import { insertOutboxEvent } from './outbox.ts';
import { toPayment } from './paymentRepository.ts';
import type { TransfersTable } from './schema.ts';
import { flag } from './storedValues.ts';

/**
 * What the wiring does when a ledger transaction raises that a payment has just become paid: the e-mail
 * capability's reaction (the customer's receipt), given the same database transaction through its own port, so
 * the receipt commits with the status change or not at all (decision 0043).
 */
export interface LedgerReactions {
  readonly paymentPaid?:
    | ((tx: ReceiptTransaction, payment: Payment, now: Date) => Promise<unknown>)
    | undefined;
  /** A paid payment that has just counted more (an overpayment): the customer's updated receipt (decision 0050). */
  readonly paymentTopUp?:
    | ((tx: ReceiptTransaction, payment: Payment, now: Date) => Promise<unknown>)
    | undefined;
}

/**
 * The chain watcher's writes, each committed with the others of its pass: transfers, reorgs and finality, the
 * cursor and the recent blocks, and the payment state (and event) they lead to.
 */
export function ledgerTransaction(
  trx: Db,
  dialect: DialectName,
  reactions: LedgerReactions = {},
): LedgerTransaction {
  return {
    insertTransfers: (transfers) => insertTransfers(trx, transfers),
    insertUnacceptedTransfers: (transfers) => insertUnacceptedTransfers(trx, transfers),
    saveReceivedByToken: (paymentId, chainId, received) =>
      saveReceivedByToken(trx, paymentId, chainId, received),
    rewindAbove: (chainId, blockNumber) => rewindAbove(trx, chainId, blockNumber),
    orphanTransfers: (ids) => orphanTransfers(trx, ids),
    markFinal: (chainId, blockNumber) => markFinal(trx, chainId, blockNumber),
    saveCursor: (cursor) => saveCursor(trx, cursor),
    saveBlocks: (chainId, blocks) => saveBlocks(trx, chainId, blocks),
    pruneBlocksBelow: (chainId, blockNumber) => pruneBlocksBelow(trx, chainId, blockNumber),
    lockPayment: (paymentId) => lockPayment(trx, dialect, paymentId),
    listTransfers: (paymentId) => listTransfers(trx, paymentId),
    updatePaymentState: (paymentId, update) => updatePaymentState(trx, paymentId, update),
    touchPayment: (paymentId, at) => touchPayment(trx, paymentId, at),
    insertEvent: (event) => insertOutboxEvent(trx, event),
    paymentPaid: async (payment, now) => {
      await reactions.paymentPaid?.(receiptTransaction(trx), payment, now);
    },
    paymentTopUp: async (payment, now) => {
      await reactions.paymentTopUp?.(receiptTransaction(trx), payment, now);
    },
  };
}

/** The receipt's writes, in the ledger's transaction. */
function receiptTransaction(trx: Db): ReceiptTransaction {
  return {
    findMerchant: (merchantId) => merchantRepository(trx).find(merchantId),
    findBrand: (merchantId) => brandRepository(trx).find(merchantId),
    insertReceipt: (paymentId, token, message) => insertReceipt(trx, paymentId, token, message),
    listTransfers: (paymentId) => listTransfers(trx, paymentId),
    findReceiptToken: async (paymentId) => {
      const row = await trx
        .selectFrom('payments')
        .select('receipt_token')
        .where('id', '=', paymentId)
        .executeTakeFirst();
      return row?.receipt_token ?? null;
    },
    insertMessage: (message) => insertEmailMessage(trx, message),
  };
}

/** Block numbers fit in a double for the next few million years of Polygon; we still refuse silently wrong ones. */
export function blockParam(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`block number out of range: ${value}`);
  return n;
}

export function toTransfer(row: Selectable<TransfersTable>): TransferRecord {
  return {
    id: row.id,
    chainId: Number(row.chain_id),
    paymentId: row.payment_id,
    txHash: row.tx_hash,
    logIndex: Number(row.log_index),
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash,
    blockTimestamp: new Date(row.block_timestamp),
    tokenAddress: row.token_address,
    tokenSymbol: row.token_symbol,
    fromAddress: row.from_address,
    toAddress: row.to_address,
    amountBaseUnits: BigInt(row.amount_base_units),
    final: flag(row.final),
    orphaned: flag(row.orphaned),
  };
}

/** A transfer with the step of the fast burn carrying it home, if one does (migration 0037). */
function toCarriedTransfer(
  row: Selectable<TransfersTable> & { readonly carrier_step: string | null },
): TransferRecord {
  const transfer = toTransfer(row);
  if (row.bridge_transfer_id === null || row.carrier_step === null) return transfer;
  return { ...transfer, carriedHome: row.carrier_step === 'done' ? 'minted' : 'under-way' };
}

function transferRow(t: TransferRecord, createdAt: string): Selectable<TransfersTable> {
  return {
    id: t.id,
    chain_id: t.chainId,
    payment_id: t.paymentId,
    tx_hash: t.txHash,
    log_index: t.logIndex,
    block_number: blockParam(t.blockNumber),
    block_hash: t.blockHash,
    block_timestamp: t.blockTimestamp.toISOString(),
    token_address: t.tokenAddress,
    token_symbol: t.tokenSymbol,
    from_address: t.fromAddress,
    to_address: t.toAddress,
    amount_base_units: t.amountBaseUnits.toString(),
    final: t.final ? 1 : 0,
    orphaned: t.orphaned ? 1 : 0,
    created_at: createdAt,
    bridge_transfer_id: null,
  };
}

const unique = (ids: readonly { payment_id: string }[]) => [...new Set(ids.map((r) => r.payment_id))];

async function insertTransfers(trx: Db, transfers: readonly TransferRecord[]): Promise<string[]> {
  if (transfers.length === 0) return [];
  const createdAt = new Date().toISOString();
  const inserted = await trx
    .insertInto('transfers')
    .values(transfers.map((t) => transferRow(t, createdAt)))
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('payment_id')
    .execute();
  return unique(inserted);
}

async function insertUnacceptedTransfers(
  trx: Db,
  transfers: readonly UnacceptedTransfer[],
): Promise<UnacceptedTransfer[]> {
  if (transfers.length === 0) return [];
  const known = await trx
    .selectFrom('unaccepted_transfers')
    .select('id')
    .where(
      'id',
      'in',
      transfers.map((t) => t.id),
    )
    .execute();
  const knownIds = new Set(known.map((r) => r.id));
  const fresh = transfers.filter((t) => !knownIds.has(t.id));
  if (fresh.length === 0) return [];
  await trx
    .insertInto('unaccepted_transfers')
    .values(
      fresh.map((t) => ({
        id: t.id,
        chain_id: t.chainId,
        payment_id: t.paymentId,
        tx_hash: t.txHash,
        block_number: blockParam(t.blockNumber),
        block_hash: t.blockHash,
        token_address: t.tokenAddress,
        token_symbol: t.tokenSymbol,
        token_decimals: t.tokenDecimals,
        from_address: t.fromAddress,
        amount_base_units: t.amountBaseUnits.toString(),
        seen_at: t.seenAt.toISOString(),
      })),
    )
    .execute();
  return fresh;
}

async function saveReceivedByToken(
  trx: Db,
  paymentId: string,
  chainId: number,
  received: ReadonlyMap<string, bigint>,
): Promise<void> {
  for (const [token, amount] of received) {
    const row = {
      owner_id: paymentId,
      owner_kind: 'payment',
      chain_id: chainId,
      token_address: token.toLowerCase(),
      accepted: 1,
      received_base_units: amount.toString(),
    };
    await trx
      .insertInto('deposit_balances')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['owner_id', 'chain_id', 'token_address'])
          .doUpdateSet({ received_base_units: row.received_base_units }),
      )
      .execute();
  }
}

/** The chain's transfers neither final nor orphaned: the only ones a rewind or finality may still change. */
function openTransfers(trx: Db, chainId: number) {
  return trx
    .updateTable('transfers')
    .where('chain_id', '=', chainId)
    .where('final', '=', 0)
    .where('orphaned', '=', 0);
}

async function rewindAbove(trx: Db, chainId: number, blockNumber: bigint): Promise<string[]> {
  const orphaned = await openTransfers(trx, chainId)
    .set({ orphaned: 1 })
    .where('block_number', '>', blockParam(blockNumber))
    .returning('payment_id')
    .execute();
  await trx
    .updateTable('unaccepted_transfers')
    .set({ orphaned: 1 })
    .where('chain_id', '=', chainId)
    .where('block_number', '>', blockParam(blockNumber))
    .execute();
  await trx
    .deleteFrom('chain_blocks')
    .where('chain_id', '=', chainId)
    .where('number', '>', blockParam(blockNumber))
    .execute();
  return unique(orphaned);
}

async function orphanTransfers(trx: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const orphaned = await trx
    .updateTable('transfers')
    .set({ orphaned: 1 })
    .where('id', 'in', [...ids])
    .where('final', '=', 0)
    .returning('payment_id')
    .execute();
  return unique(orphaned);
}

async function markFinal(trx: Db, chainId: number, blockNumber: bigint): Promise<string[]> {
  const finalized = await openTransfers(trx, chainId)
    .set({ final: 1 })
    .where('block_number', '<=', blockParam(blockNumber))
    .returning('payment_id')
    .execute();
  return unique(finalized);
}

async function saveCursor(trx: Db, cursor: ChainCursor): Promise<void> {
  const row = {
    chain_id: cursor.chainId,
    next_block: blockParam(cursor.nextBlock),
    head_block: blockParam(cursor.headBlock),
    finalized_block: blockParam(cursor.finalizedBlock),
    updated_at: cursor.updatedAt.toISOString(),
  };
  await trx
    .insertInto('chain_cursors')
    .values(row)
    .onConflict((oc) => oc.column('chain_id').doUpdateSet(row))
    .execute();
}

async function saveBlocks(trx: Db, chainId: number, blocks: readonly BlockRef[]): Promise<void> {
  for (const block of blocks) {
    const row = { chain_id: chainId, number: blockParam(block.number), hash: block.hash };
    await trx
      .insertInto('chain_blocks')
      .values(row)
      .onConflict((oc) => oc.columns(['chain_id', 'number']).doUpdateSet({ hash: block.hash }))
      .execute();
  }
}

async function pruneBlocksBelow(trx: Db, chainId: number, blockNumber: bigint): Promise<void> {
  if (blockNumber <= 0n) return;
  await trx
    .deleteFrom('chain_blocks')
    .where('chain_id', '=', chainId)
    .where('number', '<', blockParam(blockNumber))
    .execute();
}

async function lockPayment(trx: Db, dialect: DialectName, paymentId: string): Promise<Payment | undefined> {
  let query = trx.selectFrom('payments').selectAll().where('id', '=', paymentId);
  // SQLite has one writer at a time already; PostgreSQL needs the row lock.
  if (dialect === 'postgres') query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toPayment(row);
}

/** A payment's transfers in chain order, orphaned ones included. */
export async function listTransfers(executor: Db, paymentId: string): Promise<TransferRecord[]> {
  const rows = await executor
    .selectFrom('transfers')
    .leftJoin('bridge_transfers as carrier', 'carrier.id', 'transfers.bridge_transfer_id')
    .selectAll('transfers')
    .select('carrier.step as carrier_step')
    .where('transfers.payment_id', '=', paymentId)
    .orderBy('transfers.block_number')
    .orderBy('transfers.log_index')
    .execute();
  return rows.map(toCarriedTransfer);
}

async function updatePaymentState(trx: Db, paymentId: string, update: PaymentStateUpdate): Promise<void> {
  const { state, txid, txidChainId, paidWith, announcedStatus, updatedAt } = update;
  await trx
    .updateTable('payments')
    .set({
      status: state.status,
      announced_status: announcedStatus,
      paid_token_address: paidWith?.address.toLowerCase() ?? null,
      paid_token_symbol: paidWith?.symbol ?? null,
      amount_received_base_units: state.amountReceivedBaseUnits.toString(),
      paid_at: state.paidAt?.toISOString() ?? null,
      late: state.late ? 1 : 0,
      txid,
      txid_chain_id: txidChainId,
      updated_at: updatedAt.toISOString(),
    })
    .where('id', '=', paymentId)
    .execute();
}

async function touchPayment(trx: Db, paymentId: string, at: Date): Promise<void> {
  await trx
    .updateTable('payments')
    .set({ updated_at: at.toISOString() })
    .where('id', '=', paymentId)
    .execute();
}

/** The receipt page's token and the receipt, unless the payment has one already (it was paid before a reorg). */
async function insertReceipt(
  trx: Db,
  paymentId: string,
  token: string,
  message: EmailMessage,
): Promise<boolean> {
  const stored = await trx
    .updateTable('payments')
    .set({ receipt_token: token })
    .where('id', '=', paymentId)
    .where('receipt_token', 'is', null)
    .executeTakeFirst();
  if (stored.numUpdatedRows === 0n) return false;
  await insertEmailMessage(trx, message);
  return true;
}
