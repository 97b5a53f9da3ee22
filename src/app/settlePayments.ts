import type { Logger } from 'pino';
import { randomToken } from '../domain/credentials.ts';
import { runLoop } from './jobLoop.ts';
import type {
  ChainReader,
  Clock,
  FeesPerGas,
  FlushCall,
  Relayer,
  RelayerReceipt,
  RelayerTransactionRecord,
  SettlementCandidate,
  SettlementRecord,
  SettlementStore,
} from './ports.ts';

export interface SettlePaymentsDeps {
  readonly settlements: SettlementStore;
  readonly relayer: Relayer;
  /** Finality, as the watcher sees it: a settlement is applied once its transaction's block is final. */
  readonly chain: Pick<ChainReader, 'finalizedBlockNumber'>;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Told the relayer's gas balance whenever it is read (the relayer balance metric). */
  readonly observeRelayerBalance?: ((wei: bigint) => void) | undefined;
}

export interface SettleOptions {
  readonly chainId: number;
  /** Final funds below this wait for more (`ChainConfig.dustThresholdBaseUnits`). */
  readonly dustThresholdBaseUnits: bigint;
  /** Below this the relayer's gas balance is warned about on every send (`ChainConfig.relayerLowBalanceWei`). */
  readonly relayerLowBalanceWei: bigint;
  /** Payments per flush transaction; default 50, at most 100 (the factory's MAX_BATCH). */
  readonly maxBatch?: number;
  /** A broadcast transaction not mined after this long is replaced with higher fees; default 60 s. */
  readonly stuckAfterMs?: number;
}

/** What became of the settlement in flight at the start of the pass. */
export type InFlightOutcome =
  | { readonly kind: 'confirmed'; readonly settlementId: string; readonly txHash: string }
  | { readonly kind: 'reverted'; readonly settlementId: string; readonly txHash: string }
  | { readonly kind: 'dropped'; readonly settlementId: string }
  | { readonly kind: 'awaiting-finality'; readonly settlementId: string; readonly txHash: string }
  | { readonly kind: 'awaiting-receipt'; readonly settlementId: string; readonly txHash: string }
  | { readonly kind: 'broadcast'; readonly settlementId: string; readonly txHash: string }
  | {
      readonly kind: 'replaced';
      readonly settlementId: string;
      readonly txHash: string;
      readonly replacedTxHash: string;
    };

/** What the pass did about payments due, once nothing was in flight. */
export type SendOutcome =
  | { readonly kind: 'idle' }
  | {
      readonly kind: 'sent';
      readonly settlementId: string;
      readonly nonce: bigint;
      readonly txHash: string;
      readonly paymentIds: readonly string[];
      /** False when the node refused it for now: it stays signed and the next pass broadcasts it again. */
      readonly broadcast: boolean;
    }
  | { readonly kind: 'out-of-gas'; readonly balanceWei: bigint; readonly neededWei: bigint }
  /** Every candidate of the batch would revert; each was counted a failure. */
  | { readonly kind: 'rejected'; readonly paymentIds: readonly string[] }
  /** Another settler opened a settlement first. */
  | { readonly kind: 'busy' };

export interface SettleResult {
  readonly inFlight: InFlightOutcome | null;
  /** Null while a settlement is still in flight. */
  readonly send: SendOutcome | null;
}

/** A payment that failed this many flushes is left to an operator (reset `settlement_failures` to retry). */
export const MAX_SETTLEMENT_FAILURES = 5;
export const DEFAULT_SETTLE_BATCH = 50;
/** Mirrors `ForwarderFactory.MAX_BATCH` (the adapter refuses longer batches too). */
const MAX_SETTLE_BATCH = 100;
const DEFAULT_STUCK_AFTER_MS = 60_000;
/** Nodes accept a replacement only with both fees raised by at least 10% (geth) or 12.5% (some pools). */
const FEE_BUMP_PERCENT = 125n;
/** Bound on replacements of one settlement: 1.25^10 ≈ 9.3× the first fees, then an operator decides. */
const MAX_REPLACEMENTS = 10;
/** A late deposit between estimate and mining may cost a little more gas; unused gas is not paid for. */
const GAS_HEADROOM_PERCENT = 120n;

const RESOLVED: ReadonlySet<InFlightOutcome['kind']> = new Set(['confirmed', 'reverted', 'dropped']);

/**
 * One bounded pass of the settler. If a settlement is in flight (one at a time per chain, so a dropped
 * transaction never leaves a nonce gap), move it on: apply its receipt once final, broadcast it if a crash
 * left it unsent, replace it with higher fees if stuck. Otherwise flush the payments due in one transaction.
 *
 * Every transaction is persisted before it is broadcast and identified by its hash, and a settlement is
 * applied in the same database transaction that closes it (pending → confirmed, once): after a crash at any
 * point the next pass resumes the same transaction, and each flush is counted exactly once. A flush itself
 * can only ever move a deposit address's funds to the merchant and treasury it commits to, so a duplicate
 * broadcast could cost gas, never money.
 */
export async function settleOnce(deps: SettlePaymentsDeps, options: SettleOptions): Promise<SettleResult> {
  const pending = await deps.settlements.inFlight(options.chainId);
  let inFlight: InFlightOutcome | null = null;
  if (pending) {
    inFlight = await advanceInFlight(deps, options, pending);
    if (!RESOLVED.has(inFlight.kind)) return { inFlight, send: null };
  }
  return { inFlight, send: await sendDue(deps, options) };
}

export interface RunSettlerOptions extends SettleOptions {
  readonly intervalMs: number;
  readonly signal: AbortSignal;
  /** Upper bound of the wait after consecutive failed passes; default 60 s. */
  readonly maxBackoffMs?: number;
}

/**
 * Runs `settleOnce` every `intervalMs` until `signal` aborts. A failed pass (RPC or database down) is logged
 * and retried with exponential backoff; the loop never throws, and a pass is never cut short by the signal.
 */
export function runSettler(deps: SettlePaymentsDeps, options: RunSettlerOptions): Promise<void> {
  return runLoop(
    {
      name: 'settler',
      intervalMs: options.intervalMs,
      signal: options.signal,
      logger: deps.logger,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
    },
    async () => {
      await settleOnce(deps, options);
      return 'idle';
    },
  );
}

async function advanceInFlight(
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
    if (receipt) return applyMined(deps, settlement, tx, receipt);
  }

  if (chainNonce > settlement.nonce) {
    const reason = `nonce ${settlement.nonce} was used by a transaction that is not ours`;
    await deps.settlements.fail({
      settlementId: settlement.id,
      reason,
      minedTxId: null,
      countFailures: false,
      completedAt: deps.clock.now(),
    });
    logger.warn(
      { ...context, chainNonce: chainNonce.toString() },
      'settlement dropped; its payments are released',
    );
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
  return replaceStuck(deps, settlement, latest);
}

async function applyMined(
  deps: SettlePaymentsDeps,
  settlement: SettlementRecord,
  tx: RelayerTransactionRecord,
  receipt: RelayerReceipt,
): Promise<InFlightOutcome> {
  const { logger } = deps;
  const context = { settlementId: settlement.id, nonce: settlement.nonce.toString(), txHash: tx.txHash };
  // Like a transfer, a flush counts once final: a reorg could still drop it before.
  const finalized = await deps.chain.finalizedBlockNumber();
  if (receipt.blockNumber > finalized) {
    return { kind: 'awaiting-finality', settlementId: settlement.id, txHash: tx.txHash };
  }
  const now = deps.clock.now();

  if (!receipt.success) {
    await deps.settlements.fail({
      settlementId: settlement.id,
      reason: `transaction ${tx.txHash} reverted`,
      minedTxId: tx.id,
      countFailures: true,
      completedAt: now,
    });
    logger.error(
      { ...context, paymentIds: settlement.items.map((i) => i.paymentId) },
      'settlement transaction reverted; each of its payments will be retried alone',
    );
    return { kind: 'reverted', settlementId: settlement.id, txHash: tx.txHash };
  }

  // What moved is what the forwarders say they moved, matched on both the address and the payment id.
  const byAddress = new Map(settlement.items.map((item) => [item.depositAddress.toLowerCase(), item]));
  const flushed = new Map<string, bigint>();
  for (const event of receipt.flushed) {
    const item = byAddress.get(event.forwarderAddress.toLowerCase());
    if (!item || item.paymentId !== event.paymentId) continue;
    if (event.merchantBaseUnits < 0n || event.feeBaseUnits < 0n)
      throw new RangeError('negative flush amount');
    flushed.set(
      item.paymentId,
      (flushed.get(item.paymentId) ?? 0n) + event.merchantBaseUnits + event.feeBaseUnits,
    );
  }
  const applied = await deps.settlements.confirm({
    settlementId: settlement.id,
    minedTxId: tx.id,
    payoutTxHash: tx.txHash,
    flushedBaseUnits: flushed,
    completedAt: now,
  });
  if (!applied) {
    logger.warn(context, 'settlement was already closed by another settler');
    return { kind: 'confirmed', settlementId: settlement.id, txHash: tx.txHash };
  }
  const movedNothing = settlement.items
    .filter((item) => !flushed.has(item.paymentId))
    .map((i) => i.paymentId);
  if (movedNothing.length > 0) {
    logger.warn(
      { ...context, paymentIds: movedNothing },
      'flush moved nothing for these payments (flushed by someone else already?); counted as a failure',
    );
  }
  logger.info(
    {
      ...context,
      payments: flushed.size,
      settledBaseUnits: [...flushed.values()].reduce((a, b) => a + b, 0n).toString(),
    },
    'settlement confirmed',
  );
  return { kind: 'confirmed', settlementId: settlement.id, txHash: tx.txHash };
}

async function replaceStuck(
  deps: SettlePaymentsDeps,
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
  const balance = await relayer.balance();
  deps.observeRelayerBalance?.(balance);
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

async function sendDue(deps: SettlePaymentsDeps, options: SettleOptions): Promise<SendOutcome> {
  const { relayer, logger, settlements } = deps;
  const limit = options.maxBatch ?? DEFAULT_SETTLE_BATCH;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SETTLE_BATCH)
    throw new RangeError(`maxBatch must be 1..${MAX_SETTLE_BATCH}`);
  const due = await settlements.candidates(options.chainId, {
    dustThresholdBaseUnits: options.dustThresholdBaseUnits,
    maxFailures: MAX_SETTLEMENT_FAILURES,
    limit,
  });
  const first = due[0];
  if (!first) return { kind: 'idle' };

  // A payment that failed before goes alone, so that one bad merchant address cannot hold up the others.
  // One flushBatch targets one factory and one token: others wait for a later pass.
  let batch =
    first.settlementFailures > 0
      ? [first]
      : due.filter(
          (c) =>
            c.settlementFailures === 0 &&
            sameAddress(c.factoryAddress, first.factoryAddress) &&
            sameAddress(c.tokenAddress, first.tokenAddress),
        );

  // The stored params must reproduce the stored address, or the flush would deploy some other, empty forwarder.
  const mismatched = batch.filter((c) => {
    const predicted = relayer.depositAddressOf(c.factoryAddress, flushItem(c));
    return predicted === undefined || !sameAddress(predicted, c.depositAddress);
  });
  if (mismatched.length > 0) {
    const ids = mismatched.map((c) => c.paymentId);
    await settlements.recordFailures(ids, { atLeast: MAX_SETTLEMENT_FAILURES });
    logger.error(
      { chainId: options.chainId, paymentIds: ids },
      'stored forwarder params do not yield the deposit address; excluded from settlement',
    );
    batch = batch.filter((c) => !ids.includes(c.paymentId));
    if (batch.length === 0) return { kind: 'rejected', paymentIds: ids };
  }

  const estimate = await estimateIsolating(deps, batch);
  if (estimate.rejected.length > 0) {
    await settlements.recordFailures(
      estimate.rejected.map((r) => r.candidate.paymentId),
      { add: 1 },
    );
    for (const { candidate, reason } of estimate.rejected) {
      logger.error(
        {
          chainId: options.chainId,
          paymentId: candidate.paymentId,
          depositAddress: candidate.depositAddress,
          reason,
          failures: candidate.settlementFailures + 1,
        },
        'flush would revert; payment counted a failure and set aside',
      );
      if (candidate.settlementFailures + 1 >= MAX_SETTLEMENT_FAILURES) {
        logger.error(
          { chainId: options.chainId, paymentId: candidate.paymentId, failures: MAX_SETTLEMENT_FAILURES },
          'payment no longer settled automatically; fix the cause, then reset its settlement_failures to 0',
        );
      }
    }
  }
  if (estimate.gas === undefined || estimate.accepted.length === 0) {
    return { kind: 'rejected', paymentIds: estimate.rejected.map((r) => r.candidate.paymentId) };
  }
  batch = estimate.accepted;

  const fees = await relayer.currentFees();
  const gas = (estimate.gas * GAS_HEADROOM_PERCENT + 99n) / 100n;
  const needed = gas * fees.maxFeePerGas;
  const balance = await relayer.balance();
  deps.observeRelayerBalance?.(balance);
  if (balance < needed) {
    logger.error(
      {
        chainId: options.chainId,
        relayer: relayer.address,
        balanceWei: balance.toString(),
        neededWei: needed.toString(),
        paymentsWaiting: batch.length,
      },
      'relayer out of gas: nothing sent; top up the relayer address',
    );
    return { kind: 'out-of-gas', balanceWei: balance, neededWei: needed };
  }
  if (balance < options.relayerLowBalanceWei) {
    logger.warn(
      {
        chainId: options.chainId,
        relayer: relayer.address,
        balanceWei: balance.toString(),
        lowBalanceWei: options.relayerLowBalanceWei.toString(),
      },
      'relayer gas balance low; top up the relayer address',
    );
  }

  // The chain's count, or past every nonce we used already (a lagging fallback RPC must not make us reuse one).
  const highest = await settlements.highestNonce(options.chainId);
  const chainNonce = await relayer.nonce();
  const nonce = highest !== undefined && highest + 1n > chainNonce ? highest + 1n : chainNonce;

  const call = flushCall(batch);
  const signed = await relayer.signFlush(call, { nonce, gas, fees });
  const now = deps.clock.now();
  const settlementId = newSettlementId();
  const tx: RelayerTransactionRecord = {
    id: newRelayerTransactionId(),
    settlementId,
    chainId: options.chainId,
    fromAddress: relayer.address,
    nonce,
    txHash: signed.txHash,
    rawTx: signed.rawTx,
    gas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    status: 'signed',
    replacesId: null,
    createdAt: now,
    broadcastAt: null,
  };
  const created = await settlements.create(
    { id: settlementId, chainId: options.chainId, nonce, createdAt: now },
    batch.map((c) => ({
      paymentId: c.paymentId,
      depositAddress: c.depositAddress,
      expectedBaseUnits: c.unsettledBaseUnits,
    })),
    tx,
  );
  if (!created) {
    logger.warn({ chainId: options.chainId }, 'another settler opened a settlement first; nothing sent');
    return { kind: 'busy' };
  }
  const paymentIds = batch.map((c) => c.paymentId);
  const context = { settlementId, nonce: nonce.toString(), txHash: signed.txHash };
  logger.info(
    {
      ...context,
      payments: paymentIds.length,
      gas: gas.toString(),
      maxFeePerGas: fees.maxFeePerGas.toString(),
    },
    'settlement signed and persisted',
  );

  const outcome = await relayer.broadcast(signed.rawTx);
  if (!outcome.accepted) {
    logger.warn({ ...context, reason: outcome.reason }, 'settlement broadcast refused; retried next pass');
    return { kind: 'sent', settlementId, nonce, txHash: signed.txHash, paymentIds, broadcast: false };
  }
  await settlements.markBroadcast(tx.id, deps.clock.now());
  logger.info(context, 'settlement transaction broadcast');
  return { kind: 'sent', settlementId, nonce, txHash: signed.txHash, paymentIds, broadcast: true };
}

interface Rejected {
  readonly candidate: SettlementCandidate;
  readonly reason: string;
}

/**
 * Estimates the batch's gas; if the batch would revert, bisects it (estimates cost no gas) to find the
 * payments that revert on their own, and estimates the rest together. At most about 2 × batch estimates.
 */
async function estimateIsolating(
  deps: SettlePaymentsDeps,
  batch: readonly SettlementCandidate[],
): Promise<{ accepted: SettlementCandidate[]; rejected: Rejected[]; gas: bigint | undefined }> {
  const whole = await deps.relayer.estimateFlush(flushCall(batch));
  if (whole.ok) return { accepted: [...batch], rejected: [], gas: whole.gas };

  const rejected = await findRejected(deps.relayer, batch, whole.reason);
  const accepted = batch.filter((c) => !rejected.some((r) => r.candidate.paymentId === c.paymentId));
  if (accepted.length === 0) return { accepted, rejected, gas: undefined };
  const rest = await deps.relayer.estimateFlush(flushCall(accepted));
  if (rest.ok) return { accepted, rejected, gas: rest.gas };
  // Each part passed alone but not together: no culprit to blame, so each goes alone next time.
  await deps.settlements.recordFailures(
    accepted.map((c) => c.paymentId),
    { atLeast: 1 },
  );
  deps.logger.warn(
    { paymentIds: accepted.map((c) => c.paymentId), reason: rest.reason },
    'flush batch reverts as a whole; its payments will be flushed one by one',
  );
  return { accepted: [], rejected, gas: undefined };
}

/** The candidates of a batch known to revert that also revert alone. */
async function findRejected(
  relayer: Relayer,
  batch: readonly SettlementCandidate[],
  reason: string,
): Promise<Rejected[]> {
  if (batch.length === 1) return [{ candidate: batch[0]!, reason }];
  const middle = Math.ceil(batch.length / 2);
  const rejected: Rejected[] = [];
  for (const half of [batch.slice(0, middle), batch.slice(middle)]) {
    const estimate = await relayer.estimateFlush(flushCall(half));
    if (!estimate.ok) rejected.push(...(await findRejected(relayer, half, estimate.reason)));
  }
  return rejected;
}

function flushItem(c: SettlementCandidate) {
  return {
    paymentId: c.paymentId,
    merchantAddress: c.merchantAddress,
    treasuryAddress: c.treasuryAddress,
    commissionBps: c.commissionBps,
  };
}

function flushCall(batch: readonly SettlementCandidate[]): FlushCall {
  const first = batch[0];
  if (!first) throw new RangeError('empty flush batch');
  return {
    factoryAddress: first.factoryAddress,
    tokenAddress: first.tokenAddress,
    items: batch.map(flushItem),
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

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function newSettlementId(): string {
  return `stl_${randomToken(22)}`;
}

function newRelayerTransactionId(): string {
  return `rtx_${randomToken(22)}`;
}
