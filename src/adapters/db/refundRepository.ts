import type { Selectable } from 'kysely';
import type {
  RefundListQuery,
  RefundRecord,
  RefundStore,
  RefundTransaction,
} from '../../app/refunds/ports.ts';
import { type KeyMode, keyModeOf } from '../../domain/credentials.ts';
import { REFUND_STATUSES, type Refund } from '../../domain/refund.ts';
import type { DatabaseHandle, Db } from './database.ts';
import { insertEmailMessage } from './emailOutbox.ts';
import { olderThan } from './keyset.ts';
import { merchantRepository } from './merchantRepository.ts';
import { insertOutboxEvent } from './outbox.ts';
import { paymentRow, toPayment } from './paymentRepository.ts';
import type { RefundsTable } from './schema.ts';
import { dateOrNull, oneOf } from './storedValues.ts';

function toRefund(row: Selectable<RefundsTable>): Refund {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: keyModeOf(row.mode),
    paymentId: row.payment_id,
    amountBaseUnits: BigInt(row.amount_base_units),
    requestedAmount: row.requested_amount,
    requestedCurrency: row.requested_currency,
    reason: row.reason,
    address: row.address,
    addressSource: row.address_source,
    addressGivenAt: dateOrNull(row.address_given_at),
    claimExpiresAt: new Date(row.claim_expires_at),
    canceledAt: dateOrNull(row.canceled_at),
    announcedStatus: oneOf(REFUND_STATUSES, row.announced_status, `refund ${row.id}'s announced status`),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** The refunds of these rows with their deposit rows (one query for all of them). */
async function withDeposits(db: Db, rows: readonly Selectable<RefundsTable>[]): Promise<RefundRecord[]> {
  const withAddress = rows.filter((row) => row.address !== null).map((row) => row.id);
  const deposits =
    withAddress.length === 0
      ? []
      : await db
          .selectFrom('payments')
          .selectAll()
          .where('kind', '=', 'refund')
          .where('id', 'in', withAddress)
          .execute();
  const byId = new Map(deposits.map((row) => [row.id, toPayment(row)]));
  return rows.map((row) => ({ refund: toRefund(row), deposit: byId.get(row.id) }));
}

/** A payment's refunds, oldest first, with their deposit rows: in a transaction or outside one. */
async function refundsOfPayment(db: Db, paymentId: string): Promise<RefundRecord[]> {
  const rows = await db
    .selectFrom('refunds')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return withDeposits(db, rows);
}

/** Refunds' deposit rows hold what went on to the customer (merchant_paid: the customer is their recipient). */
async function sentByPayment(db: Db, paymentIds: readonly string[]): Promise<Map<string, bigint>> {
  const sent = new Map<string, bigint>();
  if (paymentIds.length === 0) return sent;
  const rows = await db
    .selectFrom('refunds as r')
    .innerJoin('payments as d', 'd.id', 'r.id')
    .select(['r.payment_id', 'd.merchant_paid_base_units'])
    .where('r.payment_id', 'in', [...paymentIds])
    .where('d.kind', '=', 'refund')
    .execute();
  for (const row of rows) {
    const amount = BigInt(row.merchant_paid_base_units);
    if (amount > 0n) sent.set(row.payment_id, (sent.get(row.payment_id) ?? 0n) + amount);
  }
  return sent;
}

function transactionOf(trx: Db): RefundTransaction {
  return {
    async lockPayment(paymentId, at) {
      // A write first: it takes SQLite's write lock at once (a read first could not upgrade under a concurrent
      // writer), PostgreSQL's row lock, and tells the status read caches that the payment's refunds changed.
      const touched = await trx
        .updateTable('payments')
        .set({ updated_at: at.toISOString() })
        .where('id', '=', paymentId)
        .where('kind', '=', 'payment')
        .executeTakeFirst();
      if (touched.numUpdatedRows === 0n) return undefined;
      const row = await trx
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', paymentId)
        .executeTakeFirstOrThrow();
      return toPayment(row);
    },
    refundsOf: (paymentId) => refundsOfPayment(trx, paymentId),
    findMerchant: (merchantId) => merchantRepository(trx).find(merchantId),
    insertEmail: (message) => insertEmailMessage(trx, message),
    async findByIdempotencyKey(merchantId, mode, key) {
      const row = await trx
        .selectFrom('refunds')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
      if (!row) return undefined;
      const [record] = await withDeposits(trx, [row]);
      return { record: record!, requestHash: row.request_hash };
    },
    async insertRefund(refund, idempotency) {
      await trx
        .insertInto('refunds')
        .values({
          id: refund.id,
          merchant_id: refund.merchantId,
          mode: refund.mode,
          payment_id: refund.paymentId,
          amount_base_units: refund.amountBaseUnits.toString(),
          requested_amount: refund.requestedAmount,
          requested_currency: refund.requestedCurrency,
          reason: refund.reason,
          address: refund.address,
          address_source: refund.addressSource,
          address_given_at: refund.addressGivenAt?.toISOString() ?? null,
          claim_expires_at: refund.claimExpiresAt.toISOString(),
          canceled_at: refund.canceledAt?.toISOString() ?? null,
          announced_status: refund.announcedStatus,
          idempotency_key: idempotency?.key ?? null,
          request_hash: idempotency?.requestHash ?? null,
          created_at: refund.createdAt.toISOString(),
          updated_at: refund.updatedAt.toISOString(),
        })
        .execute();
    },
    async insertDeposit(deposit) {
      if (deposit.kind !== 'refund') throw new Error('a refund deposit must be of kind refund');
      await trx.insertInto('payments').values(paymentRow(deposit)).execute();
    },
    async setAddress(refundId, address, source, at) {
      await trx
        .updateTable('refunds')
        .set({
          address,
          address_source: source,
          address_given_at: at.toISOString(),
          updated_at: at.toISOString(),
        })
        .where('id', '=', refundId)
        .where('address', 'is', null)
        .execute();
    },
    async cancel(refundId, at) {
      await trx
        .updateTable('refunds')
        .set({ canceled_at: at.toISOString(), updated_at: at.toISOString() })
        .where('id', '=', refundId)
        .execute();
    },
    async setAnnounced(refundId, status, at) {
      await trx
        .updateTable('refunds')
        .set({ announced_status: status, updated_at: at.toISOString() })
        .where('id', '=', refundId)
        .execute();
    },
    insertEvent: (event) => insertOutboxEvent(trx, event),
  };
}

export function refundRepository(handle: DatabaseHandle): RefundStore {
  const { db } = handle;
  return {
    transaction: (work) => db.transaction().execute((trx) => work(transactionOf(trx))),
    find: (refundId) => findRefund(db, { id: refundId }),
    findForMerchant: (merchantId, mode, refundId) => findRefund(db, { id: refundId, merchantId, mode }),
    listForMerchant: (query) => listForMerchant(db, query),
    listForPayment: (paymentId) => refundsOfPayment(db, paymentId),
    sentByPayment: (paymentIds) => sentByPayment(db, paymentIds),
    listDue: (now, limit) => listDue(db, now, limit),
    isDepositAddress: (chainId, address) => isDepositAddress(db, chainId, address),
  };
}

/** A refund by id (a merchant's only, and of one mode, when they are given), with its deposit. */
async function findRefund(
  db: Db,
  match: { readonly id: string; readonly merchantId?: string; readonly mode?: KeyMode },
): Promise<RefundRecord | undefined> {
  let select = db.selectFrom('refunds').selectAll().where('id', '=', match.id);
  if (match.merchantId !== undefined) select = select.where('merchant_id', '=', match.merchantId);
  if (match.mode !== undefined) select = select.where('mode', '=', match.mode);
  return (await withDeposits(db, await select.execute()))[0];
}

async function listForMerchant(db: Db, query: RefundListQuery): Promise<RefundRecord[]> {
  if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > 1_000)
    throw new RangeError('bad list limit');
  let select = db
    .selectFrom('refunds')
    .selectAll()
    .where('merchant_id', '=', query.merchantId)
    .where('mode', '=', query.mode);
  if (query.paymentId !== undefined) select = select.where('payment_id', '=', query.paymentId);
  if (query.createdFrom !== undefined)
    select = select.where('created_at', '>=', query.createdFrom.toISOString());
  if (query.createdBefore !== undefined)
    select = select.where('created_at', '<', query.createdBefore.toISOString());
  if (query.after !== undefined) select = select.where(olderThan(query.after));
  const rows = await select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
  return withDeposits(db, rows);
}

async function listDue(db: Db, now: Date, limit: number): Promise<RefundRecord[]> {
  // Only refunds whose status has moved since the merchant was told, each by its own predicate, so refunds
  // waiting for a long time (unfunded, or a payout held by a blacklist) never crowd out the rest.
  const rows = await db
    .selectFrom('refunds')
    .leftJoin('payments as d', (join) => join.onRef('d.id', '=', 'refunds.id').on('d.kind', '=', 'refund'))
    .selectAll('refunds')
    .where((eb) =>
      eb.or([
        eb.and([
          eb('refunds.announced_status', '=', 'awaiting_address'),
          eb('refunds.claim_expires_at', '<=', now.toISOString()),
        ]),
        // Funded (a canceled refund funded anyway included: it is sent to the customer all the same).
        eb.and([
          eb('refunds.announced_status', 'in', ['awaiting_funds', 'canceled']),
          eb('d.status', '=', 'paid'),
        ]),
        // Sent: everything received went on (both integers in canonical text, so text equality is exact).
        eb.and([
          eb('refunds.announced_status', '=', 'processing'),
          eb('d.merchant_paid_base_units', '=', eb.ref('d.amount_received_base_units')),
        ]),
      ]),
    )
    .orderBy('refunds.created_at')
    .limit(limit)
    .execute();
  return withDeposits(db, rows);
}

async function isDepositAddress(db: Db, chainId: number, address: string): Promise<boolean> {
  const row = await db
    .selectFrom('payments')
    .select('id')
    .where('chain_id', '=', chainId)
    .where('deposit_address', '=', address.toLowerCase())
    .executeTakeFirst();
  return row !== undefined;
}
