import { type Kysely, type Selectable, sql } from 'kysely';
import type {
  RelayerTransactionRecord,
  RelayerTransactionStatus,
  SettlementCandidate,
  SettlementRecord,
  SettlementStatus,
  SettlementStore,
} from '../../app/ports.ts';
import type { DatabaseHandle } from './database.ts';
import type { DatabaseSchema, RelayerTransactionsTable, SettlementsTable } from './schema.ts';

const SETTLEMENT_STATUSES: readonly SettlementStatus[] = ['pending', 'confirmed', 'failed'];
const TRANSACTION_STATUSES: readonly RelayerTransactionStatus[] = [
  'signed',
  'broadcast',
  'mined',
  'replaced',
];

/** Nonces are far below 2^53; the conversion still refuses a silently wrong one. */
function nonceParam(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`nonce out of range: ${value}`);
  return n;
}

function toTransaction(row: Selectable<RelayerTransactionsTable>): RelayerTransactionRecord {
  if (!(TRANSACTION_STATUSES as readonly string[]).includes(row.status))
    throw new Error(`relayer transaction ${row.id} has an unknown status`);
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
    status: row.status as RelayerTransactionStatus,
    replacesId: row.replaces_id,
    createdAt: new Date(row.created_at),
    broadcastAt: row.broadcast_at === null ? null : new Date(row.broadcast_at),
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

/** Both drivers' words for a unique index refusing a row. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function settlementRepository(handle: DatabaseHandle): SettlementStore {
  const { db, dialect } = handle;

  async function load(
    executor: Kysely<DatabaseSchema>,
    row: Selectable<SettlementsTable>,
  ): Promise<SettlementRecord> {
    if (!(SETTLEMENT_STATUSES as readonly string[]).includes(row.status))
      throw new Error(`settlement ${row.id} has an unknown status`);
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
    const transactions = await executor
      .selectFrom('relayer_transactions')
      .selectAll()
      .where('settlement_id', '=', row.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return {
      id: row.id,
      chainId: Number(row.chain_id),
      nonce: BigInt(row.nonce),
      status: row.status as SettlementStatus,
      payoutTxHash: row.payout_tx_hash,
      failureReason: row.failure_reason,
      createdAt: new Date(row.created_at),
      completedAt: row.completed_at === null ? null : new Date(row.completed_at),
      items: items.map((item) => {
        if (!item.deposit_address) throw new Error(`payment ${item.payment_id} has no deposit address`);
        return {
          paymentId: item.payment_id,
          depositAddress: item.deposit_address,
          expectedBaseUnits: BigInt(item.expected_base_units),
        };
      }),
      // Replacements come later and pay more: sorted by time, then fee, the last is the current attempt.
      transactions: transactions
        .map(toTransaction)
        .sort(
          (a, b) =>
            a.createdAt.getTime() - b.createdAt.getTime() ||
            (a.maxFeePerGas < b.maxFeePerGas ? -1 : a.maxFeePerGas > b.maxFeePerGas ? 1 : 0),
        ),
    };
  }

  /** Row locks in a stable order (PostgreSQL); SQLite has one writer at a time already. */
  async function lockPayments(trx: Kysely<DatabaseSchema>, ids: readonly string[]) {
    let query = trx
      .selectFrom('payments')
      .select(['id', 'settled_base_units', 'settlement_failures'])
      .where('id', 'in', [...ids])
      .orderBy('id');
    if (dialect === 'postgres') query = query.forUpdate();
    return query.execute();
  }

  async function itemIds(trx: Kysely<DatabaseSchema>, settlementId: string): Promise<string[]> {
    const rows = await trx
      .selectFrom('settlement_items')
      .select('payment_id')
      .where('settlement_id', '=', settlementId)
      .orderBy('payment_id')
      .execute();
    return rows.map((r) => r.payment_id);
  }

  /** Pending → done, only once: whoever loses a race writes nothing. */
  async function close(
    trx: Kysely<DatabaseSchema>,
    settlementId: string,
    set: {
      status: 'confirmed' | 'failed';
      payout_tx_hash?: string;
      failure_reason?: string;
      completed_at: string;
    },
  ): Promise<boolean> {
    const result = await trx
      .updateTable('settlements')
      .set(set)
      .where('id', '=', settlementId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async function closeTransactions(
    trx: Kysely<DatabaseSchema>,
    settlementId: string,
    minedTxId: string | null,
  ) {
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

  return {
    async inFlight(chainId) {
      const row = await db
        .selectFrom('settlements')
        .selectAll()
        .where('chain_id', '=', chainId)
        .where('status', '=', 'pending')
        .orderBy('nonce')
        .executeTakeFirst();
      return row && load(db, row);
    },

    async candidates(chainId, { dustThresholdBaseUnits, maxFailures, limit }) {
      const dust = Number(dustThresholdBaseUnits);
      if (!Number.isSafeInteger(dust) || dust < 0) throw new RangeError('dust threshold out of range');
      const rows = await db
        .selectFrom('payments')
        .select([
          'id',
          'chain_id',
          'factory_address',
          'token_address',
          'deposit_address',
          'payout_address',
          'treasury_address',
          'commission_bps',
          'amount_received_base_units',
          'settled_base_units',
          'settlement_failures',
        ])
        .where('chain_id', '=', chainId)
        // Verbatim the predicate of the partial index payments_unsettled (migration 0005).
        .where(sql<boolean>`amount_received_base_units <> settled_base_units`)
        .where('status', 'in', ['paid', 'failed'])
        .where('settlement_failures', '<', maxFailures)
        .where('deposit_address', 'is not', null)
        // Base units of USDC stay far below 2^63; the domain re-checks the difference in bigint below.
        .where(
          sql<boolean>`cast(amount_received_base_units as bigint) - cast(settled_base_units as bigint) >= ${dust}`,
        )
        .orderBy('settlement_failures')
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      const candidates: SettlementCandidate[] = [];
      for (const row of rows) {
        const unsettled = BigInt(row.amount_received_base_units) - BigInt(row.settled_base_units);
        if (unsettled < dustThresholdBaseUnits) continue;
        if (!row.factory_address || !row.token_address || !row.deposit_address || !row.treasury_address)
          throw new Error(`payment ${row.id} has an incomplete deposit`);
        candidates.push({
          paymentId: row.id,
          chainId: Number(row.chain_id),
          factoryAddress: row.factory_address,
          tokenAddress: row.token_address,
          depositAddress: row.deposit_address,
          merchantAddress: row.payout_address,
          treasuryAddress: row.treasury_address,
          commissionBps: Number(row.commission_bps),
          unsettledBaseUnits: unsettled,
          settlementFailures: Number(row.settlement_failures),
        });
      }
      return candidates;
    },

    async highestNonce(chainId) {
      const row = await db
        .selectFrom('settlements')
        .select((eb) => eb.fn.max('nonce').as('highest'))
        .where('chain_id', '=', chainId)
        .executeTakeFirst();
      return row?.highest === null || row?.highest === undefined ? undefined : BigInt(row.highest);
    },

    async create(settlement, items, transaction) {
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
          await trx.insertInto('relayer_transactions').values(transactionRow(transaction)).execute();
        });
        return true;
      } catch (error) {
        // Another settler opened a settlement first (settlements_one_pending): nothing was written.
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    async addTransaction(transaction) {
      await db.insertInto('relayer_transactions').values(transactionRow(transaction)).execute();
    },

    async markBroadcast(transactionId, at) {
      await db
        .updateTable('relayer_transactions')
        .set({ status: 'broadcast', broadcast_at: at.toISOString() })
        .where('id', '=', transactionId)
        .where('status', '=', 'signed')
        .execute();
    },

    confirm: (confirmation) =>
      db.transaction().execute(async (trx) => {
        const completedAt = confirmation.completedAt.toISOString();
        const closed = await close(trx, confirmation.settlementId, {
          status: 'confirmed',
          payout_tx_hash: confirmation.payoutTxHash.toLowerCase(),
          completed_at: completedAt,
        });
        if (!closed) return false;
        await closeTransactions(trx, confirmation.settlementId, confirmation.minedTxId);
        const ids = await itemIds(trx, confirmation.settlementId);
        for (const row of await lockPayments(trx, ids)) {
          const flushed = confirmation.flushedBaseUnits.get(row.id) ?? 0n;
          if (flushed < 0n) throw new RangeError(`negative flush for payment ${row.id}`);
          if (flushed === 0n) {
            // Nothing moved (someone else flushed it first, or its params do not match its address).
            await trx
              .updateTable('payments')
              .set({ settlement_failures: Number(row.settlement_failures) + 1 })
              .where('id', '=', row.id)
              .execute();
            continue;
          }
          await trx
            .updateTable('payments')
            .set({
              settled_base_units: (BigInt(row.settled_base_units) + flushed).toString(),
              payout_tx_hash: confirmation.payoutTxHash.toLowerCase(),
              settled_at: completedAt,
              settlement_failures: 0,
              updated_at: completedAt,
            })
            .where('id', '=', row.id)
            .execute();
        }
        return true;
      }),

    fail: (failure) =>
      db.transaction().execute(async (trx) => {
        const closed = await close(trx, failure.settlementId, {
          status: 'failed',
          failure_reason: failure.reason,
          completed_at: failure.completedAt.toISOString(),
        });
        if (!closed) return false;
        await closeTransactions(trx, failure.settlementId, failure.minedTxId);
        if (failure.countFailures) {
          const ids = await itemIds(trx, failure.settlementId);
          await lockPayments(trx, ids);
          await trx
            .updateTable('payments')
            .set((eb) => ({ settlement_failures: eb('settlement_failures', '+', 1) }))
            .where('id', 'in', ids)
            .execute();
        }
        return true;
      }),

    async recordFailures(paymentIds, change) {
      if (paymentIds.length === 0) return;
      if ('add' in change) {
        await db
          .updateTable('payments')
          .set((eb) => ({ settlement_failures: eb('settlement_failures', '+', change.add) }))
          .where('id', 'in', [...paymentIds])
          .execute();
        return;
      }
      await db
        .updateTable('payments')
        .set({ settlement_failures: change.atLeast })
        .where('id', 'in', [...paymentIds])
        .where('settlement_failures', '<', change.atLeast)
        .execute();
    },

    async resetFailures(paymentId) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('payments')
          .select('settlement_failures')
          .where('id', '=', paymentId)
          .executeTakeFirst();
        if (!row) return undefined;
        await trx
          .updateTable('payments')
          .set({ settlement_failures: 0 })
          .where('id', '=', paymentId)
          .execute();
        return Number(row.settlement_failures);
      });
    },
  };
}
