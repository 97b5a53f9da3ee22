import { formatDecimal } from '../../domain/decimal.ts';
import type { SettlementStore } from './ports.ts';

/** What the operator's listing needs to know of a configured chain (from the configuration's chain list). */
export interface RelayerChain {
  readonly chainId: number;
  readonly name: string;
  readonly role: 'home' | 'source';
  readonly nativeSymbol: string;
  readonly lowBalanceWei: bigint;
}

/** A chain's relayer as operators see it (`paylink settlements relayers`, the operator's dashboard). */
export interface RelayerView {
  readonly chain_id: number;
  /** The configured chain's name; null for a chain read once but no longer configured. */
  readonly chain_name: string | null;
  readonly role: 'home' | 'source' | null;
  readonly native_symbol: string | null;
  /** null until a settler (home) or a bridge job (source) has read it. */
  readonly address: string | null;
  /** Exact decimals in the chain's native token, from wei: money never passes through a JS number. */
  readonly balance: string | null;
  readonly low_balance: string;
  /** Below the threshold the reading was taken with; false while never read (nothing known to be low). */
  readonly low: boolean;
  readonly observed_at: string | null;
}

/** A native token's 18 decimals (ETH, POL, AVAX alike). */
const NATIVE_DECIMALS = 18;

export function formatNative(wei: bigint): string {
  return formatDecimal({ units: wei, scale: NATIVE_DECIMALS });
}

/**
 * Each configured chain's relayer with its last balance read, in the configuration's order (per mode its home
 * chain, then its source chains), then any chain read before but no longer configured, by chain id: a relayer
 * still holding gas on a removed chain is worth seeing.
 */
export async function listRelayers(
  deps: { readonly settlements: Pick<SettlementStore, 'relayerBalances'> },
  chains: readonly RelayerChain[],
): Promise<RelayerView[]> {
  const readings = new Map((await deps.settlements.relayerBalances()).map((r) => [r.chainId, r]));
  const configured = chains.map((chain): RelayerView => {
    const reading = readings.get(chain.chainId);
    // The reading's own threshold is what the settler warned with; the configured one until it has read.
    const lowBalanceWei = reading?.lowBalanceWei ?? chain.lowBalanceWei;
    return {
      chain_id: chain.chainId,
      chain_name: chain.name,
      role: chain.role,
      native_symbol: chain.nativeSymbol,
      address: reading?.address ?? null,
      balance: reading ? formatNative(reading.balanceWei) : null,
      low_balance: formatNative(lowBalanceWei),
      low: reading !== undefined && reading.balanceWei < lowBalanceWei,
      observed_at: reading?.observedAt.toISOString() ?? null,
    };
  });
  const known = new Set(chains.map((c) => c.chainId));
  const removed = [...readings.values()]
    .filter((r) => !known.has(r.chainId))
    .sort((a, b) => a.chainId - b.chainId)
    .map(
      (r): RelayerView => ({
        chain_id: r.chainId,
        chain_name: null,
        role: null,
        native_symbol: null,
        address: r.address,
        balance: formatNative(r.balanceWei),
        low_balance: formatNative(r.lowBalanceWei),
        low: r.balanceWei < r.lowBalanceWei,
        observed_at: r.observedAt.toISOString(),
      }),
    );
  return [...configured, ...removed];
}
