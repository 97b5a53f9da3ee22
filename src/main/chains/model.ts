import type { Address, Hex } from 'viem';
import type { ChainTarget } from '../../adapters/chain/depositPlanner.ts';
import type { ChainMode, ChainSettings, SourceChainSettings } from '../../config/index.ts';
import type { SandboxCrossChainContracts } from '../../sandbox/crossChain.ts';

/*
 * What a chain is here, once resolved (decision 0041). The configuration says what the environment gives of each
 * chain (ChainSettings, src/config/chains/); resolveChains.ts turns it, once at start, into these: every address
 * known (the sandbox's deployed), every key chosen, source chains hung under their home chain. Everything that
 * runs per chain (the worker's jobs: workerChains.ts, bridgeJobs.ts; the API's and the checkout's views:
 * chainViews.ts) reads them, and nothing reads the settings again to decide what a chain is.
 *
 * A home chain (Polygon, Amoy, the sandbox's first chain) holds its mode's deposit rows and is where payouts are
 * flushed; a source chain (Base, Ethereum, ..., the sandbox's second chain) is watched for transfers to the home
 * chain's version 3 deposit addresses and its USDC is burnt through CCTP to them on the home chain.
 */

/** One home chain, one per chain id: the live one first, then the test one where it is another chain. */
export interface HomeChain {
  /** Its settings: those of the first configured chain on its id (the live one where test mode shares it). */
  readonly settings: ChainSettings;
  /** Whose payments it takes: one mode, or both where the test chain is the live chain itself. */
  readonly modes: readonly ChainMode[];
  /** What its deposits are: chain id, tokens, factory (and its version), treasury. */
  readonly target: ChainTarget;
  readonly rpcUrls: readonly string[];
  /** The settler's key; without one its deposit addresses are not flushed (anyone may flush them). */
  readonly relayerKey: Hex | undefined;
  /** The gasless relayer's key where gasless payment is offered (decision 0012), else undefined. */
  readonly gaslessRelayerKey: Hex | undefined;
  /** Its CCTP route, where its source chains' burns mint; undefined when no source chain pays into it. */
  readonly cctp: HomeCctpRoute | undefined;
  /** The source chains whose deposits are this chain's payments (decision 0032), one per chain id. */
  readonly sources: readonly SourceChain[];
  /**
   * Pull renewal's charger (decision 0061) where it is not configured (PAYLINK_SUBSCRIPTION_CHARGER) but the
   * sandbox deployed it; the configured one wins.
   */
  readonly subscriptionCharger?: Address | undefined;
  /** The sandbox's second chain's contracts, when this is the sandbox's chain and it runs one. */
  readonly sandboxCrossChain?: SandboxCrossChainContracts | undefined;
  stop(): Promise<void>;
}

/** A home chain's CCTP route (decision 0029): its USDC, which CCTP mints, and the MessageTransmitterV2 that does. */
export interface HomeCctpRoute {
  readonly usdc: Address;
  readonly messageTransmitter: Address;
}

/** A chain whose USDC pays its home chain's payments (decision 0032), burnt through CCTP to it. */
export interface SourceChain {
  readonly settings: SourceChainSettings;
  /** Its USDC, and the home chain's version 3 factory and treasury (the same addresses on every chain). */
  readonly target: ChainTarget;
  readonly rpcUrls: readonly string[];
  /** The key that burns there, paying that chain's gas; without one nothing is burnt (anyone may burn). */
  readonly relayerKey: Hex | undefined;
  /**
   * The gasless relayer's key there (decision 0012): customers holding USDC and no gas on this chain sign, and
   * it submits. Without one the checkout offers this chain with gas only.
   */
  readonly gaslessRelayerKey: Hex | undefined;
  readonly cctp: SourceCctpRoute;
}

/** A source chain's CCTP route: where it burns (its domain, TokenMessengerV2, MessageTransmitterV2) and how. */
export interface SourceCctpRoute {
  readonly domain: number;
  readonly tokenMessenger: Address;
  readonly messageTransmitter: Address;
  readonly transferSpeed: 'fast' | 'standard';
  /** The most a fast burn may pay Circle, in basis points (the factory's route table holds it). */
  readonly maxFeeBps: number;
  /** At fast speed, blocks on top of a transfer before it is burnt (decision 0037). */
  readonly fastConfirmations: number;
}

/** The home chain whose payments are of `mode`, if any. */
export function homeChainOfMode<C extends Pick<HomeChain, 'modes'>>(
  chains: readonly C[],
  mode: ChainMode,
): C | undefined {
  return chains.find((chain) => chain.modes.includes(mode));
}

/** Every chain a payment can be paid on: each home chain, then its source chains (decision 0032). */
export function everyChain(homes: readonly HomeChain[]): (HomeChain | SourceChain)[] {
  return homes.flatMap((home) => [home, ...home.sources]);
}
