import type { Kysely, Selectable } from 'kysely';
import type { Ledger, LedgerTransaction, OutboxEvent, TransferRecord } from '../../app/chain/ports.ts';
import { PAYMENT_EVENT_TYPES, type PaymentEventType } from '../../domain/paymentStatus.ts';
import type { DatabaseHandle } from './database.ts';
import { insertOutboxEvent } from './outbox.ts';
import { toPayment } from './paymentRepository.ts';
import type { DatabaseSchema, EventsTable, TransfersTable } from './schema.ts';

/** Block numbers fit in a double for the next few million years of Polygon; we still refuse silently wrong ones. */
function blockParam(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`block number out of range: ${value}`);
  return n;
}

function toTransfer(row: Selectable<TransfersTable>): TransferRecord {
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
    final: Number(row.final) === 1,
    orphaned: Number(row.orphaned) === 1,
  };
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
  };
}

function toEvent(row: Selectable<EventsTable>): OutboxEvent {
  if (!(PAYMENT_EVENT_TYPES as readonly string[]).includes(row.type))
    throw new Error(`unknown event type ${row.type}`);
  return {
    id: row.id,
    paymentId: row.payment_id,
    merchantId: row.merchant_id,
    type: row.type as PaymentEventType,
    payload: row.payload,
    createdAt: new Date(row.created_at),
  };
}

/**
 * Addresses per IN list when matching logs: SQLite allows 32,766 parameters and PostgreSQL 65,535; beyond a
 * thousand or so the per-query overhead is already amortized (bench/matching.ts).
 */
const IN_LIST_SIZE = 1_000;

const unique = (ids: readonly { payment_id: string }[]) => [...new Set(ids.map((r) => r.payment_id))];

function transactionOf(trx: Kysely<DatabaseSchema>, dialect: DatabaseHandle['dialect']): LedgerTransaction {
  return {
    async insertTransfers(transfers) {
      if (transfers.length === 0) return [];
      const createdAt = new Date().toISOString();
      const inserted = await trx
        .insertInto('transfers')
        .values(transfers.map((t) => transferRow(t, createdAt)))
        .onConflict((oc) => oc.column('id').doNothing())
        .returning('payment_id')
        .execute();
      return unique(inserted);
    },
    async insertUnacceptedTransfers(transfers) {
      if (transfers.length === 0) return [];
      const known = new Set(
        (
          await trx
            .selectFrom('unaccepted_transfers')
            .select('id')
            .where(
              'id',
              'in',
              transfers.map((t) => t.id),
            )
            .execute()
        ).map((r) => r.id),
      );
      const fresh = transfers.filter((t) => !known.has(t.id));
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
    },
    async saveReceivedByToken(paymentId, chainId, received) {
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
              .columns(['owner_id', 'token_address'])
              .doUpdateSet({ received_base_units: row.received_base_units }),
          )
          .execute();
      }
    },
    async rewindAbove(chainId, blockNumber) {
      const orphaned = await trx
        .updateTable('transfers')
        .set({ orphaned: 1 })
        .where('chain_id', '=', chainId)
        .where('final', '=', 0)
        .where('orphaned', '=', 0)
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
    },
    async orphanTransfers(ids) {
      if (ids.length === 0) return [];
      const orphaned = await trx
        .updateTable('transfers')
        .set({ orphaned: 1 })
        .where('id', 'in', [...ids])
        .where('final', '=', 0)
        .returning('payment_id')
        .execute();
      return unique(orphaned);
    },
    async markFinal(chainId, blockNumber) {
      const finalized = await trx
        .updateTable('transfers')
        .set({ final: 1 })
        .where('chain_id', '=', chainId)
        .where('final', '=', 0)
        .where('orphaned', '=', 0)
        .where('block_number', '<=', blockParam(blockNumber))
        .returning('payment_id')
        .execute();
      return unique(finalized);
    },
    async saveCursor(cursor) {
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
    },
    async saveBlocks(chainId, blocks) {
      for (const block of blocks) {
        const row = { chain_id: chainId, number: blockParam(block.number), hash: block.hash };
        await trx
          .insertInto('chain_blocks')
          .values(row)
          .onConflict((oc) => oc.columns(['chain_id', 'number']).doUpdateSet({ hash: block.hash }))
          .execute();
      }
    },
    async pruneBlocksBelow(chainId, blockNumber) {
      if (blockNumber <= 0n) return;
      await trx
        .deleteFrom('chain_blocks')
        .where('chain_id', '=', chainId)
        .where('number', '<', blockParam(blockNumber))
        .execute();
    },
    async lockPayment(paymentId) {
      let query = trx.selectFrom('payments').selectAll().where('id', '=', paymentId);
      // SQLite has one writer at a time already; PostgreSQL needs the row lock.
      if (dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row && toPayment(row);
    },
    async listTransfers(paymentId) {
      const rows = await trx
        .selectFrom('transfers')
        .selectAll()
        .where('payment_id', '=', paymentId)
        .execute();
      return rows.map(toTransfer);
    },
    async updatePaymentState(paymentId, { state, txid, paidWith, announcedStatus, updatedAt }) {
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
          updated_at: updatedAt.toISOString(),
        })
        .where('id', '=', paymentId)
        .execute();
    },
    async touchPayment(paymentId, at) {
      await trx
        .updateTable('payments')
        .set({ updated_at: at.toISOString() })
        .where('id', '=', paymentId)
        .execute();
    },
    insertEvent: (event) => insertOutboxEvent(trx, event),
  };
}

export function ledgerRepository(handle: DatabaseHandle): Ledger {
  const { db, dialect } = handle;
  return {
    transaction: (work) => db.transaction().execute((trx) => work(transactionOf(trx, dialect))),

    async paymentsByDepositAddress(chainId, addresses) {
      const found = new Map<string, string>();
      for (let i = 0; i < addresses.length; i += IN_LIST_SIZE) {
        const rows = await db
          .selectFrom('payments')
          .select(['id', 'deposit_address'])
          .where('chain_id', '=', chainId)
          .where('deposit_address', 'in', addresses.slice(i, i + IN_LIST_SIZE))
          .execute();
        for (const row of rows) if (row.deposit_address) found.set(row.deposit_address, row.id);
      }
      return found;
    },

    async cursor(chainId) {
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
    },

    async recentBlocks(chainId, atOrBelow, limit) {
      const rows = await db
        .selectFrom('chain_blocks')
        .selectAll()
        .where('chain_id', '=', chainId)
        .where('number', '<=', blockParam(atOrBelow))
        .orderBy('number', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ number: BigInt(r.number), hash: r.hash }));
    },

    async transfersToFinalize(chainId, blockNumber, limit) {
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
    },

    async earliestPaymentCreatedAt(chainId) {
      const row = await db
        .selectFrom('payments')
        .select((eb) => eb.fn.min('created_at').as('earliest'))
        .where('chain_id', '=', chainId)
        .executeTakeFirst();
      return row?.earliest ? new Date(row.earliest) : undefined;
    },

    async openPaymentsPastExpiry(now, limit) {
      const rows = await db
        .selectFrom('payments')
        .select('id')
        .where('status', 'in', ['pending', 'processing'])
        .where('expires_at', '<', now.toISOString())
        .orderBy('expires_at')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    async listTransfers(paymentId) {
      const rows = await db
        .selectFrom('transfers')
        .selectAll()
        .where('payment_id', '=', paymentId)
        .orderBy('block_number')
        .orderBy('log_index')
        .execute();
      return rows.map(toTransfer);
    },

    async listUnacceptedTransfers(paymentId) {
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
    },

    async listEvents(paymentId) {
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('payment_id', '=', paymentId)
        .orderBy('sequence')
        .execute();
      return rows.map(toEvent);
    },
  };
}
