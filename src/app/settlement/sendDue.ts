import type { PayoutFailureCause } from '../../domain/payout.ts';
import { newRelayerTransactionId, newSettlementId } from './ids.ts';
import type { SettleOptions, SettlePaymentsDeps } from './options.ts';
import type { RelayerTransactionRecord, SettlementCandidate } from './ports.ts';
import { flushCall, flushItemOf, probeBatch } from './probeBatch.ts';
import { recordPayoutFailures } from './recordPayoutFailures.ts';
import { readRelayerBalance } from './relayerBalance.ts';

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
  /** Every candidate of the batch would move nothing (each waits its back-off, its reason recorded). */
  | { readonly kind: 'stuck'; readonly paymentIds: readonly string[] }
  /** Another settler opened a settlement first. */
  | { readonly kind: 'busy' };

const DEFAULT_SETTLE_BATCH = 50;
/** Mirrors the factories' MAX_BATCH (the adapter refuses longer batches too). */
const MAX_SETTLE_BATCH = 100;
/** A late deposit between estimate and mining may cost a little more gas; unused gas is not paid for. */
const GAS_HEADROOM_PERCENT = 120n;

/**
 * Flushes the payments due in one transaction: one factory and one token per batch (others wait for a later
 * pass), members that would move nothing set aside with their reason, the rest signed, persisted, then broadcast.
 */
export async function sendDue(deps: SettlePaymentsDeps, options: SettleOptions): Promise<SendOutcome> {
  const limit = options.maxBatch ?? DEFAULT_SETTLE_BATCH;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SETTLE_BATCH)
    throw new RangeError(`maxBatch must be 1..${MAX_SETTLE_BATCH}`);
  const due = await deps.settlements.candidates(options.chainId, {
    dustThresholdBaseUnits: options.payoutPolicy.dustThresholdBaseUnits,
    now: deps.clock.now(),
    limit,
  });
  const first = due[0];
  if (!first) return { kind: 'idle' };
  const { version, movable, stuck } = await movableOf(deps, first, due);
  if (movable.length === 0) return { kind: 'stuck', paymentIds: stuck.map((s) => s.candidate.paymentId) };

  const call = flushCall(version, movable);
  const estimate = await deps.relayer.estimateFlush(call);
  if (!estimate.ok) {
    // The simulation passed a moment ago: the chain moved in between. Each waits its back-off.
    await recordPayoutFailures(
      deps,
      movable.map((c) => ({
        paymentId: c.paymentId,
        cause: { merchant: estimate.reason, commission: estimate.reason },
      })),
    );
    deps.logger.warn({ reason: estimate.reason }, 'flush batch no longer passes its estimate');
    return { kind: 'stuck', paymentIds: movable.map((c) => c.paymentId) };
  }

  const fees = await deps.relayer.currentFees();
  const gas = (estimate.gas * GAS_HEADROOM_PERCENT + 99n) / 100n;
  const outOfGas = await checkGas(deps, options, gas * fees.maxFeePerGas, movable.length);
  if (outOfGas) return outOfGas;
  return signAndSend(deps, options, { call, version, gas, fees, movable });
}

type ForwarderVersion = Awaited<ReturnType<SettlePaymentsDeps['relayer']['forwarderVersion']>>;
type Fees = Awaited<ReturnType<SettlePaymentsDeps['relayer']['currentFees']>>;

interface SetAside {
  readonly candidate: SettlementCandidate;
  readonly cause: PayoutFailureCause;
}

/**
 * The batch of the first candidate's factory and token, less the members that would move nothing now: those
 * are recorded as failures (their back-off and reason start here) and logged.
 */
async function movableOf(
  deps: SettlePaymentsDeps,
  first: SettlementCandidate,
  due: readonly SettlementCandidate[],
): Promise<{ version: ForwarderVersion; movable: SettlementCandidate[]; stuck: SetAside[] }> {
  const { relayer, logger } = deps;
  let batch = due.filter(
    (c) =>
      sameAddress(c.factoryAddress, first.factoryAddress) && sameAddress(c.tokenAddress, first.tokenAddress),
  );

  const version = await relayer.forwarderVersion(first.factoryAddress);
  // The stored params must reproduce the stored address, or the flush would deploy some other, empty forwarder.
  const mismatched = batch.filter((c) => {
    const predicted = relayer.depositAddressOf(c.factoryAddress, flushItemOf(c), version);
    return predicted === undefined || !sameAddress(predicted, c.depositAddress);
  });
  const setAside = (candidates: readonly SettlementCandidate[], cause: PayoutFailureCause) =>
    candidates.map((candidate) => ({ candidate, cause }));
  const stuck: SetAside[] = setAside(mismatched, {
    merchant: 'the stored forwarder params do not yield the deposit address (an operator must look)',
  });
  batch = batch.filter((c) => !mismatched.includes(c));

  const probed = batch.length > 0 ? await probeBatch(relayer, version, batch) : { movable: [], stuck: [] };
  stuck.push(...probed.stuck);
  // A share a flush would hold back counts as a failure of that share now: its back-off and reason start here.
  const held = probed.movable.flatMap((m) => (m.held ? [{ candidate: m.candidate, cause: m.held }] : []));
  await recordPayoutFailures(
    deps,
    [...stuck, ...held].map((s) => ({ paymentId: s.candidate.paymentId, cause: s.cause })),
  );
  for (const { candidate, cause } of stuck) {
    logger.warn(
      {
        paymentId: candidate.paymentId,
        depositAddress: candidate.depositAddress,
        reason: cause.merchant ?? cause.commission,
        failures: candidate.payout.failures + 1,
      },
      'payout cannot be sent now; retried after its back-off',
    );
  }
  for (const { candidate, cause } of held) {
    logger.warn(
      {
        paymentId: candidate.paymentId,
        merchantReason: cause.merchant,
        commissionReason: cause.commission,
      },
      'one share of a payout is held in its forwarder; the other is sent now',
    );
  }
  return { version, movable: probed.movable.map((m) => m.candidate), stuck };
}

/** Records the relayer's balance; out of gas for `neededWei`, the outcome that says so (nothing is sent). */
async function checkGas(
  deps: SettlePaymentsDeps,
  options: SettleOptions,
  neededWei: bigint,
  paymentsWaiting: number,
): Promise<SendOutcome | undefined> {
  const { relayer, logger } = deps;
  const balance = await readRelayerBalance(deps, options);
  if (balance < neededWei) {
    logger.error(
      {
        relayer: relayer.address,
        balanceWei: balance.toString(),
        neededWei: neededWei.toString(),
        paymentsWaiting,
      },
      'relayer out of gas: nothing sent; top up the relayer address',
    );
    return { kind: 'out-of-gas', balanceWei: balance, neededWei };
  }
  if (balance < options.relayerLowBalanceWei) {
    logger.warn(
      {
        relayer: relayer.address,
        balanceWei: balance.toString(),
        lowBalanceWei: options.relayerLowBalanceWei.toString(),
      },
      'relayer gas balance low; top up the relayer address',
    );
  }
  return undefined;
}

/** Signs the flush, persists it with its settlement before anything leaves, then broadcasts it. */
async function signAndSend(
  deps: SettlePaymentsDeps,
  options: SettleOptions,
  flush: {
    readonly call: ReturnType<typeof flushCall>;
    readonly version: ForwarderVersion;
    readonly gas: bigint;
    readonly fees: Fees;
    readonly movable: readonly SettlementCandidate[];
  },
): Promise<SendOutcome> {
  const { relayer, logger, settlements } = deps;
  const { call, version, gas, fees, movable } = flush;
  // The chain's count, or past every nonce we used already (a lagging fallback RPC must not make us reuse one).
  const highest = await settlements.highestNonce(options.chainId);
  const chainNonce = await relayer.nonce();
  const nonce = highest !== undefined && highest + 1n > chainNonce ? highest + 1n : chainNonce;

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
    movable.map((c) => ({
      paymentId: c.paymentId,
      depositAddress: c.depositAddress,
      expectedBaseUnits: c.unsettledBaseUnits,
    })),
    tx,
  );
  if (!created) {
    logger.warn('another settler opened a settlement first; nothing sent');
    return { kind: 'busy' };
  }
  const paymentIds = movable.map((c) => c.paymentId);
  const context = { settlementId, nonce: nonce.toString(), txHash: signed.txHash };
  logger.info(
    {
      ...context,
      payments: paymentIds.length,
      forwarderVersion: version,
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

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
