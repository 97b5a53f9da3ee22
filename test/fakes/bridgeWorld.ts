import type { HomeBridgeDeps, SourceBridgeDeps, SourceBridgeOptions } from '../../src/app/bridge/options.ts';
import type { RelayerBalanceReading } from '../../src/app/settlement/ports.ts';
import { FakeAttestations, FakeHomeMints, FakeSourceBurns, FORWARDER } from './fakeBridgeChains.ts';
import { FakeRelayer } from './fakeRelayer.ts';
import { MemoryBridge } from './memoryBridge.ts';
import { recordingLogger } from './recordingLogger.ts';

export const NOW = new Date('2026-12-01T12:00:00.000Z');

/** A source chain's bridge options: standard speed, a 10 bp cap, a dust threshold of 1 USDC, 2 s polls. */
export const SOURCE_OPTIONS: SourceBridgeOptions = {
  homeChainId: 137,
  tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  speed: 'standard',
  maxFeeBps: 10,
  fastConfirmations: 3,
  dustThresholdBaseUnits: 1_000_000n,
  relayerLowBalanceWei: 10n ** 16n,
  attestationPollMs: 2_000,
  attestationExpectedMs: 1_200_000,
};

/**
 * One bridge's world in memory for the steps' unit tests: its records (MemoryBridge, with the payment's forwarder
 * known), a source chain, a home chain, Circle's API, a relayer per chain, a clock a test moves and a logger that
 * keeps its lines; `source` and `home` are the deps of the source chain's job and of the home mint step.
 */
export function bridgeWorld() {
  const bridge = new MemoryBridge();
  bridge.forwarders.set(FORWARDER.paymentId, FORWARDER);
  const sourceChain = new FakeSourceBurns();
  const homeChain = new FakeHomeMints();
  const attestations = new FakeAttestations();
  const sourceRelayer = new FakeRelayer();
  const homeRelayer = new FakeRelayer();
  const logger = recordingLogger();
  const readings: RelayerBalanceReading[] = [];
  const time = { now: NOW };
  const clock = { now: () => time.now };
  const source: SourceBridgeDeps = {
    bridge,
    clock,
    logger,
    source: sourceChain,
    relayer: sourceRelayer,
    attestations,
    relayerBalances: { recordRelayerBalance: async (reading) => void readings.push(reading) },
  };
  const home: HomeBridgeDeps = { bridge, clock, logger, home: homeChain, relayer: homeRelayer };
  return {
    time,
    bridge,
    sourceChain,
    homeChain,
    attestations,
    sourceRelayer,
    homeRelayer,
    logger,
    readings,
    source,
    home,
  };
}
