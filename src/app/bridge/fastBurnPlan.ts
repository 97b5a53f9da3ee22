import { paymentTerms } from '../../domain/payment.ts';
import { countedTransfers, derivePaymentState } from '../../domain/paymentStatus.ts';
import type { TransferRecord } from '../chain/ports.ts';
import type { BurnCandidate, FastBurnCandidate } from './ports.ts';

/**
 * Whether a payment's money on a fast source chain is burnt now, and how much (decision 0037). Its transfers there
 * count as if final once `deepestBlock` or deeper: the burn goes once those would make the payment paid (or it
 * failed), as a standard burn goes once the payment is paid or failed. It burns what they brought less what
 * burns took out already, and names the transfers it carries (never carried again, whatever a reorg does).
 */
export function fastBurnPlan(
  candidate: FastBurnCandidate,
  chain: { readonly chainId: number; readonly tokenAddress: string; readonly deepestBlock: bigint },
  now: Date,
  dustThresholdBaseUnits: bigint,
): BurnCandidate | undefined {
  const token = chain.tokenAddress.toLowerCase();
  const deepHere = (t: TransferRecord) =>
    t.chainId === chain.chainId &&
    t.tokenAddress.toLowerCase() === token &&
    (t.final || t.blockNumber <= chain.deepestBlock);
  const counted = countedTransfers(candidate.transfers);
  const deep = counted.filter(deepHere);
  const brought = deep.reduce((sum, t) => sum + t.amountBaseUnits, 0n);
  const unburnt = brought - candidate.burntBaseUnits;
  if (unburnt <= 0n || unburnt < dustThresholdBaseUnits) return undefined;
  const asIfFinal = counted.map((t) => (deepHere(t) ? { ...t, final: true } : t));
  const state = derivePaymentState(paymentTerms(candidate.payment), asIfFinal, now);
  if (state.status !== 'paid' && state.status !== 'failed') return undefined;
  const carries = deep.filter((t) => t.carriedHome === undefined);
  if (carries.length === 0) return undefined;
  return {
    ...candidate.forwarder,
    sourceChainId: chain.chainId,
    tokenAddress: chain.tokenAddress,
    unburntBaseUnits: unburnt,
    // Counted transfers are in block-time order, which on one chain is block order: the first is the oldest.
    firstTransferBlock: deep[0]!.blockNumber,
    carries: carries.map((t) => t.id),
  };
}
