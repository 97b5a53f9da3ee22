import { sql } from 'kysely';
import { getAddress } from 'viem';
import type { SettlementCandidate, UnsettledPayout } from '../../app/settlement/ports.ts';
import { type PayoutProgress, settledBaseUnits } from '../../domain/payout.ts';
import type { Db } from './db.ts';
import { depositBalanceOf } from './depositBalance.ts';
import { toPayment } from './paymentRepository.ts';

/**
 * What deposit addresses still owe: the settler's candidates, the payouts operators list and /metrics counts,
 * and the back-offs an operator may skip. The two "not yet settled" predicates are written here once each, verbatim
 * the predicates of the partial indexes that serve them (the planner uses a partial index only when the query
 * implies its predicate; test/payments/unsettledPayments.test.ts checks it on both dialects).
 */

/** Due: enough to be worth the gas, or a share that failed and must go out whatever its size. */
function isDue(unsettled: bigint, payout: PayoutProgress, dustThresholdBaseUnits: bigint): boolean {
  if (unsettled <= 0n) return false;
  return (
    unsettled >= dustThresholdBaseUnits ||
    payout.blockedSince !== null ||
    payout.commissionBlockedSince !== null
  );
}

function dustParam(dustThresholdBaseUnits: bigint): number {
  const dust = Number(dustThresholdBaseUnits);
  if (!Number.isSafeInteger(dust) || dust < 0) throw new RangeError('dust threshold out of range');
  return dust;
}

/**
 * Paid or failed payments whose deposit address still owes something: final funds not flushed, or a share that
 * failed to go out. The coarse filter runs in SQL (the partial index payments_unsettled covers it); `isDue`
 * decides in bigint. The settler's list (`listUnsettled`) and the monitoring count (`payoutHealth`) both start
 * from this query, so they cannot disagree on what is owed.
 */
export function unsettledPayments(db: Db, dustThresholdBaseUnits: bigint) {
  const dust = dustParam(dustThresholdBaseUnits);
  return (
    db
      .selectFrom('payments')
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

/**
 * A balance (`deposit_balances as b`) not moved on yet: received, plus on the home chain what CCTP minted in,
 * unlike what was flushed (or, on a source chain, burnt). Verbatim the predicate of the partial index
 * deposit_balances_unsettled (migration 0027).
 */
export const BALANCE_UNSETTLED = sql<boolean>`cast(b.received_base_units as bigint) + cast(b.bridged_base_units as bigint) <> cast(b.settled_base_units as bigint)`;

/** Balances of one chain's deposit addresses not flushed yet, with their payment, that may be tried now. */
export function unsettledBalances(db: Db, chainId: number, now: Date) {
  return db
    .selectFrom('deposit_balances as b')
    .innerJoin('payments', 'payments.id', 'b.owner_id')
    .where('b.chain_id', '=', chainId)
    .where(BALANCE_UNSETTLED)
    .where('payments.deposit_address', 'is not', null)
    .where((eb) =>
      eb.or([
        eb('payments.settlement_retry_at', 'is', null),
        eb('payments.settlement_retry_at', '<=', now.toISOString()),
      ]),
    );
}

export async function settlementCandidates(
  db: Db,
  chainId: number,
  options: { dustThresholdBaseUnits: bigint; now: Date; limit: number },
): Promise<SettlementCandidate[]> {
  const { dustThresholdBaseUnits, now, limit } = options;
  // Refused before any query, as the payments' predicate refuses it: the comparison below is in bigint.
  dustParam(dustThresholdBaseUnits);
  // One candidate per deposit address and token: a forwarder is flushed one token at a time.
  const rows = await unsettledBalances(db, chainId, now)
    .selectAll('payments')
    .select([
      'b.token_address as balance_token',
      'b.accepted as balance_accepted',
      'b.received_base_units as balance_received',
      'b.bridged_base_units as balance_bridged',
      'b.settled_base_units as balance_settled',
    ])
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
    const unsettled =
      BigInt(row.balance_received) + BigInt(row.balance_bridged) - BigInt(row.balance_settled);
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
}

export async function listUnsettled(
  db: Db,
  filter: { dustThresholdBaseUnits: bigint; failingOnly: boolean; limit: number },
): Promise<UnsettledPayout[]> {
  const { dustThresholdBaseUnits, failingOnly, limit } = filter;
  let query = unsettledPayments(db, dustThresholdBaseUnits).selectAll();
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
}

export async function requestSweep(
  db: Db,
  paymentId: string,
  tokenAddress: string,
  balanceBaseUnits: bigint,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const payment = await trx
      .selectFrom('payments')
      .select(['id', 'chain_id', 'token_address'])
      .where('id', '=', paymentId)
      .executeTakeFirst();
    if (!payment || payment.chain_id === null) return false;
    const token = tokenAddress.toLowerCase();
    const existing = await depositBalanceOf(trx, {
      ownerId: paymentId,
      chainId: Number(payment.chain_id),
      tokenAddress: token,
    });
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
        oc.columns(['owner_id', 'chain_id', 'token_address']).doUpdateSet({ received_base_units: received }),
      )
      .execute();
    return true;
  });
}

export async function delayedUnnotified(
  db: Db,
  chainId: number,
  blockedBefore: Date,
  limit: number,
): Promise<string[]> {
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
}

export async function retryNow(
  db: Db,
  target: { readonly paymentId: string } | { readonly all: true },
): Promise<number> {
  const result = await db
    .updateTable('payments')
    .set({ settlement_retry_at: null })
    .where('settlement_retry_at', 'is not', null)
    .$if('paymentId' in target, (q) => q.where('id', '=', (target as { paymentId: string }).paymentId))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
