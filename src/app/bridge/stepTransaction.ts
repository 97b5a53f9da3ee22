import type { Relayer } from '../settlement/ports.ts';
import type { BridgeStepDeps } from './options.ts';
import type { BridgeTransfer, StepSetback, StepTransaction } from './ports.ts';
import { failedStep } from './setbacks.ts';

/** A late state change between estimate and mining may cost a little more gas; unused gas is not paid for. */
const GAS_HEADROOM_PERCENT = 120n;

/** A pass's outcome that names its transfer's transaction, at the point `Kind` says (in flight, sent, final …). */
export interface TransactionOutcome<Kind extends string> {
  readonly kind: Kind;
  readonly transferId: string;
  readonly txHash: string;
}

export type StepSend =
  | { readonly kind: 'sent'; readonly tx: StepTransaction; readonly broadcast: boolean }
  | { readonly kind: 'setback'; readonly setback: StepSetback };

/**
 * Signs a step's call, persists it, then broadcasts it, as the settler does: after a crash at any point the
 * next pass finds the very transaction (by its hash) and resumes it. The nonce is past both the chain's count
 * and every nonce this step used on the chain (a lagging RPC must not make us reuse one); `usedNonce` adds the
 * highest other writers of this relayer used (the home settler's settlements).
 */
export async function sendStepTransaction(
  deps: BridgeStepDeps & { readonly relayer: Relayer },
  transfer: BridgeTransfer,
  step: 'burn' | 'mint',
  call: { to: string; data: string },
  chainId: number,
  usedNonce?: bigint,
): Promise<StepSend> {
  const { relayer } = deps;
  const estimate = await relayer.estimateCall(call.to, call.data);
  const now = deps.clock.now();
  if (!estimate.ok) {
    return {
      kind: 'setback',
      setback: failedStep(transfer, `${step} would revert: ${estimate.reason}`, now),
    };
  }
  const gas = (estimate.gas * GAS_HEADROOM_PERCENT + 99n) / 100n;
  const fees = await relayer.currentFees();
  const balance = await relayer.balance();
  if (balance < gas * fees.maxFeePerGas) {
    const reason = `the relayer ${relayer.address} on chain ${chainId} lacks gas for the ${step}`;
    return { kind: 'setback', setback: failedStep(transfer, reason, now) };
  }
  const highest = [await deps.bridge.highestNonce(step, chainId), usedNonce].reduce<bigint | undefined>(
    (a, b) => (b === undefined || (a !== undefined && a >= b) ? a : b),
    undefined,
  );
  const chainNonce = await relayer.nonce();
  const nonce = highest !== undefined && highest + 1n > chainNonce ? highest + 1n : chainNonce;
  const signed = await relayer.signCall(call, { nonce, gas, fees });
  const tx: StepTransaction = { relayer: relayer.address, nonce, rawTx: signed.rawTx, txHash: signed.txHash };
  await deps.bridge.saveStepTransaction(transfer.id, step, tx, now);
  const outcome = await relayer.broadcast(signed.rawTx);
  if (!outcome.accepted) {
    deps.logger.warn(
      { transferId: transfer.id, step, txHash: tx.txHash, reason: outcome.reason },
      'bridge transaction refused by the node for now; broadcast again next pass',
    );
  }
  return { kind: 'sent', tx, broadcast: outcome.accepted };
}
