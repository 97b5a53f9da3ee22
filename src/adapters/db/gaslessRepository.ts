import type { Selectable } from 'kysely';
import type {
  GaslessAuthorization,
  GaslessInsertOutcome,
  GaslessSpend,
  GaslessStatus,
  GaslessStore,
  PendingQueue,
} from '../../app/gasless/ports.ts';
import type { DatabaseHandle } from './database.ts';
import type { Db } from './db.ts';
import { relayedColumns, relayedFrom } from './relayedColumns.ts';
import type { GaslessAuthorizationsTable } from './schema.ts';
import { dateOrNull, oneOf } from './storedValues.ts';
import { isUniqueViolation } from './uniqueViolation.ts';

const STATUSES: readonly GaslessStatus[] = ['pending', 'sent', 'mined', 'failed'];

/** Customers' signed EIP-3009 authorizations (migration 0014). */
export function gaslessRepository(handle: DatabaseHandle): GaslessStore {
  const { db } = handle;
  return {
    insert: (authorization) => insertAuthorization(db, authorization),
    inFlight: (chainId) => inFlight(db, chainId),
    nextPending: (chainId, queue) => nextPending(db, chainId, queue),
    markSent: (id, tx) => markSent(db, id, tx),
    finish: (id, outcome, at) => finish(db, id, outcome, at),
    spendSince: (chainId, since) => spendSince(db, chainId, since),
    listForPayment: (paymentId) => listForPayment(db, paymentId),
  };
}

async function insertAuthorization(
  db: Db,
  authorization: GaslessAuthorization,
): Promise<GaslessInsertOutcome> {
  try {
    await db.insertInto('gasless_authorizations').values(gaslessRow(authorization)).execute();
    return 'inserted';
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Two unique indexes may refuse it: tell which by looking (the driver's message names neither portably).
    const sameNonce = await db
      .selectFrom('gasless_authorizations')
      .select('id')
      .where('chain_id', '=', authorization.chainId)
      .where('token_address', '=', authorization.tokenAddress)
      .where('from_address', '=', authorization.from)
      .where('nonce', '=', authorization.nonce)
      .executeTakeFirst();
    return sameNonce ? 'nonce-used' : 'in-flight';
  }
}

async function inFlight(db: Db, chainId: number): Promise<GaslessAuthorization | undefined> {
  const row = await db
    .selectFrom('gasless_authorizations')
    .selectAll()
    .where('chain_id', '=', chainId)
    .where('status', '=', 'sent')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return row && toGaslessAuthorization(row);
}

async function nextPending(
  db: Db,
  chainId: number,
  queue: PendingQueue | undefined,
): Promise<GaslessAuthorization | undefined> {
  let query = db
    .selectFrom('gasless_authorizations as p')
    .selectAll('p')
    .where('p.chain_id', '=', chainId)
    .where('p.status', '=', 'pending');
  if (queue?.skipPayers?.length) query = query.where('p.from_address', 'not in', queue.skipPayers);
  if (queue?.skipPayments?.length) query = query.where('p.payment_id', 'not in', queue.skipPayments);
  if (queue?.skipClients?.length) query = query.where('p.client_address', 'not in', queue.skipClients);
  if (queue) {
    const since = queue.servedSince.toISOString();
    // The payer's relays this hour, found through the nonce index (chain, token, authorizer): a payer who
    // floods the queue waits behind everyone served less, whatever the order of arrival.
    query = query.orderBy((eb) =>
      eb
        .selectFrom('gasless_authorizations as s')
        .select((s) => s.fn.countAll().as('served'))
        .whereRef('s.chain_id', '=', 'p.chain_id')
        .whereRef('s.token_address', '=', 'p.token_address')
        .whereRef('s.from_address', '=', 'p.from_address')
        .where('s.fee_wei', 'is not', null)
        .where('s.finished_at', '>=', since),
    );
  }
  const row = await query.orderBy('p.created_at').orderBy('p.id').limit(1).executeTakeFirst();
  return row && toGaslessAuthorization(row);
}

async function markSent(db: Db, id: string, tx: Parameters<GaslessStore['markSent']>[1]): Promise<void> {
  await db
    .updateTable('gasless_authorizations')
    .set({ status: 'sent', tx_hash: tx.txHash, raw_tx: tx.rawTx, relayer_nonce: tx.nonce.toString() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

async function finish(
  db: Db,
  id: string,
  outcome: Parameters<GaslessStore['finish']>[1],
  at: Date,
): Promise<void> {
  await db
    .updateTable('gasless_authorizations')
    .set({
      status: outcome.status,
      gas_used: outcome.gasUsed?.toString() ?? null,
      fee_wei: outcome.feeWei?.toString() ?? null,
      failure_reason: outcome.reason ?? null,
      finished_at: at.toISOString(),
      ...(outcome.txHash === undefined ? {} : { tx_hash: outcome.txHash }),
    })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'sent'])
    .execute();
}

async function spendSince(db: Db, chainId: number, since: Date): Promise<GaslessSpend[]> {
  // Few rows an hour (the cap bounds them); the fees stay exact integers, never floats.
  const rows = await db
    .selectFrom('gasless_authorizations')
    .select(['from_address', 'payment_id', 'client_address', 'fee_wei'])
    .where('chain_id', '=', chainId)
    .where('fee_wei', 'is not', null)
    .where('finished_at', '>=', since.toISOString())
    .execute();
  return rows.map((row) => ({
    from: row.from_address,
    paymentId: row.payment_id,
    client: row.client_address,
    feeWei: BigInt(row.fee_wei!),
  }));
}

async function listForPayment(db: Db, paymentId: string): Promise<GaslessAuthorization[]> {
  const rows = await db
    .selectFrom('gasless_authorizations')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toGaslessAuthorization);
}

export function gaslessRow(a: GaslessAuthorization): GaslessAuthorizationsTable {
  return {
    id: a.id,
    payment_id: a.paymentId,
    chain_id: a.chainId,
    token_address: a.tokenAddress,
    from_address: a.from,
    to_address: a.to,
    value_base_units: a.valueBaseUnits.toString(),
    valid_after: a.validAfter.toString(),
    valid_before: a.validBefore.toString(),
    nonce: a.nonce,
    signature: a.signature,
    client_address: a.clientAddress,
    status: a.status,
    ...relayedColumns(a),
    created_at: a.createdAt.toISOString(),
    finished_at: a.finishedAt?.toISOString() ?? null,
  };
}

export function toGaslessAuthorization(row: Selectable<GaslessAuthorizationsTable>): GaslessAuthorization {
  return {
    id: row.id,
    paymentId: row.payment_id,
    chainId: Number(row.chain_id),
    tokenAddress: row.token_address,
    from: row.from_address,
    to: row.to_address,
    valueBaseUnits: BigInt(row.value_base_units),
    validAfter: BigInt(row.valid_after),
    validBefore: BigInt(row.valid_before),
    nonce: row.nonce,
    signature: row.signature,
    clientAddress: row.client_address,
    status: oneOf(STATUSES, row.status, `gasless authorization ${row.id}'s status`),
    ...relayedFrom(row),
    createdAt: new Date(row.created_at),
    finishedAt: dateOrNull(row.finished_at),
  };
}
