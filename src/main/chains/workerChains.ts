import type { Address, Hex } from 'viem';
import type { ChainTarget, ChainToken } from '../../adapters/chain/depositPlanner.ts';
import type { BridgeStore } from '../../app/bridge/ports.ts';
import type { WatchChainOptions } from '../../app/chain/watchChain.ts';
import { attestationUrlOf, type ChainSettings, type Config } from '../../config/index.ts';
import type { SourceBridgeChain } from './bridgeJobs.ts';
import type { HomeCctpRoute, HomeChain, SourceChain } from './model.ts';

/** The bridge's jobs of the worker (decision 0029): its records, how attestations are asked for, each source chain's. */
export interface WorkerBridge {
  readonly store: BridgeStore;
  readonly attestation: { readonly pollIntervalMs: number; readonly timeoutMs: number };
  readonly sources: readonly SourceBridgeChain[];
}

/**
 * One chain as the worker runs it, one per chain id: a home chain, or a source chain with `homeChainId`. Its
 * watcher, settler and gasless relayer are built from it (main/worker.ts).
 */
export interface WorkerChain {
  /** How it is read and settled: finality, poll interval, block range, dust threshold, the relayer's caps. */
  readonly settings: ChainSettings;
  readonly target: ChainTarget;
  readonly rpcUrls: readonly string[];
  /** Without one the deposit addresses are not flushed (anyone may flush them; nothing is lost). */
  readonly relayerKey?: Hex | undefined;
  /** Where gasless payment is offered: the key that submits customers' signed authorizations. */
  readonly gaslessRelayerKey?: Hex | undefined;
  /**
   * For a source chain (decision 0030): the home chain whose payments its transfers pay, and that home chain's
   * version 3 factory, whose deposit addresses alone exist on it. Unset: a home chain, watching for its own.
   */
  readonly homeChainId?: number | undefined;
  readonly homeFactory?: Address | undefined;
  /**
   * A home chain's CCTP route, where its source chains' burns mint: its settler mints them first, and its
   * watcher does not take our own settlement's mints into deposit addresses for payments.
   */
  readonly cctp?: HomeCctpRoute | undefined;
}

/**
 * How long Circle normally takes to attest a burn, before a wait is reported as a stall: a fast transfer is
 * signed within seconds of the burn; a standard one once the source chain is final, up to about 20 minutes when
 * that chain settles on Ethereum (Circle's documented block confirmations).
 */
const ATTESTATION_EXPECTED_MS = { fast: 2 * 60_000, standard: 30 * 60_000 } as const;
/** One request to the attestation API; a slower answer is "unavailable", asked again later. */
const ATTESTATION_TIMEOUT_MS = 10_000;

/**
 * What the worker runs per chain id: each home chain as resolved (its CCTP side named, so that our own mints are
 * not counted as payments and its settler mints first), then each of its source chains, watched for deposits to
 * the home chain's version 3 addresses (decision 0030). A source chain gets no flushing settler: its deposits are
 * burnt to the home chain by the bridge's job (workerBridgeOf), which holds that chain's relayer.
 */
export function workerChainsOf(chains: readonly HomeChain[]): WorkerChain[] {
  return chains.flatMap((home) => [
    home,
    ...home.sources.map(
      (source): WorkerChain => ({
        settings: source.settings,
        target: source.target,
        rpcUrls: source.rpcUrls,
        relayerKey: undefined,
        // Its own gasless relayer job (`gasless-relayer:<source chain id>`) sends what customers signed there.
        gaslessRelayerKey: source.gaslessRelayerKey,
        homeChainId: home.target.chainId,
        homeFactory: home.target.factoryAddress,
      }),
    ),
  ]);
}

/**
 * What the chain's watcher watches: its tokens, accepted (they pay) then noticed (reported when sent), how far
 * per request, and on a source chain the home chain whose payments its transfers pay (decision 0030); on a home
 * chain with source chains, its MessageTransmitter, whose mints of our own settlement are not payments.
 */
export function watchOptionsOf(chain: WorkerChain): WatchChainOptions {
  const of = (accepted: boolean) => (t: ChainToken) => ({
    address: t.address.toLowerCase(),
    symbol: t.symbol,
    decimals: t.decimals,
    accepted,
  });
  return {
    chainId: chain.target.chainId,
    tokens: [...chain.target.acceptedTokens.map(of(true)), ...chain.target.noticedTokens.map(of(false))],
    maxBlockRange: chain.settings.maxBlockRange,
    startBlock: chain.settings.startBlock,
    homeChainId: chain.homeChainId,
    homeFactory: chain.homeFactory,
    cctpMessageTransmitter: chain.cctp?.messageTransmitter,
  };
}

/**
 * The bridge's jobs (decision 0029): one per source chain that has a relayer key, burning to its home chain and
 * fetching attestations from its mode's service. Undefined when no chain burns.
 */
export function workerBridgeOf(
  config: Config,
  chains: readonly HomeChain[],
  store: BridgeStore,
): WorkerBridge | undefined {
  const { cctp } = config;
  if (!cctp) return undefined;
  const sources = chains.flatMap((home) =>
    home.sources.flatMap((source) => {
      const chain = sourceBridgeChain(home, source, attestationUrlOf(cctp, source.settings.mode));
      return chain ? [chain] : [];
    }),
  );
  if (sources.length === 0) return undefined;
  return {
    store,
    attestation: { pollIntervalMs: cctp.pollIntervalMs, timeoutMs: ATTESTATION_TIMEOUT_MS },
    sources,
  };
}

function sourceBridgeChain(
  home: HomeChain,
  source: SourceChain,
  attestationUrl: string,
): SourceBridgeChain | undefined {
  const { settings, cctp, relayerKey } = source;
  if (!relayerKey) return undefined;
  return {
    chainId: settings.chainId,
    homeChainId: home.target.chainId,
    attestationUrl,
    domain: cctp.domain,
    rpcUrls: source.rpcUrls,
    finality: settings.finality,
    pollIntervalMs: settings.pollIntervalMs,
    relayerKey,
    relayerLowBalanceWei: settings.relayerLowBalanceWei,
    usdc: source.target.tokenAddress,
    tokenMessenger: cctp.tokenMessenger,
    messageTransmitter: cctp.messageTransmitter,
    speed: cctp.transferSpeed,
    maxFeeBps: cctp.maxFeeBps,
    fastConfirmations: cctp.fastConfirmations,
    dustThresholdBaseUnits: settings.dustThresholdBaseUnits,
    attestationExpectedMs: ATTESTATION_EXPECTED_MS[cctp.transferSpeed],
  };
}
