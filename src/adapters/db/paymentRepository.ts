import type { Insertable, Selectable } from 'kysely';
import { getAddress } from 'viem';
import type { EmailMessage } from '../../app/email/ports.ts';
import { type PaymentListQuery, PaymentReferenceTaken, type PaymentStore } from '../../app/payments/ports.ts';
import { type KeyMode, keyModeOf } from '../../domain/credentials.ts';
import { findCurrency } from '../../domain/currencies.ts';
import { parseDecimal } from '../../domain/decimal.ts';
import { lineItemsFromText, lineItemsText } from '../../domain/lineItems.ts';
import { metadataFromText, metadataText } from '../../domain/metadata.ts';
import type { Deposit, Payment } from '../../domain/payment.ts';
import { paymentReference } from '../../domain/paymentReference.ts';
import { PAYMENT_STATUSES } from '../../domain/paymentStatus.ts';
import { type PayoutProgress, settledBaseUnits } from '../../domain/payout.ts';
import { formatRate } from '../../domain/quote.ts';
import { isoTimestamp } from '../../domain/timestamp.ts';
import type { CompletedKey, PaymentRowValues } from './createWrites.ts';
import type { DatabaseHandle, Db } from './database.ts';
import { insertEmailMessage } from './emailOutbox.ts';
import { groupCommit } from './groupCommit.ts';
import { storedIdempotencyKey } from './idempotencyKeys.ts';
import { olderThan } from './keyset.ts';
import { searchPayments } from './paymentSearch.ts';
import type { PaymentsTable } from './schema.ts';
import { dateOrNull, flag, oneOf } from './storedValues.ts';
import { isReferenceTaken } from './uniqueViolation.ts';

export function toPayment(row: Selectable<PaymentsTable>): Payment {
  const currency = findCurrency(row.currency);
  const rate = parseDecimal(row.exchange_rate);
  if (!currency || typeof rate === 'string') throw new Error(`payment ${row.id} has a corrupt quote`);
  return {
    id: row.id,
    // Null only for the rare payment made before references whose reference another of its merchant's had.
    reference: row.reference ?? paymentReference(row.id),
    kind: row.kind === 'refund' || row.kind === 'x402' ? row.kind : 'payment',
    merchantId: row.merchant_id,
    mode: keyModeOf(row.mode),
    quote: {
      amount: { currency, minorUnits: BigInt(row.amount_minor_units) },
      rate,
      usdcBaseUnits: BigInt(row.usdc_amount_base_units),
      commissionBps: Number(row.commission_bps),
      commissionBaseUnits: BigInt(row.commission_base_units),
      merchantShareBaseUnits: BigInt(row.merchant_share_base_units),
    },
    rateSource: row.rate_source,
    rateObservedAt: new Date(row.rate_observed_at),
    underpaymentToleranceBps: Number(row.underpayment_tolerance_bps),
    payoutAddress: row.payout_address,
    webhookUrl: row.webhook_url,
    returnUrl: row.return_url,
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    metadata: metadataFromText(row.metadata),
    linkId: row.link_id,
    orderId: row.order_id,
    title: row.title,
    description: row.description,
    lineItems: lineItemsFromText(row.line_items, currency),
    customerEmail: row.customer_email,
    customerLanguage: row.customer_language,
    payerLanguage: row.payer_language,
    status: oneOf(PAYMENT_STATUSES, row.status, `payment ${row.id}'s status`),
    announcedStatus: oneOf(PAYMENT_STATUSES, row.announced_status, `payment ${row.id}'s announced status`),
    amountReceivedBaseUnits: BigInt(row.amount_received_base_units),
    paidAt: dateOrNull(row.paid_at),
    late: flag(row.late),
    expiresAt: new Date(row.expires_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    deposit: toDeposit(row),
    txid: row.txid,
    txidChainId: row.txid_chain_id === null ? null : Number(row.txid_chain_id),
    paidWith:
      row.paid_token_address && row.paid_token_symbol
        ? { address: getAddress(row.paid_token_address), symbol: row.paid_token_symbol }
        : null,
    payout: toPayoutProgress(row),
  };
}

function toPayoutProgress(row: Selectable<PaymentsTable>): PayoutProgress {
  const merchantPaid = BigInt(row.merchant_paid_base_units);
  const treasuryPaid = BigInt(row.treasury_paid_base_units);
  const bridgeFee = BigInt(row.bridge_fee_base_units);
  // Written together by the settler (or the bridge, for the fee) in one statement; a mismatch means the row was
  // edited by hand.
  if (merchantPaid + treasuryPaid + bridgeFee !== BigInt(row.settled_base_units))
    throw new Error(`payment ${row.id} has inconsistent payout amounts`);
  return {
    merchantPaidBaseUnits: merchantPaid,
    treasuryPaidBaseUnits: treasuryPaid,
    bridgeFeeBaseUnits: bridgeFee,
    bridgeFeeBoundBaseUnits: BigInt(row.bridge_fee_bound_base_units),
    bridgeFeeQuotedBaseUnits: BigInt(row.bridge_fee_quoted_base_units),
    bridgeBurnsAboveQuote: Number(row.bridge_burns_above_quote),
    txHash: row.payout_tx_hash,
    sentAt: dateOrNull(row.settled_at),
    failures: Number(row.settlement_failures),
    retryAt: dateOrNull(row.settlement_retry_at),
    blockedSince: dateOrNull(row.payout_blocked_since),
    blockedReason: row.payout_blocked_reason,
    commissionBlockedSince: dateOrNull(row.commission_blocked_since),
    commissionBlockedReason: row.commission_blocked_reason,
    delayNotifiedAt: dateOrNull(row.payout_delay_notified_at),
  };
}

function toDeposit(row: Selectable<PaymentsTable>): Deposit | null {
  if (
    row.chain_id === null ||
    !row.token_address ||
    !row.factory_address ||
    !row.treasury_address ||
    !row.deposit_address
  ) {
    return null;
  }
  return {
    chainId: Number(row.chain_id),
    tokenAddress: getAddress(row.token_address),
    factoryAddress: getAddress(row.factory_address),
    treasuryAddress: getAddress(row.treasury_address),
    depositAddress: getAddress(row.deposit_address),
  };
}

export function paymentRow(payment: Payment): Insertable<PaymentsTable> {
  const { quote } = payment;
  // Only the settler records payouts, on stored rows; a new row carrying one would silently drop it.
  if (settledBaseUnits(payment.payout) !== 0n || payment.payout.txHash !== null)
    throw new Error(`payment ${payment.id} cannot be inserted with a payout`);
  return {
    id: payment.id,
    reference: payment.reference,
    kind: payment.kind,
    merchant_id: payment.merchantId,
    mode: payment.mode,
    amount_minor_units: quote.amount.minorUnits.toString(),
    currency: quote.amount.currency.code,
    exchange_rate: formatRate(quote.rate),
    rate_source: payment.rateSource,
    rate_observed_at: isoTimestamp(payment.rateObservedAt),
    usdc_amount_base_units: quote.usdcBaseUnits.toString(),
    commission_bps: quote.commissionBps,
    commission_base_units: quote.commissionBaseUnits.toString(),
    merchant_share_base_units: quote.merchantShareBaseUnits.toString(),
    underpayment_tolerance_bps: payment.underpaymentToleranceBps,
    payout_address: payment.payoutAddress,
    webhook_url: payment.webhookUrl,
    return_url: payment.returnUrl,
    order_id: payment.orderId,
    customer_email: payment.customerEmail,
    status: payment.status,
    announced_status: payment.announcedStatus,
    amount_received_base_units: payment.amountReceivedBaseUnits.toString(),
    paid_at: payment.paidAt ? isoTimestamp(payment.paidAt) : null,
    late: payment.late ? 1 : 0,
    expires_at: isoTimestamp(payment.expiresAt),
    created_at: isoTimestamp(payment.createdAt),
    updated_at: isoTimestamp(payment.updatedAt),
    chain_id: payment.deposit?.chainId ?? null,
    token_address: payment.deposit?.tokenAddress.toLowerCase() ?? null,
    factory_address: payment.deposit?.factoryAddress.toLowerCase() ?? null,
    treasury_address: payment.deposit?.treasuryAddress.toLowerCase() ?? null,
    deposit_address: payment.deposit?.depositAddress.toLowerCase() ?? null,
    txid: payment.txid,
    txid_chain_id: payment.txidChainId,
    paid_token_address: payment.paidWith?.address.toLowerCase() ?? null,
    paid_token_symbol: payment.paidWith?.symbol ?? null,
    success_url: payment.successUrl,
    cancel_url: payment.cancelUrl,
    metadata: metadataText(payment.metadata),
    link_id: payment.linkId,
    customer_language: payment.customerLanguage,
    payer_language: payment.payerLanguage,
    title: payment.title,
    description: payment.description,
    line_items: lineItemsText(payment.lineItems),
    // A new payment has paid nothing out: the payout columns keep their defaults (the settler writes them).
  };
}

/** An insert's outcome, its reference's clash told as the port says (PaymentReferenceTaken). */
export async function referenceChecked(payment: Payment, inserted: Promise<unknown>): Promise<void> {
  try {
    await inserted;
  } catch (error) {
    throw isReferenceTaken(error) ? new PaymentReferenceTaken(payment.reference) : error;
  }
}

/** Rows per group-committed insert: at 45 columns a row, well under PostgreSQL's 65,535 bind parameters. */
const MAX_INSERT_BATCH = 100;

/**
 * A payment to insert, the idempotency key it answers and the request e-mail it sends (each written in the same
 * transaction).
 */
interface PendingInsert {
  readonly row: Insertable<PaymentsTable>;
  readonly completedKey?: CompletedKey;
  readonly email?: EmailMessage;
}

/** One statement (its own transaction), or a transaction when keys or e-mails are written with the rows. */
async function insertWithKysely(db: Db, items: readonly PendingInsert[]): Promise<void> {
  const keyed = items.filter((item) => item.completedKey !== undefined);
  const emails = items.flatMap((item) => (item.email ? [item.email] : []));
  if (keyed.length === 0 && emails.length === 0) {
    await db
      .insertInto('payments')
      .values(items.map((item) => item.row))
      .execute();
    return;
  }
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('payments')
      .values(items.map((item) => item.row))
      .execute();
    for (const { completedKey } of keyed) {
      await trx
        .updateTable('idempotency_keys')
        .set({ payment_id: completedKey!.paymentId })
        .where('merchant_id', '=', completedKey!.merchantId)
        .where('key', '=', completedKey!.storedKey)
        .execute();
    }
    for (const email of emails) await insertEmailMessage(trx, email);
  });
}

export function paymentRepository(handle: DatabaseHandle): PaymentStore {
  const { db, sqliteWriter } = handle;
  // Every create's insert is group-committed, with or without an idempotency key: on SQLite each commit is an
  // fsync (synchronous = FULL), on PostgreSQL a WAL flush. SQLite's writer groups on its own thread
  // (sqliteWriter.ts); PostgreSQL's inserts are grouped here.
  const insert: (item: PendingInsert) => Promise<void> = sqliteWriter
    ? ({ row, completedKey, email }) =>
        sqliteWriter.insertPayment(row as PaymentRowValues, completedKey, email)
    : groupCommit((items: readonly PendingInsert[]) => insertWithKysely(db, items), MAX_INSERT_BATCH);
  return {
    async insert(payment, options = {}) {
      const { idempotencyKey, email } = options;
      await referenceChecked(
        payment,
        insert({
          row: paymentRow(payment),
          ...(email ? { email } : {}),
          ...(idempotencyKey === undefined
            ? {}
            : {
                completedKey: {
                  paymentId: payment.id,
                  merchantId: payment.merchantId,
                  storedKey: storedIdempotencyKey(payment.mode, idempotencyKey),
                },
              }),
        }),
      );
    },
    async recordPayerLanguage(id, language) {
      // Only an open payment's, only when it changes: a page view that shows what is recorded writes nothing.
      await db
        .updateTable('payments')
        .set({ payer_language: language })
        .where('id', '=', id)
        .where('kind', '=', 'payment')
        .where('status', 'in', ['pending', 'processing'])
        .where((eb) => eb.or([eb('payer_language', 'is', null), eb('payer_language', '!=', language)]))
        .execute();
    },
    findById: (id) => findPayment(db, { id }),
    findForMerchant: (merchantId, id, mode) => findPayment(db, { id, merchantId, mode }),
    listForMerchant: (query) => listForMerchant(db, query),
    searchForMerchant: (merchantId, term) => searchPayments(db, merchantId, term),
  };
}

/** The payment a receipt page's token names (`/receipts/<token>`), for the checkout's receipt page. */
export function receiptPageRepository(handle: DatabaseHandle): {
  findPayment(token: string): Promise<Payment | undefined>;
} {
  return {
    async findPayment(token) {
      const row = await handle.db
        .selectFrom('payments')
        .selectAll()
        .where('receipt_token', '=', token)
        .where('kind', '=', 'payment')
        .executeTakeFirst();
      return row && toPayment(row);
    },
  };
}

/** A payment (not a refund's deposit) by id: a merchant's only, and of one mode, when they are given. */
async function findPayment(
  db: Db,
  match: { readonly id: string; readonly merchantId?: string; readonly mode?: KeyMode },
): Promise<Payment | undefined> {
  let select = db.selectFrom('payments').selectAll().where('id', '=', match.id);
  if (match.merchantId !== undefined) select = select.where('merchant_id', '=', match.merchantId);
  if (match.mode !== undefined) select = select.where('mode', '=', match.mode);
  const row = await select.where('kind', '=', 'payment').executeTakeFirst();
  return row && toPayment(row);
}

/**
 * Keyset pagination on (created_at, id), newest first: the index payments_merchant_mode_created serves one
 * merchant's, payments_mode_created every merchant's.
 */
async function listForMerchant(db: Db, query: PaymentListQuery): Promise<Payment[]> {
  if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > 1_000) {
    throw new RangeError('bad list limit');
  }
  let select = db
    .selectFrom('payments')
    .selectAll()
    .where('mode', '=', query.mode)
    .where('kind', '=', 'payment');
  if (query.merchantId !== null) select = select.where('merchant_id', '=', query.merchantId);
  const { statuses, orderId, linkId, createdAfter, createdFrom, createdBefore, after } = query;
  if (statuses !== undefined) {
    select = select.where((eb) =>
      eb.or(
        statuses.map((match) =>
          eb.and([
            eb('status', '=', match.status),
            ...(match.expiresBefore ? [eb('expires_at', '<', match.expiresBefore.toISOString())] : []),
            ...(match.expiresAtOrAfter ? [eb('expires_at', '>=', match.expiresAtOrAfter.toISOString())] : []),
          ]),
        ),
      ),
    );
  }
  if (orderId !== undefined) select = select.where('order_id', '=', orderId);
  if (linkId !== undefined) select = select.where('link_id', '=', linkId);
  if (createdAfter !== undefined) select = select.where('created_at', '>', createdAfter.toISOString());
  if (createdFrom !== undefined) select = select.where('created_at', '>=', createdFrom.toISOString());
  if (createdBefore !== undefined) select = select.where('created_at', '<', createdBefore.toISOString());
  if (after !== undefined) select = select.where(olderThan(after));
  const rows = await select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
  return rows.map(toPayment);
}
