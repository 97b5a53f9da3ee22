import { sql } from 'kysely';
import type { BridgeStore, BridgeTransfer } from '../../app/bridge/ports.ts';
import type { LedgerTransaction } from '../../app/chain/ports.ts';
import { recordExpiry, recordReattestRequested } from './bridgeExpiry.ts';
import {
  burnCandidates,
  due,
  fastBurnCandidates,
  firstTransferBlock,
  forwarderOf,
  inFlight,
} from './bridgeQueries.ts';
import { stepTransactionColumns, toRow, toTransfer } from './bridgeRows.ts';
import { BRIDGE_HOLD_PREFIX, setbackIn } from './bridgeSetback.ts';
import type { DatabaseHandle } from './database.ts';
import type { Db } from './db.ts';
import { depositBalanceOf } from './depositBalance.ts';
import { blockParam, type LedgerReactions, ledgerTransaction } from './ledgerTransaction.ts';
import { isUniqueViolation } from './uniqueViolation.ts';

export { BRIDGE_HOLD_PREFIX };

/**
 * The bridge's records (migration 0027): each transfer's steps, and what they change elsewhere in the same
 * database transaction — a final burn counts the source balance as moved on, a final mint adds to the home
 * balance the settler flushes, a stall marks the payment's payout as held up (so `payment.payout_delayed`, the
 * console and /metrics report it as any failing payout) and the mint clears it.
 */
export function bridgeRepository(handle: DatabaseHandle, hooks: BridgeRepositoryHooks = {}): BridgeStore {
  const { db } = handle;
  return {
    burnCandidates: (sourceChainId, filter) => burnCandidates(db, sourceChainId, filter),
    fastBurnCandidates: (sourceChainId, filter) => fastBurnCandidates(db, sourceChainId, filter),
    due: (step, chain, now, limit) => due(db, step, chain, now, limit),
    inFlight: (step, chainId) => inFlight(db, step, chainId),
    forwarderOf: (paymentId) => forwarderOf(db, paymentId),
    firstTransferBlock: (paymentId, chainId) => firstTransferBlock(db, paymentId, chainId),
    recordedBurns: async (paymentId, sourceChainId) => {
      const rows = await db
        .selectFrom('bridge_transfers')
        .select('burn_tx_hash')
        .where('payment_id', '=', paymentId)
        .where('source_chain_id', '=', sourceChainId)
        .where('burn_tx_hash', 'is not', null)
        .execute();
      return rows.map((r) => r.burn_tx_hash as string);
    },
    open: (transfer, carries) => openTransfer(db, transfer, carries ?? []),
    async saveStepTransaction(id, step, tx, at) {
      await db
        .updateTable('bridge_transfers')
        .set({ ...stepTransactionColumns(step, tx), updated_at: at.toISOString() })
        .where('id', '=', id)
        .execute();
    },
    async highestNonce(step, chainId) {
      const nonce = step === 'burn' ? 'burn_nonce' : 'mint_nonce';
      const chain = step === 'burn' ? 'source_chain_id' : 'home_chain_id';
      const row = await db
        .selectFrom('bridge_transfers')
        .select(sql<string | number | null>`max(cast(${sql.ref(nonce)} as bigint))`.as('highest'))
        .where(chain, '=', chainId)
        .executeTakeFirst();
      return row?.highest == null ? undefined : BigInt(row.highest);
    },
    async rebindBurnFee(id, maxFeeBaseUnits, at) {
      await db
        .updateTable('bridge_transfers')
        .set({ max_fee_base_units: maxFeeBaseUnits.toString(), updated_at: at.toISOString() })
        .where('id', '=', id)
        .where('step', '=', 'burn')
        .execute();
    },
    async adoptBurn(id, burn, at) {
      await db
        .updateTable('bridge_transfers')
        .set({
          burn_tx_hash: burn.txHash.toLowerCase(),
          amount_base_units: burn.amountBaseUnits.toString(),
          max_fee_base_units: burn.maxFeeBaseUnits.toString(),
          min_finality_threshold: burn.minFinalityThreshold,
          updated_at: at.toISOString(),
        })
        .where('id', '=', id)
        .where('step', '=', 'burn')
        .execute();
    },
    recordBurn: (id, burn, at) => recordBurn(db, id, burn, at),
    async recordAttestation(id, attested, at) {
      await db
        .updateTable('bridge_transfers')
        .set({
          step: 'mint',
          attested_message: attested.message,
          attestation: attested.attestation,
          cctp_nonce: attested.cctpNonce.toLowerCase(),
          fee_executed_base_units: attested.feeExecutedBaseUnits.toString(),
          expired_at: null,
          reattest_requested_at: null,
          ...STEP_FRESH,
          updated_at: at.toISOString(),
        })
        .where('id', '=', id)
        .where('step', '=', 'attest')
        .execute();
    },
    recordMint: (id, mint, at) => recordMint(handle, hooks, id, mint, at),
    recordSetback: (id, setback, at) => db.transaction().execute((trx) => setbackIn(trx, id, setback, at)),
    recordExpiry: (id, setback, at) => recordExpiry(db, id, setback, at),
    recordReattestRequested: (id, at) => recordReattestRequested(db, id, at),
    async listOpen(limit) {
      const rows = await db
        .selectFrom('bridge_transfers')
        .selectAll()
        .where('step', '<>', 'done')
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toTransfer);
    },
  };
}

/**
 * What else a final mint changes in its database transaction: the main wiring refreshes the payment's status there
 * (a fast transfer's payment is paid once its mint is final, decision 0037), with the watcher's own refresh.
 */
export interface BridgeRepositoryHooks {
  readonly afterMint?: (tx: LedgerTransaction, paymentId: string, at: Date) => Promise<unknown>;
  /** What that ledger transaction runs where it raises what happened (a payment paid: its receipt). */
  readonly reactions?: LedgerReactions | undefined;
}

/** A carried transfer already carried by another burn: the whole opening is undone. */
class AlreadyCarried extends Error {}

async function openTransfer(db: Db, transfer: BridgeTransfer, carries: readonly string[]): Promise<boolean> {
  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('bridge_transfers').values(toRow(transfer)).execute();
      if (carries.length === 0) return;
      const carried = await trx
        .updateTable('transfers')
        .set({ bridge_transfer_id: transfer.id })
        .where('id', 'in', [...carries])
        .where('bridge_transfer_id', 'is', null)
        .returning('id')
        .execute();
      if (carried.length !== carries.length) throw new AlreadyCarried();
    });
    return true;
  } catch (error) {
    if (isUniqueViolation(error) || error instanceof AlreadyCarried) return false;
    throw error;
  }
}

/** A step's attempts start over when the transfer moves on. */
const STEP_FRESH = { attempts: 0, next_attempt_at: null, last_error: null, stalled_since: null } as const;

async function recordBurn(
  db: Db,
  id: string,
  burn: { txHash: string; blockNumber: bigint; message: string | null },
  at: Date,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('bridge_transfers')
      .set({
        step: 'attest',
        burn_tx_hash: burn.txHash.toLowerCase(),
        burn_block_number: blockParam(burn.blockNumber),
        message: burn.message,
        ...STEP_FRESH,
        updated_at: at.toISOString(),
      })
      .where('id', '=', id)
      .where('step', '=', 'burn')
      .returning([
        'payment_id',
        'source_chain_id',
        'token_address',
        'amount_base_units',
        'max_fee_base_units',
        'quoted_max_fee_base_units',
      ])
      .executeTakeFirst();
    if (!moved) return false;
    // Until the mint says what CCTP kept, the most it may keep is held back from the payout shown; beside it,
    // what the quote allowed of this amount, and whether the burn had to allow more (decision 0035).
    const bound = moved.max_fee_base_units;
    const quoted = moved.quoted_max_fee_base_units;
    const aboveQuote = BigInt(bound) > BigInt(quoted) ? 1 : 0;
    if (BigInt(bound) > 0n || BigInt(quoted) > 0n) {
      await trx
        .updateTable('payments')
        .set((eb) => ({
          bridge_fee_bound_base_units: sql<string>`cast(cast(bridge_fee_bound_base_units as bigint) + cast(${bound} as bigint) as text)`,
          bridge_fee_quoted_base_units: sql<string>`cast(cast(bridge_fee_quoted_base_units as bigint) + cast(${quoted} as bigint) as text)`,
          bridge_burns_above_quote: eb('bridge_burns_above_quote', '+', aboveQuote),
        }))
        .where('id', '=', moved.payment_id)
        .execute();
    }
    // On a source chain's row, `settled` is what left the forwarder: burnt.
    const balance = await depositBalanceOf(trx, {
      ownerId: moved.payment_id,
      chainId: moved.source_chain_id,
      tokenAddress: moved.token_address,
    });
    const settled = (BigInt(balance?.settled_base_units ?? '0') + BigInt(moved.amount_base_units)).toString();
    // A fast burn goes before its transfers are final, so before the row their finality writes (decision 0037).
    await trx
      .insertInto('deposit_balances')
      .values({
        owner_id: moved.payment_id,
        owner_kind: 'payment',
        chain_id: moved.source_chain_id,
        token_address: moved.token_address.toLowerCase(),
        accepted: 1,
        settled_base_units: settled,
      })
      .onConflict((oc) =>
        oc.columns(['owner_id', 'chain_id', 'token_address']).doUpdateSet({ settled_base_units: settled }),
      )
      .execute();
    return true;
  });
}

async function recordMint(
  handle: DatabaseHandle,
  hooks: BridgeRepositoryHooks,
  id: string,
  mint: { txHash: string | null; mintedBaseUnits: bigint; tokenAddress: string },
  at: Date,
): Promise<boolean> {
  if (mint.mintedBaseUnits <= 0n) throw new RangeError('a mint adds a positive amount');
  return handle.db.transaction().execute(async (trx) => {
    const done = await trx
      .updateTable('bridge_transfers')
      .set({
        step: 'done',
        mint_tx_hash: mint.txHash?.toLowerCase() ?? null,
        minted_base_units: mint.mintedBaseUnits.toString(),
        ...STEP_FRESH,
        updated_at: at.toISOString(),
        completed_at: at.toISOString(),
      })
      .where('id', '=', id)
      .where('step', '=', 'mint')
      .returning(['payment_id', 'home_chain_id', 'amount_base_units', 'max_fee_base_units'])
      .executeTakeFirst();
    if (!done) return false;
    // What CCTP kept is received but never paid out: counted as settled, in the row itself (decision 0034); the
    // bound held back since the burn is released.
    const fee = BigInt(done.amount_base_units) - mint.mintedBaseUnits;
    if (fee < 0n) throw new Error(`bridge transfer ${id} minted more than it burnt`);
    const bound = done.max_fee_base_units;
    if (fee > 0n || BigInt(bound) > 0n) {
      const feeParam = fee.toString();
      await trx
        .updateTable('payments')
        .set({
          bridge_fee_base_units: sql<string>`cast(cast(bridge_fee_base_units as bigint) + cast(${feeParam} as bigint) as text)`,
          settled_base_units: sql<string>`cast(cast(settled_base_units as bigint) + cast(${feeParam} as bigint) as text)`,
          bridge_fee_bound_base_units: sql<string>`cast(cast(bridge_fee_bound_base_units as bigint) - cast(${bound} as bigint) as text)`,
        })
        .where('id', '=', done.payment_id)
        .execute();
    }
    const token = mint.tokenAddress.toLowerCase();
    const home = await depositBalanceOf(trx, {
      ownerId: done.payment_id,
      chainId: done.home_chain_id,
      tokenAddress: token,
    });
    const bridged = (BigInt(home?.bridged_base_units ?? '0') + mint.mintedBaseUnits).toString();
    await trx
      .insertInto('deposit_balances')
      .values({
        owner_id: done.payment_id,
        owner_kind: 'payment',
        chain_id: done.home_chain_id,
        token_address: token,
        accepted: 1,
        bridged_base_units: bridged,
      })
      .onConflict((oc) =>
        oc.columns(['owner_id', 'chain_id', 'token_address']).doUpdateSet({ bridged_base_units: bridged }),
      )
      .execute();
    // The hold-up the bridge reported is over; the flush that follows reports how the payout goes.
    await trx
      .updateTable('payments')
      .set({
        payout_blocked_since: null,
        payout_blocked_reason: null,
        payout_delay_notified_at: null,
        updated_at: at.toISOString(),
      })
      .where('id', '=', done.payment_id)
      .where('payout_blocked_reason', 'like', `${BRIDGE_HOLD_PREFIX}%`)
      .execute();
    await hooks.afterMint?.(ledgerTransaction(trx, handle.dialect, hooks.reactions), done.payment_id, at);
    return true;
  });
}
