import { type Kysely, type Selectable, sql } from 'kysely';
import { getAddress } from 'viem';
import type {
  RelayerTransactionRecord,
  RelayerTransactionStatus,
  SettlementCandidate,
  SettlementRecord,
  SettlementStatus,
  SettlementStore,
  SettlementTransaction,
} from '../../app/settlement/ports.ts';
import { type PayoutProgress, settledBaseUnits } from '../../domain/payout.ts';
import type { DatabaseHandle } from './database.ts';
import { insertOutboxEvent } from './outbox.ts';
import { toPayment } from './paymentRepository.ts';
import type { DatabaseSchema, PaymentsTable, RelayerTransactionsTable, SettlementsTable } from './schema.ts';
import { isUniqueViolation } from './uniqueViolation.ts';

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
    if (ids.length === 0) return [];
    let query = trx
      .selectFrom('payments')
      .selectAll()
      .where('id', 'in', [...ids])
      .orderBy('id');
    if (dialect === 'postgres') query = query.forUpdate();
    return (await query.execute()).map(toPayment);
  }

  function transactionOf(trx: Kysely<DatabaseSchema>): SettlementTransaction {
    return {
      async closeSettlement(settlementId, closing, at) {
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
        await trx
          .updateTable('relayer_transactions')
          .set({ status: 'replaced' })
          .where('settlement_id', '=', settlementId)
          .$if(closing.minedTxId !== null, (q) => q.where('id', '<>', closing.minedTxId!))
          .execute();
        if (closing.minedTxId !== null) {
          await trx
            .updateTable('relayer_transactions')
            .set({ status: 'mined' })
            .where('id', '=', closing.minedTxId)
            .where('settlement_id', '=', settlementId)
            .execute();
        }
        return true;
      },
      lockPayments: (ids) => lockPayments(trx, ids),
      async recordFlush(ownerId, tokenAddress, merchantSent, feeSent) {
        const token = tokenAddress.toLowerCase();
        const row = await trx
          .selectFrom('deposit_balances')
          .selectAll()
          .where('owner_id', '=', ownerId)
          .where('token_address', '=', token)
          .executeTakeFirst();
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
          .where('token_address', '=', token)
          .execute();
        return { accepted: Number(row.accepted) === 1 };
      },
      async savePayout(paymentId, payout, at) {
        await trx
          .updateTable('payments')
          .set(payoutColumns(payout, at))
          .where('id', '=', paymentId)
          .execute();
      },
      insertEvent: (event) => insertOutboxEvent(trx, event),
    };
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

    async candidates(chainId, { dustThresholdBaseUnits, now, limit }) {
      const dust = Number(dustThresholdBaseUnits);
      if (!Number.isSafeInteger(dust) || dust < 0) throw new RangeError('dust threshold out of range');
      // One candidate per deposit address and token: a forwarder is flushed one token at a time.
      const rows = await db
        .selectFrom('deposit_balances as b')
        .innerJoin('payments', 'payments.id', 'b.owner_id')
        .selectAll('payments')
        .select([
          'b.token_address as balance_token',
          'b.accepted as balance_accepted',
          'b.received_base_units as balance_received',
          'b.settled_base_units as balance_settled',
        ])
        .where('b.chain_id', '=', chainId)
        // Verbatim the predicate of the partial index deposit_balances_unsettled (migration 0013).
        .where(sql<boolean>`b.received_base_units <> b.settled_base_units`)
        .where('payments.deposit_address', 'is not', null)
        .where((eb) =>
          eb.or([
            eb('payments.settlement_retry_at', 'is', null),
            eb('payments.settlement_retry_at', '<=', now.toISOString()),
          ]),
        )
        // An accepted token is paid out once the payment is paid (or failed: what arrived is the merchant's);
        // a token swept by an operator goes whatever the payment's status.
        .where((eb) => eb.or([eb('b.accepted', '=', 0), eb('payments.status', 'in', ['paid', 'failed'])]))
        .orderBy('payments.created_at')
        .orderBy('payments.id')
        .orderBy('b.token_address')
        .limit(limit)
        .execute();
      const candidates: SettlementCandidate[] = [];
      for (const row of rows) {
        const payment = toPayment(row);
        const accepted = Number(row.balance_accepted) === 1;
        const unsettled = BigInt(row.balance_received) - BigInt(row.balance_settled);
        if (accepted ? !isDue(unsettled, payment.payout, dustThresholdBaseUnits) : unsettled <= 0n) continue;
        const deposit = payment.deposit;
        if (!deposit) throw new Error(`payment ${row.id} has an incomplete deposit`);
        candidates.push({
          paymentId: payment.id,
          chainId: deposit.chainId,
          factoryAddress: deposit.factoryAddress,
          tokenAddress: getAddress(row.balance_token),
          acceptedToken: accepted,
          depositAddress: deposit.depositAddress,
          merchantAddress: payment.payoutAddress,
          treasuryAddress: deposit.treasuryAddress,
          commissionBps: payment.quote.commissionBps,
          unsettledBaseUnits: unsettled,
          payout: payment.payout,
        });
      }
      return candidates;
    },

    async requestSweep(paymentId, tokenAddress, balanceBaseUnits) {
      return db.transaction().execute(async (trx) => {
        const payment = await trx
          .selectFrom('payments')
          .select(['id', 'chain_id', 'token_address'])
          .where('id', '=', paymentId)
          .executeTakeFirst();
        if (!payment || payment.chain_id === null) return false;
        const token = tokenAddress.toLowerCase();
        const existing = await trx
          .selectFrom('deposit_balances')
          .select(['settled_base_units', 'accepted'])
          .where('owner_id', '=', paymentId)
          .where('token_address', '=', token)
          .executeTakeFirst();
        if (existing && Number(existing.accepted) === 1) return false;
        // What the forwarder holds now, on top of what it already sent: due until the settler has flushed it.
        const received = (BigInt(existing?.settled_base_units ?? '0') + balanceBaseUnits).toString();
        await trx
          .insertInto('deposit_balances')
          .values({
            owner_id: paymentId,
            chain_id: Number(payment.chain_id),
            token_address: token,
            accepted: 0,
            received_base_units: received,
          })
          .onConflict((oc) =>
            oc.columns(['owner_id', 'token_address']).doUpdateSet({ received_base_units: received }),
          )
          .execute();
        return true;
      });
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

    transaction: (work) => db.transaction().execute((trx) => work(transactionOf(trx))),

    async delayedUnnotified(chainId, blockedBefore, limit) {
      const rows = await db
        .selectFrom('payments')
        .select('id')
        // Verbatim the predicate of the partial index payments_payout_blocked (migration 0011).
        .where('payout_blocked_since', 'is not', null)
        .where('payout_blocked_since', '<=', blockedBefore.toISOString())
        .where('payout_delay_notified_at', 'is', null)
        .where('chain_id', '=', chainId)
        .orderBy('payout_blocked_since')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    async listUnsettled({ dustThresholdBaseUnits, failingOnly, limit }) {
      let query = unsettledQuery(dustThresholdBaseUnits);
      if (failingOnly) {
        query = query.where((eb) =>
          eb.or([eb('payout_blocked_since', 'is not', null), eb('commission_blocked_since', 'is not', null)]),
        );
      }
      const rows = await query.orderBy('created_at').orderBy('id').limit(limit).execute();
      return rows
        .map(toPayment)
        .map((payment) => ({
          payment,
          unsettledBaseUnits: payment.amountReceivedBaseUnits - settledBaseUnits(payment.payout),
        }))
        .filter(({ payment, unsettledBaseUnits }) =>
          isDue(unsettledBaseUnits, payment.payout, dustThresholdBaseUnits),
        );
    },

    async retryNow(target) {
      const result = await db
        .updateTable('payments')
        .set({ settlement_retry_at: null })
        .where('settlement_retry_at', 'is not', null)
        .$if('paymentId' in target, (q) => q.where('id', '=', (target as { paymentId: string }).paymentId))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async recordRelayerBalance(reading) {
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
    },

    async relayerBalances() {
      const rows = await db.selectFrom('relayer_accounts').selectAll().orderBy('chain_id').execute();
      return rows.map((row) => ({
        chainId: Number(row.chain_id),
        address: row.address,
        balanceWei: BigInt(row.balance_wei),
        lowBalanceWei: BigInt(row.low_balance_wei),
        observedAt: new Date(row.observed_at),
      }));
    },
  };

  /**
   * Paid or failed payments whose deposit address still owes something: final funds not flushed, or a share that
   * failed to go out. The coarse filter runs in SQL (the partial index payments_unsettled covers it); `isDue`
   * decides in bigint.
   */
  function unsettledQuery(dustThresholdBaseUnits: bigint) {
    const dust = Number(dustThresholdBaseUnits);
    if (!Number.isSafeInteger(dust) || dust < 0) throw new RangeError('dust threshold out of range');
    return (
      db
        .selectFrom('payments')
        .selectAll()
        // Verbatim the predicate of the partial index payments_unsettled (migration 0005).
        .where(sql<boolean>`amount_received_base_units <> settled_base_units`)
        .where('status', 'in', ['paid', 'failed'])
        // Base units of USDC stay far below 2^63; `isDue` re-checks the difference in bigint.
        .where((eb) =>
          eb.or([
            eb(
              sql`cast(amount_received_base_units as bigint) - cast(settled_base_units as bigint)`,
              '>=',
              dust,
            ),
            eb('payout_blocked_since', 'is not', null),
            eb('commission_blocked_since', 'is not', null),
          ]),
        )
    );
  }
}

/** Due: enough to be worth the gas, or a share that failed and must go out whatever its size. */
function isDue(unsettled: bigint, payout: PayoutProgress, dustThresholdBaseUnits: bigint): boolean {
  if (unsettled <= 0n) return false;
  return (
    unsettled >= dustThresholdBaseUnits ||
    payout.blockedSince !== null ||
    payout.commissionBlockedSince !== null
  );
}

/** The payout columns of a payment; `settled_base_units` is their sum, kept for the unsettled index. */
function payoutColumns(payout: PayoutProgress, at: Date): Partial<Selectable<PaymentsTable>> {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    merchant_paid_base_units: payout.merchantPaidBaseUnits.toString(),
    treasury_paid_base_units: payout.treasuryPaidBaseUnits.toString(),
    settled_base_units: settledBaseUnits(payout).toString(),
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
