import type { Logger } from 'pino';
import type { Address, Hex } from 'viem';
import { createAttestationClient } from '../../adapters/cctp/attestationClient.ts';
import { createAttestations } from '../../adapters/cctp/attestations.ts';
import { createHomeMints, createSourceBurns } from '../../adapters/cctp/burnsAndMints.ts';
import { chainReader, createRpcClient } from '../../adapters/chain/chainReader.ts';
import { createRelayer } from '../../adapters/chain/relayer.ts';
import type { HomeBridgeDeps } from '../../app/bridge/options.ts';
import type { BridgeStore, TransferSpeed } from '../../app/bridge/ports.ts';
import { runSourceBridge } from '../../app/bridge/runSourceBridge.ts';
import { runWhileHoldingLock } from '../../app/operations/lockedJob.ts';
import type { JobLocks } from '../../app/operations/ports.ts';
import type { Wakeup } from '../../app/operations/wakeup.ts';
import type { Relayer, SettlementStore } from '../../app/settlement/ports.ts';
import type { Clock } from '../../app/shared/ports.ts';
import type { Finality } from '../../config/index.ts';

/**
 * The bridge's jobs, built from explicit options (docs/decisions/0029-bridge-settlement.md): one job per source
 * chain (burns and attestations, with that chain's relayer), and the home chain's mint step for its settler.
 * Which chains are sources and with which CCTP addresses comes from the chains' configuration
 * (`ChainSettings.role`, `homeChainId`, `cctp`); mapping it to these options is the caller's.
 */

/** One source chain: where to read it, whose key burns there, and the operator's choice of speed. */
export interface SourceBridgeChain {
  readonly chainId: number;
  /** Where its burns mint: its mode's home chain. */
  readonly homeChainId: number;
  /** Circle's attestation API of its mode (or the local stand-in). */
  readonly attestationUrl: string;
  readonly domain: number;
  readonly rpcUrls: readonly string[];
  readonly finality: Finality;
  readonly pollIntervalMs: number;
  /** The source chain's settlement relayer (gas in that chain's native token). */
  readonly relayerKey: Hex;
  readonly relayerLowBalanceWei: bigint;
  readonly usdc: Address;
  readonly tokenMessenger: Address;
  readonly messageTransmitter: Address;
  readonly speed: TransferSpeed;
  readonly maxFeeBps: number;
  /** At fast speed, blocks on top of a transfer before it is burnt (decision 0037). */
  readonly fastConfirmations: number;
  readonly dustThresholdBaseUnits: bigint;
  /** How long an attestation normally takes at this speed; waiting longer is reported as a stall. */
  readonly attestationExpectedMs: number;
}

export interface BridgeWiring {
  readonly locks: JobLocks;
  readonly bridge: BridgeStore;
  readonly settlements: SettlementStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How often a pending attestation is asked about, and how long one request may take. */
  readonly attestation: { readonly pollIntervalMs: number; readonly timeoutMs: number };
}

/**
 * The source chain's job, a singleton named by its relayer (`relayer:<chainId>`, as a home settler's).
 * `mintsDue` wakes its home chain's settler in this process when an attestation is recorded.
 */
export function sourceBridgeJob(
  wiring: BridgeWiring,
  chain: SourceBridgeChain,
  signal: AbortSignal,
  mintsDue?: Wakeup,
): Promise<void> {
  const logger = wiring.logger.child({ chainId: chain.chainId });
  const client = createRpcClient(chain.rpcUrls);
  const every = { intervalMs: chain.pollIntervalMs, signal, logger };
  const deps = {
    bridge: wiring.bridge,
    clock: wiring.clock,
    logger,
    relayer: createRelayer({ client, chainId: chain.chainId, relayerKey: chain.relayerKey }),
    relayerBalances: wiring.settlements,
    source: createSourceBurns({
      client,
      chainId: chain.chainId,
      domain: chain.domain,
      usdc: chain.usdc,
      tokenMessenger: chain.tokenMessenger,
      messageTransmitter: chain.messageTransmitter,
      finality: chainReader(client, chain.finality),
    }),
    attestations: createAttestations({
      client: createAttestationClient({
        baseUrl: chain.attestationUrl,
        timeoutMs: wiring.attestation.timeoutMs,
      }),
      baseUrl: chain.attestationUrl,
      timeoutMs: wiring.attestation.timeoutMs,
    }),
  };
  return runWhileHoldingLock(wiring.locks, `relayer:${chain.chainId}`, every, (held) =>
    runSourceBridge(deps, {
      homeChainId: chain.homeChainId,
      tokenAddress: chain.usdc,
      speed: chain.speed,
      maxFeeBps: chain.maxFeeBps,
      fastConfirmations: chain.fastConfirmations,
      dustThresholdBaseUnits: chain.dustThresholdBaseUnits,
      relayerLowBalanceWei: chain.relayerLowBalanceWei,
      attestationPollMs: wiring.attestation.pollIntervalMs,
      attestationExpectedMs: chain.attestationExpectedMs,
      intervalMs: chain.pollIntervalMs,
      signal: held,
      onAttested: mintsDue ? () => mintsDue.wake() : undefined,
    }),
  );
}

/**
 * The mint step's dependencies for the home settler (`runSettlerWithMints`), with the settler's own relayer:
 * the home relayer's nonces keep a single writer.
 */
export function homeMintDeps(
  wiring: Pick<BridgeWiring, 'bridge' | 'clock'>,
  home: {
    readonly chainId: number;
    readonly rpcUrls: readonly string[];
    readonly finality: Finality;
    readonly usdc: Address;
    readonly messageTransmitter: Address;
  },
  relayer: Relayer,
  logger: Logger,
): HomeBridgeDeps {
  const client = createRpcClient(home.rpcUrls);
  return {
    bridge: wiring.bridge,
    clock: wiring.clock,
    logger,
    relayer,
    home: createHomeMints({
      client,
      chainId: home.chainId,
      usdc: home.usdc,
      messageTransmitter: home.messageTransmitter,
      finality: chainReader(client, home.finality),
    }),
  };
}
