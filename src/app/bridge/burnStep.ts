import { FINALITY_FAST, FINALITY_STANDARD } from '../../domain/cctp.ts';
import { burnFeeOffer, quotedMaxFee } from './burnFee.ts';
import { fastBurnPlan } from './fastBurnPlan.ts';
import { newBridgeTransferId } from './ids.ts';
import type { SourceBridgeDeps, SourceBridgeOptions } from './options.ts';
import type { BridgeTransfer, BurnCandidate, BurnOnChain, StepSetback } from './ports.ts';
import { failedStep, recordSetback, type SetbackOutcome } from './setbacks.ts';
import { sendStepTransaction, type TransactionOutcome } from './stepTransaction.ts';

/** What one pass of the burn step did on its source chain. */
export type BurnOutcome =
  | { readonly kind: 'idle' }
  /** Our burn is broadcast and not final yet (or the node refused it for now: broadcast again next pass). */
  | TransactionOutcome<'in-flight'>
  | TransactionOutcome<'sent'>
  /** Final: the message recorded, the source balance counted as moved on. */
  | TransactionOutcome<'burnt'>
  /** A burn of the forwarder's money found on chain, not in our records (a crash after broadcast, or anyone). */
  | TransactionOutcome<'found'>
  | SetbackOutcome;

/**
 * One bounded pass of the burn step on one source chain, one burn at a time (the relayer's nonces stay in
 * order): move the burn in flight on; else retry a transfer whose burn failed; else open one for the oldest
 * payment whose money there is final and unburnt. A forwarder holds money only for a burn to its own address
 * on the home chain, so a duplicate burn could never send money elsewhere; and before any new burn the chain
 * is asked whether the forwarder's money was burnt already, so that none is counted twice.
 */
export async function burnOnce(deps: SourceBridgeDeps, options: SourceBridgeOptions): Promise<BurnOutcome> {
  await recordRelayerBalance(deps, options);
  const chainId = deps.source.chainId;
  const inFlight = await deps.bridge.inFlight('burn', chainId);
  if (inFlight) return advanceBurn(deps, inFlight);
  const [retry] = await deps.bridge.due('burn', { sourceChainId: chainId }, deps.clock.now(), 1);
  if (retry) return sendBurn(deps, options, retry);
  const candidate =
    options.speed === 'fast'
      ? await fastBurnCandidate(deps, options)
      : (
          await deps.bridge.burnCandidates(chainId, {
            tokenAddress: options.tokenAddress,
            dustThresholdBaseUnits: options.dustThresholdBaseUnits,
            limit: 1,
          })
        )[0];
  if (!candidate) return { kind: 'idle' };
  return openBurn(deps, options, candidate);
}

/** Payments looked at per pass on a fast chain: some may not be due yet (paid in part, more to come). */
const FAST_CANDIDATES_PER_PASS = 50;

/**
 * On a fast chain (decision 0037), the oldest payment whose transfers there, at least `fastConfirmations` deep,
 * make it paid (or failed), and which no burn carries yet: burnt long before those transfers are final. Each
 * transfer it carries is checked still in the canonical chain: the watcher may not have seen a reorg yet.
 */
async function fastBurnCandidate(
  deps: SourceBridgeDeps,
  options: SourceBridgeOptions,
): Promise<BurnCandidate | undefined> {
  const head = await deps.source.latestBlockNumber();
  const deepestBlock = head - BigInt(options.fastConfirmations);
  if (deepestBlock < 0n) return undefined;
  const chain = { chainId: deps.source.chainId, tokenAddress: options.tokenAddress, deepestBlock };
  const found = await deps.bridge.fastBurnCandidates(chain.chainId, {
    tokenAddress: options.tokenAddress,
    deepestBlock,
    limit: FAST_CANDIDATES_PER_PASS,
  });
  for (const candidate of found) {
    const plan = fastBurnPlan(candidate, chain, deps.clock.now(), options.dustThresholdBaseUnits);
    if (!plan) continue;
    const carried = candidate.transfers.filter((t) => plan.carries?.includes(t.id));
    for (const transfer of carried) {
      const hash = await deps.source.blockHashAt(transfer.blockNumber);
      if (hash?.toLowerCase() !== transfer.blockHash.toLowerCase()) return undefined;
    }
    return plan;
  }
  return undefined;
}

async function recordRelayerBalance(deps: SourceBridgeDeps, options: SourceBridgeOptions): Promise<void> {
  await deps.relayerBalances.recordRelayerBalance({
    chainId: deps.source.chainId,
    address: deps.relayer.address,
    balanceWei: await deps.relayer.balance(),
    lowBalanceWei: options.relayerLowBalanceWei,
    observedAt: deps.clock.now(),
  });
}

/** Opens the transfer of a candidate's money: a burn already on chain if there is one, else ours to send. */
async function openBurn(
  deps: SourceBridgeDeps,
  options: SourceBridgeOptions,
  candidate: BurnCandidate,
): Promise<BurnOutcome> {
  const found = await unrecordedBurn(deps, candidate.paymentId, candidate.depositAddress, candidate);
  const now = deps.clock.now();
  const base = {
    id: newBridgeTransferId(),
    paymentId: candidate.paymentId,
    sourceChainId: deps.source.chainId,
    sourceDomain: deps.source.domain,
    homeChainId: options.homeChainId,
    tokenAddress: candidate.tokenAddress,
    depositAddress: candidate.depositAddress,
    step: 'burn' as const,
    ...NOTHING_YET,
    createdAt: now,
    updatedAt: now,
  };
  if (found) {
    const transfer: BridgeTransfer = {
      ...base,
      amountBaseUnits: found.amountBaseUnits,
      maxFeeBaseUnits: found.maxFeeBaseUnits,
      quotedMaxFeeBaseUnits: quotedMaxFee(options, found.amountBaseUnits),
      minFinalityThreshold: found.minFinalityThreshold,
      speed: found.minFinalityThreshold <= FINALITY_FAST ? 'fast' : 'standard',
      burnTxHash: found.txHash,
    };
    if (!(await deps.bridge.open(transfer, candidate.carries))) return { kind: 'idle' };
    deps.logger.warn(
      { transferId: transfer.id, paymentId: transfer.paymentId, txHash: found.txHash },
      'a burn of this forwarder was found on chain, not in our records: it is followed as ours',
    );
    return { kind: 'found', transferId: transfer.id, txHash: found.txHash };
  }
  const held = await deps.source.usdcBalance(candidate.depositAddress);
  if (held < candidate.unburntBaseUnits) {
    // Final transfers brought more than the forwarder holds, and no burn of ours or anyone's explains it.
    deps.logger.error(
      { paymentId: candidate.paymentId, held: held.toString(), owed: candidate.unburntBaseUnits.toString() },
      'the forwarder holds less than its final transfers brought and no burn explains it; not burnt',
    );
    return { kind: 'idle' };
  }
  const amount = candidate.unburntBaseUnits;
  const fast = options.speed === 'fast';
  const transfer: BridgeTransfer = {
    ...base,
    amountBaseUnits: amount,
    speed: options.speed,
    // Bound before each attempt at the burn (burnFee.ts), from what the chain asks then.
    maxFeeBaseUnits: 0n,
    quotedMaxFeeBaseUnits: quotedMaxFee(options, amount),
    minFinalityThreshold: fast ? FINALITY_FAST : FINALITY_STANDARD,
  };
  if (!(await deps.bridge.open(transfer, candidate.carries))) return { kind: 'idle' };
  return sendBurn(deps, options, transfer);
}

async function sendBurn(
  deps: SourceBridgeDeps,
  options: SourceBridgeOptions,
  unbound: BridgeTransfer,
): Promise<BurnOutcome> {
  const forwarder = await deps.bridge.forwarderOf(unbound.paymentId);
  if (!forwarder) throw new Error(`bridge transfer ${unbound.id} has no payment forwarder`);
  const found = await unrecordedBurn(deps, unbound.paymentId, unbound.depositAddress, undefined);
  if (found) {
    await deps.bridge.saveStepTransaction(unbound.id, 'burn', null, deps.clock.now());
    await deps.bridge.adoptBurn(unbound.id, found, deps.clock.now());
    return { kind: 'found', transferId: unbound.id, txHash: found.txHash };
  }
  // Never burnt blind: the fee is what the messenger asks now, or no burn is sent.
  const fee = await burnFeeOffer(deps, options, forwarder, unbound);
  if (fee.kind === 'held') return setback(deps, unbound, failedStep(unbound, fee.reason, deps.clock.now()));
  const transfer = { ...unbound, maxFeeBaseUnits: fee.maxFeeBaseUnits };
  if (fee.maxFeeBaseUnits !== unbound.maxFeeBaseUnits)
    await deps.bridge.rebindBurnFee(transfer.id, fee.maxFeeBaseUnits, deps.clock.now());
  const call = deps.source.burnCall(forwarder, {
    amountBaseUnits: transfer.amountBaseUnits,
    maxFeeBaseUnits: transfer.maxFeeBaseUnits,
    minFinalityThreshold: transfer.minFinalityThreshold,
  });
  const sent = await sendStepTransaction(deps, transfer, 'burn', call, deps.source.chainId);
  if (sent.kind === 'setback') return setback(deps, transfer, sent.setback);
  deps.logger.info(
    { transferId: transfer.id, paymentId: transfer.paymentId, txHash: sent.tx.txHash },
    'burn sent',
  );
  return { kind: 'sent', transferId: transfer.id, txHash: sent.tx.txHash };
}

/** The burn in flight: recorded once final, broadcast again while unmined, released if it failed. */
async function advanceBurn(deps: SourceBridgeDeps, transfer: BridgeTransfer): Promise<BurnOutcome> {
  const txHash = transfer.burnTxHash;
  if (txHash === null) throw new Error(`bridge transfer ${transfer.id} is in flight without a burn`);
  const receipt = await deps.source.burnReceipt(txHash, transfer.depositAddress);
  const now = deps.clock.now();
  if (receipt?.success) {
    // A fast burn is asked about once mined: Circle attests at its own soft finality and bears what a reorg
    // does after (decision 0037). A standard burn waits for its block to be final here.
    if (transfer.speed !== 'fast' && receipt.blockNumber > (await deps.source.finalizedBlockNumber()))
      return { kind: 'in-flight', transferId: transfer.id, txHash };
    await deps.bridge.recordBurn(
      transfer.id,
      { txHash, blockNumber: receipt.blockNumber, message: receipt.message },
      now,
    );
    deps.logger.info({ transferId: transfer.id, paymentId: transfer.paymentId, txHash }, 'burn final');
    return { kind: 'burnt', transferId: transfer.id, txHash };
  }
  const ours = transfer.burnTx;
  if (receipt === undefined && ours !== null && (await deps.relayer.nonce()) <= ours.nonce) {
    // Not mined, its nonce still free: the node may have lost it (a restart); it is the same transaction.
    const outcome = await deps.relayer.broadcast(ours.rawTx);
    if (!outcome.accepted)
      deps.logger.warn({ txHash, reason: outcome.reason }, 'burn not accepted by the node');
    return { kind: 'in-flight', transferId: transfer.id, txHash };
  }
  // Reverted, or its nonce went to another transaction, or (not ours) it left the chain: the money is
  // wherever the chain says. Another burn of the forwarder may have moved it; else it is sent again.
  await deps.bridge.saveStepTransaction(transfer.id, 'burn', null, now);
  const reason = receipt === undefined ? `burn ${txHash} is not on the chain` : `burn ${txHash} reverted`;
  return setback(deps, { ...transfer, burnTx: null, burnTxHash: null }, failedStep(transfer, reason, now));
}

function setback(deps: SourceBridgeDeps, transfer: BridgeTransfer, step: StepSetback): Promise<BurnOutcome> {
  return recordSetback(deps, 'burn', transfer, step);
}

/**
 * A burn of the forwarder on chain that no transfer of ours records: a burn broadcast before a crash kept it
 * from being recorded, or anyone's (burning is permissionless; it can only ever mint to the same address).
 */
async function unrecordedBurn(
  deps: SourceBridgeDeps,
  paymentId: string,
  depositAddress: string,
  candidate: BurnCandidate | undefined,
): Promise<BurnOnChain | undefined> {
  const fromBlock =
    candidate?.firstTransferBlock ?? (await deps.bridge.firstTransferBlock(paymentId, deps.source.chainId));
  if (fromBlock === undefined) return undefined;
  const recorded = new Set(
    (await deps.bridge.recordedBurns(paymentId, deps.source.chainId)).map((h) => h.toLowerCase()),
  );
  const burns = await deps.source.burnsBy(depositAddress, fromBlock);
  return burns.find((burn) => !recorded.has(burn.txHash.toLowerCase()));
}

const NOTHING_YET = {
  burnTx: null,
  burnTxHash: null,
  burnBlockNumber: null,
  message: null,
  attestedMessage: null,
  attestation: null,
  cctpNonce: null,
  feeExecutedBaseUnits: null,
  mintTx: null,
  mintTxHash: null,
  mintedBaseUnits: null,
  expiredAt: null,
  reattestRequestedAt: null,
  attempts: 0,
  nextAttemptAt: null,
  lastError: null,
  stalledSince: null,
  completedAt: null,
} as const;
