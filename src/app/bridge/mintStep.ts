import { type Expiry, expiryOf, sendBackForReattestation } from './expiry.ts';
import type { HomeBridgeDeps } from './options.ts';
import type { BridgeTransfer, StepSetback } from './ports.ts';
import { failedStep, recordSetback, type SetbackOutcome } from './setbacks.ts';
import { sendStepTransaction, type TransactionOutcome } from './stepTransaction.ts';

/** What one pass of the mint step did on the home chain. */
export type MintOutcome =
  | { readonly kind: 'idle' }
  /** Our mint is broadcast and not mined: the home relayer sends nothing else until it is. */
  | TransactionOutcome<'in-flight'>
  /** Mined, not final yet: its nonce is spent, the settler may send. */
  | TransactionOutcome<'awaiting-finality'>
  | { readonly kind: 'minted'; readonly transferId: string; readonly mintedBaseUnits: bigint }
  /** Its attested message expired before the mint: back to the attest step, to be re-attested. */
  | { readonly kind: 'expired'; readonly transferId: string; readonly expirationBlock: bigint }
  | SetbackOutcome;

/**
 * One pass of the mint step, run by the home settler's job before its flushes: the home relayer has one writer
 * of its nonces, and the mint and the settlements take turns (the caller gives the mint its turn after moving the
 * settlement in flight on, `highestSettlementNonce` past its nonce, and sends no settlement while a mint is
 * unmined). A message whose nonce the home transmitter
 * already marks used was minted (by us before a crash, or by anyone: the mint recipient is fixed by the burn),
 * so it is recorded, never minted twice. What was minted (burnt − the fee CCTP kept) is added to the payment's
 * home balance, which the settler then flushes to merchant and treasury as any payment's. A message that can
 * no longer be received (its fast attestation's expiration block reached: expiry.ts) is not sent, and one whose
 * mint reverted past it is not sent again: the transfer goes back to be re-attested (decision 0036).
 */
export async function mintOnce(
  deps: HomeBridgeDeps,
  options: { readonly highestSettlementNonce: bigint | undefined },
): Promise<MintOutcome> {
  const inFlight = await deps.bridge.inFlight('mint', deps.home.chainId);
  if (inFlight) return advanceMint(deps, inFlight);
  const [due] = await deps.bridge.due('mint', { homeChainId: deps.home.chainId }, deps.clock.now(), 1);
  if (!due) return { kind: 'idle' };
  const { attestedMessage, attestation, cctpNonce } = due;
  if (attestedMessage === null || attestation === null || cctpNonce === null)
    throw new Error(`bridge transfer ${due.id} waits for its mint without its attestation`);
  if (await deps.home.nonceUsed(cctpNonce)) return recordMint(deps, due, null);
  const expiry = await expiryOf(deps, due);
  if (expiry) return expired(deps, due, expiry);
  const call = deps.home.mintCall(attestedMessage, attestation);
  const sent = await sendStepTransaction(
    deps,
    due,
    'mint',
    call,
    deps.home.chainId,
    options.highestSettlementNonce,
  );
  if (sent.kind === 'setback') return setback(deps, due, sent.setback);
  deps.logger.info({ transferId: due.id, paymentId: due.paymentId, txHash: sent.tx.txHash }, 'mint sent');
  return { kind: 'in-flight', transferId: due.id, txHash: sent.tx.txHash };
}

async function advanceMint(deps: HomeBridgeDeps, transfer: BridgeTransfer): Promise<MintOutcome> {
  const txHash = transfer.mintTxHash;
  const ours = transfer.mintTx;
  if (txHash === null || ours === null)
    throw new Error(`bridge transfer ${transfer.id} has no mint in flight`);
  const receipt = await deps.home.mintReceipt(txHash);
  if (receipt?.success) {
    if (receipt.blockNumber > (await deps.home.finalizedBlockNumber()))
      return { kind: 'awaiting-finality', transferId: transfer.id, txHash };
    return recordMint(deps, transfer, txHash);
  }
  if (receipt === undefined && (await deps.relayer.nonce()) <= ours.nonce) {
    const outcome = await deps.relayer.broadcast(ours.rawTx);
    if (!outcome.accepted)
      deps.logger.warn({ txHash, reason: outcome.reason }, 'mint not accepted by the node');
    return { kind: 'in-flight', transferId: transfer.id, txHash };
  }
  // Reverted or its nonce spent elsewhere: minted by someone else first, or to be sent again.
  if (transfer.cctpNonce !== null && (await deps.home.nonceUsed(transfer.cctpNonce)))
    return recordMint(deps, transfer, null);
  // Reverted because its message expired (or would be refused now for it): re-attested, never sent again as is.
  const expiry = await expiryOf(deps, transfer);
  if (expiry) return expired(deps, transfer, expiry);
  const now = deps.clock.now();
  await deps.bridge.saveStepTransaction(transfer.id, 'mint', null, now);
  const reason = receipt === undefined ? `mint ${txHash} is not on the chain` : `mint ${txHash} reverted`;
  return setback(deps, transfer, failedStep(transfer, reason, now));
}

async function recordMint(
  deps: HomeBridgeDeps,
  transfer: BridgeTransfer,
  txHash: string | null,
): Promise<MintOutcome> {
  const fee = transfer.feeExecutedBaseUnits;
  if (fee === null) throw new Error(`bridge transfer ${transfer.id} has no attested fee`);
  const minted = transfer.amountBaseUnits - fee;
  if (minted <= 0n) throw new Error(`bridge transfer ${transfer.id} would mint nothing`);
  await deps.bridge.recordMint(
    transfer.id,
    { txHash, mintedBaseUnits: minted, tokenAddress: deps.home.usdcAddress },
    deps.clock.now(),
  );
  deps.logger.info(
    { transferId: transfer.id, paymentId: transfer.paymentId, txHash, minted: minted.toString() },
    'mint final: the payment is flushed on the home chain',
  );
  return { kind: 'minted', transferId: transfer.id, mintedBaseUnits: minted };
}

async function expired(deps: HomeBridgeDeps, transfer: BridgeTransfer, expiry: Expiry): Promise<MintOutcome> {
  await sendBackForReattestation(deps, transfer, expiry);
  return { kind: 'expired', transferId: transfer.id, expirationBlock: expiry.expirationBlock };
}

function setback(deps: HomeBridgeDeps, transfer: BridgeTransfer, step: StepSetback): Promise<MintOutcome> {
  return recordSetback(deps, 'mint', transfer, step);
}
