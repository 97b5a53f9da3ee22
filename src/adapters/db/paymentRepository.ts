import type { Insertable, Selectable } from 'kysely';
import { getAddress } from 'viem';
import type { PaymentListQuery, PaymentStore } from '../../app/ports.ts';
import { findCurrency } from '../../domain/currencies.ts';
import { parseDecimal } from '../../domain/decimal.ts';
import type { Deposit, Payment } from '../../domain/payment.ts';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../domain/paymentStatus.ts';
import { formatRate } from '../../domain/quote.ts';
import type { DatabaseHandle, Db } from './database.ts';
import { groupCommit } from './groupCommit.ts';
import { storedIdempotencyKey } from './idempotencyRepository.ts';
import type { PaymentsTable } from './schema.ts';

export function toPayment(row: Selectable<PaymentsTable>): Payment {
  const currency = findCurrency(row.currency);
  const rate = parseDecimal(row.exchange_rate);
  if (!currency || typeof rate === 'string') throw new Error(`payment ${row.id} has a corrupt quote`);
  if (!(PAYMENT_STATUSES as readonly string[]).includes(row.status)) {
    throw new Error(`payment ${row.id} has an unknown status`);
  }
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: row.mode === 'test' ? 'test' : 'live',
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
    orderId: row.order_id,
    customerEmail: row.customer_email,
    status: row.status as PaymentStatus,
    amountReceivedBaseUnits: BigInt(row.amount_received_base_units),
    paidAt: row.paid_at === null ? null : new Date(row.paid_at),
    late: Number(row.late) === 1,
    expiresAt: new Date(row.expires_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    deposit: toDeposit(row),
    txid: row.txid,
    settledBaseUnits: BigInt(row.settled_base_units),
    payoutTxHash: row.payout_tx_hash,
    settledAt: row.settled_at === null ? null : new Date(row.settled_at),
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

function paymentRow(payment: Payment): Insertable<PaymentsTable> {
  const { quote } = payment;
  return {
    id: payment.id,
    merchant_id: payment.merchantId,
    mode: payment.mode,
    amount_minor_units: quote.amount.minorUnits.toString(),
    currency: quote.amount.currency.code,
    exchange_rate: formatRate(quote.rate),
    rate_source: payment.rateSource,
    rate_observed_at: payment.rateObservedAt.toISOString(),
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
    amount_received_base_units: payment.amountReceivedBaseUnits.toString(),
    paid_at: payment.paidAt?.toISOString() ?? null,
    late: payment.late ? 1 : 0,
    expires_at: payment.expiresAt.toISOString(),
    created_at: payment.createdAt.toISOString(),
    updated_at: payment.updatedAt.toISOString(),
    chain_id: payment.deposit?.chainId ?? null,
    token_address: payment.deposit?.tokenAddress.toLowerCase() ?? null,
    factory_address: payment.deposit?.factoryAddress.toLowerCase() ?? null,
    treasury_address: payment.deposit?.treasuryAddress.toLowerCase() ?? null,
    deposit_address: payment.deposit?.depositAddress.toLowerCase() ?? null,
    txid: payment.txid,
    settled_base_units: payment.settledBaseUnits.toString(),
    payout_tx_hash: payment.payoutTxHash,
    settled_at: payment.settledAt?.toISOString() ?? null,
  };
}

/** Rows per group-committed insert: at 34 columns a row, well under PostgreSQL's 65,535 bind parameters. */
const MAX_INSERT_BATCH = 100;

export function paymentRepository(handle: DatabaseHandle): PaymentStore {
  const { db } = handle;
  const insertRows = (rows: readonly Insertable<PaymentsTable>[]) =>
    db
      .insertInto('payments')
      .values([...rows])
      .execute()
      .then(() => {});
  const insertRow =
    handle.dialect === 'postgres'
      ? groupCommit(insertRows, MAX_INSERT_BATCH)
      : (row: Insertable<PaymentsTable>) => insertRows([row]);
  return {
    async insert(payment, options = {}) {
      const { idempotencyKey } = options;
      if (idempotencyKey === undefined) {
        await insertRow(paymentRow(payment));
        return;
      }
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('payments').values(paymentRow(payment)).execute();
        await trx
          .updateTable('idempotency_keys')
          .set({ payment_id: payment.id })
          .where('merchant_id', '=', payment.merchantId)
          .where('key', '=', storedIdempotencyKey(payment.mode, idempotencyKey))
          .execute();
      });
    },
    async findById(id) {
      const row = await db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toPayment(row);
    },
    async findForMerchant(merchantId, id, mode) {
      const row = await db
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', id)
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .executeTakeFirst();
      return row && toPayment(row);
    },
    listForMerchant: (query) => listForMerchant(db, query),
  };
}

/** Keyset pagination on (created_at, id), newest first: the index payments_merchant_mode_created serves it. */
async function listForMerchant(db: Db, query: PaymentListQuery): Promise<Payment[]> {
  if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > 1_000) {
    throw new RangeError('bad list limit');
  }
  let select = db
    .selectFrom('payments')
    .selectAll()
    .where('merchant_id', '=', query.merchantId)
    .where('mode', '=', query.mode);
  const { statuses, orderId, createdAfter, after } = query;
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
  if (createdAfter !== undefined) select = select.where('created_at', '>', createdAfter.toISOString());
  if (after !== undefined) {
    const createdAt = after.createdAt.toISOString();
    select = select.where((eb) =>
      eb.or([
        eb('created_at', '<', createdAt),
        eb.and([eb('created_at', '=', createdAt), eb('id', '<', after.id)]),
      ]),
    );
  }
  const rows = await select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
  return rows.map(toPayment);
}
