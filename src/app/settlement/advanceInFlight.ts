import { applyMined, applyNonceTaken } from './applyMined.ts';
import { newRelayerTransactionId } from './ids.ts';
import type { InFlightOutcome } from './inFlightOutcome.ts';
import type { SettleOptions, SettlePaymentsDeps } from './options.ts';
import type { FeesPerGas, RelayerTransactionRecord, SettlementRecord } from './ports.ts';
import { readRelayerBalance } from './relayerBalance.ts';

export const RESOLVED: ReadonlySet<InFlightOutcome['kind']> = new Set(['confirmed', 'reverted', 'dropped']);

const DEFAULT_STUCK_AFTER_MS = 60_000;
/** Nodes accept a replacement only with both fees raised by at least 10% (geth) or 12.5% (some pools). */
const FEE_BUMP_PERCENT = 125n;
/** Bound on replacements of one settlement: 1.25^10 ≈ 9.3× the first fees, then an operator decides. */
const MAX_REPLACEMENTS = 10;

/**
 * Moves the settlement in flight on: applies its receipt once final, releases it if its nonce went to another
 * transaction, broadcasts it if a crash left it unsent, replaces it with higher fees if stuck.
 */
export async function advanceInFlight(
  deps: SettlePaymentsDeps,
  options: SettleOptions,
  settlement: SettlementRecord,
): Promise<InFlightOutcome> {
  const { relayer, logger } = deps;
  const context = { settlementId: settlement.id, nonce: settlement.nonce.toString() };
  const latest = settlement.transactions.at(-1);
  if (!latest) throw new Error(`settlement ${settlement.id} has no transaction`);

  // The nonce first, then the receipts: a nonce already past ours with none of our receipts afterwards
  // really means another transaction took it.
  const chainNonce = await relayer.nonce();
  for (const tx of [...settlement.transactions].reverse()) {
    const receipt = await relayer.receipt(tx.txHash);
    if (receipt) return applyMined(deps, options, settlement, tx, receipt);
  }

  if (chainNonce > settlement.nonce) {
    await applyNonceTaken(deps, settlement, chainNonce);
    return { kind: 'dropped', settlementId: settlement.id };
  }

  if (latest.status === 'signed') {
    // Persisted, but the process may have stopped before (or while) broadcasting it: send the same bytes.
    const outcome = await relayer.broadcast(latest.rawTx);
    if (outcome.accepted) {
      await deps.settlements.markBroadcast(latest.id, deps.clock.now());
      logger.info({ ...context, txHash: latest.txHash }, 'settlement transaction broadcast (resumed)');
      return { kind: 'broadcast', settlementId: settlement.id, txHash: latest.txHash };
    }
    logger.warn(
      { ...context, txHash: latest.txHash, reason: outcome.reason },
      'settlement broadcast refused',
    );
  }

  const waitingMs = deps.clock.now().getTime() - (latest.broadcastAt ?? latest.createdAt).getTime();
  if (waitingMs < (options.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS)) {
    return { kind: 'awaiting-receipt', settlementId: settlement.id, txHash: latest.txHash };
  }
  return replaceStuck(deps, options, settlement, latest);
}

async function replaceStuck(
  deps: SettlePaymentsDeps,
  options: SettleOptions,
  settlement: SettlementRecord,
  latest: RelayerTransactionRecord,
): Promise<InFlightOutcome> {
  const { relayer, logger } = deps;
  const context = { settlementId: settlement.id, nonce: settlement.nonce.toString(), txHash: latest.txHash };
  const awaiting = { kind: 'awaiting-receipt', settlementId: settlement.id, txHash: latest.txHash } as const;
  if (settlement.transactions.length > MAX_REPLACEMENTS) {
    logger.error(context, 'settlement transaction stuck and fee bumps exhausted; an operator must look');
    return awaiting;
  }
  const fees = bumpedFees(latest, await relayer.currentFees());
  const balance = await readRelayerBalance(deps, options);
  const needed = latest.gas * fees.maxFeePerGas;
  if (balance < needed) {
    logger.error(
      { ...context, relayer: relayer.address, balanceWei: balance.toString(), neededWei: needed.toString() },
      'relayer out of gas: cannot replace a stuck settlement transaction',
    );
    return awaiting;
  }
  const signed = await relayer.signReplacement(latest.rawTx, fees);
  const now = deps.clock.now();
  const replacement: RelayerTransactionRecord = {
    ...latest,
    id: newRelayerTransactionId(),
    txHash: signed.txHash,
    rawTx: signed.rawTx,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    status: 'signed',
    replacesId: latest.id,
    createdAt: now,
    broadcastAt: null,
  };
  // Persisted before broadcast, like the original: after a crash the next pass finds and resumes it.
  await deps.settlements.addTransaction(replacement);
  logger.warn(
    {
      ...context,
      replacementTxHash: signed.txHash,
      maxFeePerGas: fees.maxFeePerGas.toString(),
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    },
    'settlement transaction stuck; replacing it with higher fees',
  );
  const outcome = await relayer.broadcast(signed.rawTx);
  if (outcome.accepted) await deps.settlements.markBroadcast(replacement.id, deps.clock.now());
  else
    logger.warn(
      { ...context, txHash: signed.txHash, reason: outcome.reason },
      'settlement broadcast refused',
    );
  return {
    kind: 'replaced',
    settlementId: settlement.id,
    txHash: signed.txHash,
    replacedTxHash: latest.txHash,
  };
}

/** Both fees up by 25% (nodes want ≥ 10–12.5%), and never below what the network asks for now. */
function bumpedFees(previous: FeesPerGas, current: FeesPerGas): FeesPerGas {
  const bump = (value: bigint) => (value * FEE_BUMP_PERCENT + 99n) / 100n;
  const maxPriorityFeePerGas = max(bump(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas);
  const maxFeePerGas = max(max(bump(previous.maxFeePerGas), current.maxFeePerGas), maxPriorityFeePerGas);
  return { maxFeePerGas, maxPriorityFeePerGas };
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
