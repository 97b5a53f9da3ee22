import type { SettleOptions, SettlePaymentsDeps } from './options.ts';

/**
 * The relayer's balance now, recorded before the caller decides on it (a first send or a fee bump), so that
 * the metrics and the operator's console show the balance each decision was taken on.
 */
export async function readRelayerBalance(deps: SettlePaymentsDeps, options: SettleOptions): Promise<bigint> {
  const balance = await deps.relayer.balance();
  await deps.settlements.recordRelayerBalance({
    chainId: options.chainId,
    address: deps.relayer.address,
    balanceWei: balance,
    lowBalanceWei: options.relayerLowBalanceWei,
    observedAt: deps.clock.now(),
  });
  return balance;
}
