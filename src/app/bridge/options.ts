import type { Logger } from 'pino';
import type { Relayer, SettlementStore } from '../settlement/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { Attestations, BridgeStore, HomeMints, SourceBurns, TransferSpeed } from './ports.ts';

/** What every bridge step needs: its records, the relayer of the chain it writes to, time and a log. */
export interface BridgeStepDeps {
  readonly bridge: BridgeStore;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** A source chain's bridge job: its relayer burns, and it asks the attestation API about its burns. */
export interface SourceBridgeDeps extends BridgeStepDeps {
  readonly source: SourceBurns;
  readonly relayer: Relayer;
  readonly attestations: Attestations;
  /** Where the relayer's balance is recorded, as the home settler records its own (low-balance alert). */
  readonly relayerBalances: Pick<SettlementStore, 'recordRelayerBalance'>;
}

/** The home chain's mint step: run by the home settler's job, with the home relayer (its one nonce writer). */
export interface HomeBridgeDeps extends BridgeStepDeps {
  readonly home: HomeMints;
  readonly relayer: Relayer;
}

export interface SourceBridgeOptions {
  readonly homeChainId: number;
  /** The source chain's USDC: the one token burnt (the watcher credits no other there). */
  readonly tokenAddress: string;
  readonly speed: TransferSpeed;
  /** The operator's cap on a fast burn's fee, in basis points (the factory's route caps it again on chain). */
  readonly maxFeeBps: number;
  /**
   * At fast speed, blocks on top of a transfer's block before it is burnt (decision 0037): long before it is
   * final there. Unused at standard speed, which burns final transfers only.
   */
  readonly fastConfirmations: number;
  /** Balances below it wait for more before being burnt (the gas of a burn is paid per burn). */
  readonly dustThresholdBaseUnits: bigint;
  /** Below this the relayer's gas balance is reported as low (RelayerBalanceReading). */
  readonly relayerLowBalanceWei: bigint;
  /** First wait between attestation polls while Circle has not signed; doubled up to a minute. */
  readonly attestationPollMs: number;
  /** How long an attestation normally takes at this speed: waiting longer is a stall, reported. */
  readonly attestationExpectedMs: number;
}

export interface HomeBridgeOptions {
  readonly homeChainId: number;
}
