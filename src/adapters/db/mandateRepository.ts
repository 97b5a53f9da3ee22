import { type Insertable, type Selectable, sql } from 'kysely';
import type { GaslessSpend } from '../../app/gasless/ports.ts';
import { SUBSCRIPTION_CLIENT_PREFIX } from '../../app/gasless/relayAuthorizations.ts';
import type { Charge, ChargeStatus, Mandate, MandateStore } from '../../app/subscriptions/mandatePorts.ts';
import { parseTerms, termsJson } from '../../domain/subscriptionMandate.ts';
import { isoTimestamp } from '../../domain/timestamp.ts';
import type { DatabaseHandle } from './database.ts';
import type { Db } from './db.ts';
import { markPaidByTransaction } from './paidByTransaction.ts';
import { relayedColumns, relayedFrom } from './relayedColumns.ts';
import { dateOrNull, oneOf } from './storedValues.ts';
import type { SubscriptionChargesTable, SubscriptionMandatesTable } from './subscriptionSchema.ts';

/** Pull renewal's records (migration 0049, decision 0061): mandates and charges. */
export function mandateRepository(handle: DatabaseHandle): MandateStore {
  const { db } = handle;
  // A charge is read by its key, as the one in flight, or as the next due: each takes the first row and maps it.
  const charges = db.selectFrom('subscription_charges').selectAll('subscription_charges');
  const firstCharge = async (query: typeof charges) => {
    const row = await query.executeTakeFirst();
    return row && toCharge(row);
  };
  return {
    async saveMandate(mandate) {
      const row = mandateRow(mandate);
      await db
        .insertInto('subscription_mandates')
        .values(row)
        .onConflict((oc) =>
          oc.column('subscription_id').doUpdateSet({
            chain_id: row.chain_id,
            charger: row.charger,
            customer: row.customer,
            terms: row.terms,
            signature: row.signature,
            permit: row.permit,
            status: row.status,
            // A cancel seen on chain belongs to its terms: kept while the same terms are saved again (a switch to
            // e-mail, a refused charge), dropped with them when the customer signs new ones.
            chain_canceled_tx: sql`case when subscription_mandates.mandate_id = ${row.mandate_id} then subscription_mandates.chain_canceled_tx else null end`,
            chain_canceled_at: sql`case when subscription_mandates.mandate_id = ${row.mandate_id} then subscription_mandates.chain_canceled_at else null end`,
            mandate_id: row.mandate_id,
            updated_at: row.updated_at,
          }),
        )
        .execute();
    },
    async findMandate(subscriptionId) {
      const row = await db
        .selectFrom('subscription_mandates')
        .selectAll()
        .where('subscription_id', '=', subscriptionId)
        .executeTakeFirst();
      return row && toMandate(row);
    },
    async insertCharge(charge) {
      const inserted = await db
        .insertInto('subscription_charges')
        .values(chargeRow(charge))
        .onConflict((oc) => oc.columns(['subscription_id', 'period']).doNothing())
        .returning('period')
        .execute();
      return inserted.length > 0;
    },
    findCharge: (subscriptionId, period) =>
      firstCharge(charges.where('subscription_id', '=', subscriptionId).where('period', '=', period)),
    inFlight: (chainId) =>
      firstCharge(charges.where('chain_id', '=', chainId).where('status', '=', 'sent').orderBy('updated_at')),
    nextDue(chainId, now, skipMerchants = []) {
      let query = charges
        .where('subscription_charges.chain_id', '=', chainId)
        .where('subscription_charges.status', 'in', ['pending', 'failed'])
        .where('subscription_charges.next_attempt_at', '<=', isoTimestamp(now));
      if (skipMerchants.length > 0)
        query = query
          .innerJoin('subscriptions', 'subscriptions.id', 'subscription_charges.subscription_id')
          .where('subscriptions.merchant_id', 'not in', [...skipMerchants]);
      return firstCharge(
        query.orderBy('subscription_charges.next_attempt_at').orderBy('subscription_charges.created_at'),
      );
    },
    spendSince: (chainId, since) => chargeSpendSince(db, chainId, since),
    markSent: (charge, tx, at) => markSent(db, charge, tx, at),
    markFailed: (charge, outcome, at) => markFailed(db, charge, outcome, at),
    markMined: (charge, outcome, event, at) => markMined(db, charge, outcome, event, at),
  };
}

async function chargeSpendSince(db: Db, chainId: number, since: Date): Promise<GaslessSpend[]> {
  // Few rows an hour (the budget bounds them); the fees stay exact integers, never floats.
  const rows = await db
    .selectFrom('subscription_charges')
    .innerJoin('subscriptions', 'subscriptions.id', 'subscription_charges.subscription_id')
    .leftJoin(
      'subscription_mandates',
      'subscription_mandates.subscription_id',
      'subscription_charges.subscription_id',
    )
    .select([
      'subscription_charges.payment_id',
      'subscription_charges.fee_wei',
      'subscriptions.merchant_id',
      'subscription_mandates.customer',
    ])
    .where('subscription_charges.chain_id', '=', chainId)
    .where('subscription_charges.fee_wei', 'is not', null)
    .where('subscription_charges.updated_at', '>=', isoTimestamp(since))
    .execute();
  return rows.map((row) => ({
    from: row.customer ?? '',
    paymentId: row.payment_id,
    client: `${SUBSCRIPTION_CLIENT_PREFIX}${row.merchant_id}`,
    feeWei: BigInt(row.fee_wei!),
  }));
}

/** What the charge's attempts cost with this one's: a retried charge never forgets an attempt that cost gas. */
function feeWith(charge: Charge, feeWei: bigint | undefined): string | null {
  if (feeWei === undefined) return charge.feeWei?.toString() ?? null;
  return ((charge.feeWei ?? 0n) + feeWei).toString();
}

/** An update of this one charge, by its key (subscription, period). */
function chargeUpdate(db: Db, charge: Charge) {
  return db
    .updateTable('subscription_charges')
    .where('subscription_id', '=', charge.subscriptionId)
    .where('period', '=', charge.period);
}

async function markFailed(
  db: Db,
  charge: Charge,
  outcome: Parameters<MandateStore['markFailed']>[1],
  at: Date,
): Promise<void> {
  await chargeUpdate(db, charge)
    .set({
      status: outcome.deferred ? 'pending' : 'failed',
      attempts: outcome.attempts,
      next_attempt_at: outcome.nextAttemptAt && isoTimestamp(outcome.nextAttemptAt),
      failure_reason: outcome.reason,
      gas_used: outcome.gasUsed?.toString() ?? charge.gasUsed?.toString() ?? null,
      fee_wei: feeWith(charge, outcome.feeWei),
      updated_at: isoTimestamp(at),
    })
    .where('status', '=', charge.status)
    .execute();
}

function markMined(
  db: Db,
  charge: Charge,
  outcome: Parameters<MandateStore['markMined']>[1],
  event: Parameters<MandateStore['markMined']>[2],
  at: Date,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const closed = await chargeUpdate(trx, charge)
      .set({
        status: 'mined',
        gas_used: outcome.gasUsed.toString(),
        fee_wei: feeWith(charge, outcome.feeWei),
        failure_reason: null,
        updated_at: isoTimestamp(at),
      })
      .where('status', '=', 'sent')
      .executeTakeFirst();
    if (Number(closed.numUpdatedRows) === 0) return false;
    // The period's payment paid by the charge's transaction, as an x402 call's is.
    return markPaidByTransaction(
      trx,
      charge.paymentId,
      {
        txHash: charge.txHash!,
        chainId: charge.chainId,
        token: outcome.token,
        at,
        amountBaseUnits: charge.amountBaseUnits,
      },
      event,
    );
  });
}

async function markSent(
  db: Db,
  charge: Charge,
  tx: { txHash: string; rawTx: string; nonce: bigint },
  at: Date,
): Promise<void> {
  await chargeUpdate(db, charge)
    .set({
      status: 'sent',
      attempts: charge.attempts + 1,
      tx_hash: tx.txHash,
      raw_tx: tx.rawTx,
      relayer_nonce: tx.nonce.toString(),
      next_attempt_at: null,
      updated_at: isoTimestamp(at),
    })
    .execute();
}

function mandateRow(m: Mandate): Insertable<SubscriptionMandatesTable> {
  return {
    subscription_id: m.subscriptionId,
    chain_id: m.chainId,
    charger: m.charger,
    mandate_id: m.mandateId,
    customer: m.terms.customer.toLowerCase(),
    terms: JSON.stringify(termsJson(m.terms)),
    signature: m.signature,
    permit: m.permit
      ? JSON.stringify({
          value: m.permit.value.toString(),
          deadline: m.permit.deadline.toString(),
          signature: m.permit.signature,
        })
      : null,
    status: m.status,
    chain_canceled_tx: m.canceledOnChain?.txHash ?? null,
    chain_canceled_at: m.canceledOnChain ? isoTimestamp(m.canceledOnChain.at) : null,
    created_at: isoTimestamp(m.createdAt),
    updated_at: isoTimestamp(m.updatedAt),
  };
}

function toMandate(row: Selectable<SubscriptionMandatesTable>): Mandate {
  const terms = parseTerms(JSON.parse(row.terms) as Record<string, unknown>);
  if (!terms) throw new Error(`mandate of ${row.subscription_id} holds malformed terms`);
  const permit = row.permit
    ? (JSON.parse(row.permit) as { value: string; deadline: string; signature: string })
    : null;
  return {
    subscriptionId: row.subscription_id,
    chainId: Number(row.chain_id),
    charger: row.charger,
    mandateId: row.mandate_id,
    terms,
    signature: row.signature,
    permit: permit && {
      value: BigInt(permit.value),
      deadline: BigInt(permit.deadline),
      signature: permit.signature,
    },
    status: row.status === 'canceled' ? 'canceled' : 'active',
    canceledOnChain:
      row.chain_canceled_tx && row.chain_canceled_at
        ? { txHash: row.chain_canceled_tx, at: new Date(row.chain_canceled_at) }
        : null,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function chargeRow(c: Charge): SubscriptionChargesTable {
  return {
    subscription_id: c.subscriptionId,
    period: c.period,
    payment_id: c.paymentId,
    chain_id: c.chainId,
    mandate_id: c.mandateId,
    amount_base_units: c.amountBaseUnits.toString(),
    status: c.status,
    attempts: c.attempts,
    next_attempt_at: c.nextAttemptAt && isoTimestamp(c.nextAttemptAt),
    ...relayedColumns(c),
    created_at: isoTimestamp(c.createdAt),
    updated_at: isoTimestamp(c.updatedAt),
  };
}

const CHARGE_STATUSES: readonly ChargeStatus[] = ['pending', 'sent', 'mined', 'failed'];

function toCharge(row: Selectable<SubscriptionChargesTable>): Charge {
  return {
    subscriptionId: row.subscription_id,
    period: Number(row.period),
    paymentId: row.payment_id,
    chainId: Number(row.chain_id),
    mandateId: row.mandate_id,
    amountBaseUnits: BigInt(row.amount_base_units),
    status: oneOf(CHARGE_STATUSES, row.status, `charge of ${row.subscription_id}'s status`),
    attempts: Number(row.attempts),
    nextAttemptAt: dateOrNull(row.next_attempt_at),
    ...relayedFrom(row),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
