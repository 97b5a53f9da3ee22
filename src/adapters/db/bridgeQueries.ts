import type { ExpressionBuilder } from 'kysely';
import { getAddress } from 'viem';
import type {
  BridgeStep,
  BridgeTransfer,
  BurnCandidate,
  FastBurnCandidate,
  PaymentForwarder,
} from '../../app/bridge/ports.ts';
import { toTransfer } from './bridgeRows.ts';
import type { Db } from './db.ts';
import { blockParam, listTransfers } from './ledgerTransaction.ts';
import { toPayment } from './paymentRepository.ts';
import type { DatabaseSchema, PaymentsTable } from './schema.ts';
import { BALANCE_UNSETTLED } from './unsettledPayments.ts';

/** What the bridge steps read: money to burn, transfers due for their next step, a payment's forwarder. */

/** The columns of a payment its forwarder is known by (PaymentForwarder: `forwarderFrom`). */
const FORWARDER_COLUMNS = [
  'payments.id',
  'payments.factory_address',
  'payments.deposit_address',
  'payments.payout_address',
  'payments.treasury_address',
  'payments.commission_bps',
] as const;

/** A payment's forwarder from its FORWARDER_COLUMNS; undefined while it has none (no deposit address yet). */
function forwarderFrom(
  row: Pick<
    PaymentsTable,
    'id' | 'factory_address' | 'deposit_address' | 'payout_address' | 'treasury_address' | 'commission_bps'
  >,
): PaymentForwarder | undefined {
  if (!row.factory_address || !row.deposit_address || !row.treasury_address) return undefined;
  return {
    paymentId: row.id,
    factoryAddress: getAddress(row.factory_address),
    depositAddress: getAddress(row.deposit_address),
    merchantAddress: getAddress(row.payout_address),
    treasuryAddress: getAddress(row.treasury_address),
    commissionBps: Number(row.commission_bps),
  };
}

export async function burnCandidates(
  db: Db,
  sourceChainId: number,
  filter: { tokenAddress: string; dustThresholdBaseUnits: bigint; limit: number },
): Promise<BurnCandidate[]> {
  const rows = await db
    .selectFrom('deposit_balances as b')
    .innerJoin('payments', 'payments.id', 'b.owner_id')
    .select([...FORWARDER_COLUMNS, 'b.received_base_units', 'b.settled_base_units'])
    .select((eb) =>
      eb
        .selectFrom('transfers')
        .select((t) => t.fn.min('transfers.block_number').as('first'))
        .whereRef('transfers.payment_id', '=', 'payments.id')
        .where('transfers.chain_id', '=', sourceChainId)
        .where('transfers.final', '=', 1)
        .where('transfers.orphaned', '=', 0)
        .as('first_block'),
    )
    .where('b.chain_id', '=', sourceChainId)
    .where(BALANCE_UNSETTLED)
    .where('b.token_address', '=', filter.tokenAddress.toLowerCase())
    .where('b.accepted', '=', 1)
    // What arrived is the merchant's once the payment is paid or failed, as the settler decides on the home chain.
    .where('payments.status', 'in', ['paid', 'failed'])
    .where('payments.deposit_address', 'is not', null)
    .where((eb) => noOpenBridgeTransfer(eb, sourceChainId))
    .orderBy('payments.created_at')
    .orderBy('payments.id')
    .limit(filter.limit)
    .execute();
  const candidates: BurnCandidate[] = [];
  for (const row of rows) {
    const unburnt = BigInt(row.received_base_units) - BigInt(row.settled_base_units);
    if (unburnt < filter.dustThresholdBaseUnits || unburnt <= 0n || row.first_block === null) continue;
    const forwarder = forwarderFrom(row);
    if (forwarder === undefined) continue;
    candidates.push({
      ...forwarder,
      sourceChainId,
      tokenAddress: getAddress(filter.tokenAddress),
      unburntBaseUnits: unburnt,
      firstTransferBlock: BigInt(row.first_block),
    });
  }
  return candidates;
}

export async function due(
  db: Db,
  step: Exclude<BridgeStep, 'done'>,
  chain: { sourceChainId: number } | { homeChainId: number },
  now: Date,
  limit: number,
): Promise<BridgeTransfer[]> {
  let query = db
    .selectFrom('bridge_transfers')
    .selectAll()
    .where('step', '=', step)
    .where((eb) =>
      eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now.toISOString())]),
    );
  query =
    'sourceChainId' in chain
      ? query.where('source_chain_id', '=', chain.sourceChainId)
      : query.where('home_chain_id', '=', chain.homeChainId);
  // A transaction in flight is moved on by `inFlight`'s caller, not sent again.
  if (step === 'burn') query = query.where('burn_tx_hash', 'is', null);
  if (step === 'mint') query = query.where('mint_tx_hash', 'is', null);
  const rows = await query.orderBy('created_at').orderBy('id').limit(limit).execute();
  return rows.map(toTransfer);
}

export async function inFlight(
  db: Db,
  step: 'burn' | 'mint',
  chainId: number,
): Promise<BridgeTransfer | undefined> {
  const row = await db
    .selectFrom('bridge_transfers')
    .selectAll()
    .where('step', '=', step)
    .$if(step === 'burn', (q) =>
      q.where('source_chain_id', '=', chainId).where('burn_tx_hash', 'is not', null),
    )
    .$if(step === 'mint', (q) => q.where('home_chain_id', '=', chainId).where('mint_tx_hash', 'is not', null))
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return row && toTransfer(row);
}

export async function forwarderOf(db: Db, paymentId: string): Promise<PaymentForwarder | undefined> {
  const row = await db
    .selectFrom('payments')
    .select(FORWARDER_COLUMNS)
    .where('payments.id', '=', paymentId)
    .executeTakeFirst();
  return row && forwarderFrom(row);
}

export async function firstTransferBlock(
  db: Db,
  paymentId: string,
  chainId: number,
): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('transfers')
    .select((eb) => eb.fn.min('block_number').as('first'))
    .where('payment_id', '=', paymentId)
    .where('chain_id', '=', chainId)
    .where('final', '=', 1)
    .where('orphaned', '=', 0)
    .executeTakeFirst();
  return row?.first == null ? undefined : BigInt(row.first);
}

/**
 * Payments with money on a fast source chain that no burn carries yet, in transfers at least at `deepestBlock`'s
 * depth (decision 0037): each with its source balance's burnt sum and every transfer of the payment, for the
 * burn step to decide whether and how much to burn. Oldest payment first.
 */
export async function fastBurnCandidates(
  db: Db,
  sourceChainId: number,
  filter: { tokenAddress: string; deepestBlock: bigint; limit: number },
): Promise<FastBurnCandidate[]> {
  const token = filter.tokenAddress.toLowerCase();
  const rows = await db
    .selectFrom('payments')
    .leftJoin('deposit_balances as b', (join) =>
      join
        .onRef('b.owner_id', '=', 'payments.id')
        .on('b.chain_id', '=', sourceChainId)
        .on('b.token_address', '=', token),
    )
    .selectAll('payments')
    .select('b.settled_base_units as burnt_base_units')
    .where('payments.deposit_address', 'is not', null)
    .where('payments.status', 'in', ['processing', 'paid', 'failed'])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('transfers')
          .select('transfers.id')
          .whereRef('transfers.payment_id', '=', 'payments.id')
          .where('transfers.chain_id', '=', sourceChainId)
          .where('transfers.token_address', '=', token)
          .where('transfers.orphaned', '=', 0)
          .where('transfers.bridge_transfer_id', 'is', null)
          .where((deep) =>
            deep.or([
              deep('transfers.final', '=', 1),
              deep('transfers.block_number', '<=', blockParam(filter.deepestBlock)),
            ]),
          )
          // The same transaction in another block, after a reorg: carried already under its first row.
          .where((inner) =>
            inner.not(
              inner.exists(
                inner
                  .selectFrom('transfers as carried')
                  .select('carried.id')
                  .whereRef('carried.chain_id', '=', 'transfers.chain_id')
                  .whereRef('carried.tx_hash', '=', 'transfers.tx_hash')
                  .where('carried.bridge_transfer_id', 'is not', null),
              ),
            ),
          ),
      ),
    )
    .where((eb) => noOpenBridgeTransfer(eb, sourceChainId))
    .orderBy('payments.created_at')
    .orderBy('payments.id')
    .limit(filter.limit)
    .execute();
  const candidates: FastBurnCandidate[] = [];
  for (const row of rows) {
    const forwarder = await forwarderOf(db, row.id);
    if (!forwarder) continue;
    candidates.push({
      forwarder,
      payment: toPayment(row),
      burntBaseUnits: BigInt(row.burnt_base_units ?? '0'),
      transfers: await listTransfers(db, row.id),
    });
  }
  return candidates;
}

/** The payment has no transfer of its money under way from this source chain: one burn at a time per payment. */
function noOpenBridgeTransfer(eb: ExpressionBuilder<DatabaseSchema, 'payments'>, sourceChainId: number) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('bridge_transfers as t')
        .select('t.id')
        .whereRef('t.payment_id', '=', 'payments.id')
        .where('t.source_chain_id', '=', sourceChainId)
        .where('t.step', '<>', 'done'),
    ),
  );
}
