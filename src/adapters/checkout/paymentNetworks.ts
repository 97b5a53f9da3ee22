import type { Deposit } from '../../domain/payment.ts';
import type { CheckoutNetwork } from '../web/network.ts';

/*
 * The networks a payment can be paid on (decision 0033). Pure: the same configuration and deposit always offer
 * the same networks in the same order, so the page, its status and its QR codes agree.
 */

/** One enabled chain of a mode, as the checkout needs to know it: where the config helper's ChainSettings maps to. */
export interface NetworkCandidate {
  readonly chainId: number;
  /** Shown to the customer: "Polygon", "Base". */
  readonly name: string;
  /** `home`: where deposit rows live and flushes happen; `source`: its USDC is burnt to home through CCTP. */
  readonly role: 'home' | 'source';
  /** This chain's USDC, checksummed: the token the customer sends there. */
  readonly usdcAddress: string;
  /** A PUBLIC RPC a wallet may add (never a provider URL with a key); undefined when there is none. */
  readonly publicRpcUrl: string | undefined;
  /** Block explorer base URL; empty without one. */
  readonly explorerUrl: string;
  readonly nativeCurrencySymbol: string | undefined;
  /** Whether a gasless (EIP-3009) payment is taken on this chain. */
  readonly gasless: boolean;
  /**
   * A source chain's CCTP transfer to home: its speed and the most a fast one may keep (basis points of what is
   * burnt; 0 for standard), as the quote states them (decision 0034). Absent on the home chain.
   */
  readonly cctp?: NetworkCctp | undefined;
}

/** How money paid on a source chain reaches home, as the create response's quote states it. */
export interface NetworkCctp {
  readonly speed: 'fast' | 'standard';
  readonly maxFeeBps: number;
}

/** One mode's chains (home first, then its sources, as `Config.chains` lists them) and its V3 factory. */
export interface ModeNetworks {
  readonly chains: readonly NetworkCandidate[];
  /**
   * The factory whose deposit addresses exist on every chain of the mode (decision 0028); undefined where the
   * mode has none, so that every payment of it is paid on its home chain alone.
   */
  readonly v3FactoryAddress: string | undefined;
}

/** A network a payment is offered on. */
export interface PaymentNetwork extends CheckoutNetwork {
  readonly role: 'home' | 'source';
  readonly usdcAddress: string;
  readonly gasless: boolean;
  readonly cctp?: NetworkCctp | undefined;
}

/**
 * Home first, then each source chain of the mode in its configured order, but sources only where the deposit's
 * factory is the mode's V3 factory: an older payment's forwarder can only be deployed (and so flushed) on its
 * home chain, and USDC sent to its address anywhere else could never be moved. A payment whose chain no mode
 * lists is still shown on its own chain, under a name that says only its id.
 */
export function paymentNetworks(
  deposit: Pick<Deposit, 'chainId' | 'tokenAddress' | 'factoryAddress'>,
  mode: ModeNetworks | undefined,
): PaymentNetwork[] {
  const chains = mode?.chains ?? [];
  const home = chains.find((chain) => chain.role === 'home' && chain.chainId === deposit.chainId);
  // The home chain's token is the payment's own: its deposit row says which USDC it asked for.
  const first: PaymentNetwork = home
    ? { ...networkOf(home), usdcAddress: deposit.tokenAddress }
    : {
        name: `Chain ${deposit.chainId}`,
        chainId: deposit.chainId,
        explorerUrl: '',
        role: 'home',
        usdcAddress: deposit.tokenAddress,
        gasless: false,
      };
  const v3 = mode?.v3FactoryAddress;
  if (!home || !v3 || v3.toLowerCase() !== deposit.factoryAddress.toLowerCase()) return [first];
  const offered = [first];
  for (const chain of chains) {
    if (chain.role !== 'source' || offered.some((n) => n.chainId === chain.chainId)) continue;
    offered.push(networkOf(chain));
  }
  return offered;
}

/** The mode whose home chain is `chainId`: a payment's deposit row names its home chain. */
export function modeOfHomeChain(modes: readonly ModeNetworks[], chainId: number): ModeNetworks | undefined {
  return modes.find((mode) => mode.chains.some((c) => c.role === 'home' && c.chainId === chainId));
}

function networkOf(chain: NetworkCandidate): PaymentNetwork {
  return {
    name: chain.name,
    chainId: chain.chainId,
    explorerUrl: chain.explorerUrl,
    ...(chain.publicRpcUrl ? { publicRpcUrl: chain.publicRpcUrl } : {}),
    ...(chain.nativeCurrencySymbol ? { nativeCurrencySymbol: chain.nativeCurrencySymbol } : {}),
    role: chain.role,
    usdcAddress: chain.usdcAddress,
    gasless: chain.gasless,
    ...(chain.cctp ? { cctp: chain.cctp } : {}),
  };
}
