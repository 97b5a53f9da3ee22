import type { Payment } from '../../domain/payment.ts';
import type { TransferRecord } from '../chain/ports.ts';
/**
 * What moving a payment's money from a source chain to the home chain (CCTP v2) needs from the outside world:
 * its records (adapters/db/bridgeRepository.ts), the source chain (burn) and the home chain (mint) as
 * adapters/cctp/burnsAndMints.ts reads them, and the attestation API (adapters/cctp/attestations.ts). Signing,
 * nonces and broadcasts go through each chain's relayer (settlement/ports.ts `Relayer`).
 * See docs/decisions/0029-bridge-settlement.md.
 */

/** burn → attest → mint → done: the step a transfer waits in. */
export type BridgeStep = 'burn' | 'attest' | 'mint' | 'done';

/** The operator's choice per source chain: fast pays CCTP a fee (bounded by maxFee), standard is free. */
export type TransferSpeed = 'fast' | 'standard';

/** A relayer transaction of a step, as persisted before it is broadcast. */
export interface StepTransaction {
  readonly relayer: string;
  readonly nonce: bigint;
  readonly rawTx: string;
  readonly txHash: string;
}

/** One burn of one payment's money on one source chain, and what followed it. */
export interface BridgeTransfer {
  readonly id: string;
  readonly paymentId: string;
  readonly sourceChainId: number;
  readonly sourceDomain: number;
  readonly homeChainId: number;
  /** The source chain's USDC. */
  readonly tokenAddress: string;
  /** The payment's deposit address: the forwarder that burns, and the mint recipient on the home chain. */
  readonly depositAddress: string;
  readonly amountBaseUnits: bigint;
  readonly speed: TransferSpeed;
  /**
   * The most CCTP may keep, bound before each attempt at the burn: at least the source messenger's minimum fee
   * then in force (CCTP v2.1, 0 where it has none), for a fast transfer Circle's fast fee, within the cap.
   */
  readonly maxFeeBaseUnits: bigint;
  /**
   * The most the quote let CCTP keep of this amount (its network's `max_fee_bps`: the cap for fast, 0 for
   * standard): a `maxFeeBaseUnits` above it is a fee that changed between quote and burn (decision 0035).
   */
  readonly quotedMaxFeeBaseUnits: bigint;
  readonly minFinalityThreshold: number;
  readonly step: BridgeStep;
  /** Ours, persisted before broadcast; null when the burn found on chain was not sent by us (or not yet signed). */
  readonly burnTx: StepTransaction | null;
  /** The burn's hash once known (ours, or one found on chain). */
  readonly burnTxHash: string | null;
  readonly burnBlockNumber: bigint | null;
  readonly message: string | null;
  readonly attestedMessage: string | null;
  readonly attestation: string | null;
  /** Circle's nonce (bytes32), filled in by the attestation: what the home transmitter marks used. */
  readonly cctpNonce: string | null;
  /** What CCTP kept, as the attested message says (fast transfers; 0 for standard). */
  readonly feeExecutedBaseUnits: bigint | null;
  readonly mintTx: StepTransaction | null;
  readonly mintTxHash: string | null;
  readonly mintedBaseUnits: bigint | null;
  /**
   * When the mint step found the attested message expired (its `expirationBlock` reached on the home chain
   * before the mint): the transfer went back to `attest` for a re-attestation; null once a new one is recorded.
   */
  readonly expiredAt: Date | null;
  /** When Circle accepted our request to re-attest the expired message; null until then. */
  readonly reattestRequestedAt: Date | null;
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly lastError: string | null;
  readonly stalledSince: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly completedAt: Date | null;
}

/** A payment's forwarder: its factory and the parameters its deposit address commits to. */
export interface PaymentForwarder {
  readonly paymentId: string;
  readonly factoryAddress: string;
  readonly depositAddress: string;
  readonly merchantAddress: string;
  readonly treasuryAddress: string;
  readonly commissionBps: number;
}

/** A payment's money on a source chain, final and not burnt yet (nor being burnt). */
export interface BurnCandidate extends PaymentForwarder {
  readonly sourceChainId: number;
  readonly tokenAddress: string;
  readonly unburntBaseUnits: bigint;
  /** The block of the payment's first final transfer on this chain: no burn of its forwarder can be older. */
  readonly firstTransferBlock: bigint;
  /** A fast burn's transfers (decision 0037): written as carried by it, never burnt again. */
  readonly carries?: readonly string[];
}

/**
 * A payment with money on a fast source chain that no burn carries yet (decision 0037): the burn step decides
 * from its transfers whether it is due and how much to burn.
 */
export interface FastBurnCandidate {
  readonly forwarder: PaymentForwarder;
  readonly payment: Payment;
  /** What burns took out of the forwarder on this chain so far (the source balance's `settled`). */
  readonly burntBaseUnits: bigint;
  /** Every transfer of the payment, on every chain, with the burn carrying each home if any. */
  readonly transfers: readonly TransferRecord[];
}

/** A burn of the forwarder's money found on the source chain (its `DepositForBurn`, depositor = the forwarder). */
export interface BurnOnChain {
  readonly txHash: string;
  readonly blockNumber: bigint;
  readonly amountBaseUnits: bigint;
  readonly maxFeeBaseUnits: bigint;
  readonly minFinalityThreshold: number;
}

/** A mined burn: success, and the `MessageSent` bytes of its burn (as emitted: Circle fills in the nonce). */
export interface BurnReceipt {
  readonly success: boolean;
  readonly blockNumber: bigint;
  readonly message: string | null;
}

export interface MintReceipt {
  readonly success: boolean;
  readonly blockNumber: bigint;
}

/** A source chain's CCTP side as the burn step reads and calls it (besides its relayer): its burns. */
export interface SourceBurns {
  readonly chainId: number;
  readonly domain: number;
  /** `ForwarderFactoryV3.deployAndBurn` for the candidate's forwarder: the call the relayer signs. */
  burnCall(
    forwarder: PaymentForwarder,
    burn: { amountBaseUnits: bigint; maxFeeBaseUnits: bigint; minFinalityThreshold: number },
  ): { to: string; data: string };
  usdcBalance(address: string): Promise<bigint>;
  /** Burns whose depositor is `forwarder`, oldest first, since `fromBlock`. */
  burnsBy(forwarder: string, fromBlock: bigint): Promise<BurnOnChain[]>;
  /** The receipt of a burn; its message is the one minting to `mintRecipient` (a batch burns for many). */
  burnReceipt(txHash: string, mintRecipient: string): Promise<BurnReceipt | undefined>;
  finalizedBlockNumber(): Promise<bigint>;
  /**
   * The least `maxFee` the TokenMessengerV2 accepts now for a burn of `amount` (its `getMinFeeAmount`, CCTP
   * v2.1's minimum fee); 0 from a messenger that predates it.
   */
  minimumBurnFee(amountBaseUnits: bigint): Promise<bigint>;
  /** The most, in basis points, the forwarders of this factory may offer as a burn's fee (its route's cap). */
  burnFeeCapBps(factoryAddress: string): Promise<number>;
  /** The head: how deep a transfer is, for a fast burn (decision 0037). */
  latestBlockNumber(): Promise<bigint>;
  /** The canonical block's hash at that height (undefined: none yet). */
  blockHashAt(blockNumber: bigint): Promise<string | undefined>;
}

/** The home chain's CCTP side as the mint step reads and calls it (besides its relayer): its mints. */
export interface HomeMints {
  readonly chainId: number;
  /** The home chain's USDC: the token CCTP mints into the forwarder, flushed by the settler. */
  readonly usdcAddress: string;
  mintCall(attestedMessage: string, attestation: string): { to: string; data: string };
  /** Whether the home transmitter has received the message of this nonce (by us or anyone). */
  nonceUsed(cctpNonce: string): Promise<boolean>;
  mintReceipt(txHash: string): Promise<MintReceipt | undefined>;
  finalizedBlockNumber(): Promise<bigint>;
  /** The home chain's latest block: a mint sent now is mined in a later one. */
  blockNumber(): Promise<bigint>;
  /** The attested message's `expirationBlock`: from that block on it cannot be received (0: never expires). */
  expirationBlockOf(attestedMessage: string): bigint;
}

/** The attestation API's answer for one burn, decided here: ready, not yet, or unreachable for now. */
export type AttestationLookup =
  | {
      readonly state: 'complete';
      readonly message: string;
      readonly attestation: string;
      readonly cctpNonce: string;
      readonly feeExecutedBaseUnits: bigint;
    }
  | { readonly state: 'pending'; readonly reason: string }
  | { readonly state: 'unavailable'; readonly reason: string; readonly retryAfterMs: number | null };

export interface Attestations {
  lookup(burn: {
    sourceDomain: number;
    burnTxHash: string;
    mintRecipient: string;
    amountBaseUnits: bigint;
  }): Promise<AttestationLookup>;
  /** The least `maxFee` a fast burn of `amount` may offer on this route now (Circle's minimum fee). */
  fastMinimumFee(sourceDomain: number, amountBaseUnits: bigint): Promise<bigint>;
  /** Asks Circle to sign an attested message again at finalized level, without expiry (`POST /v2/reattest`). */
  reattest(cctpNonce: string): Promise<ReattestRequest>;
}

/** Circle's answer to a re-attestation request: accepted, refused (HTTP 400 or 404), or unreachable now. */
export type ReattestRequest =
  | { readonly state: 'requested' }
  | { readonly state: 'refused'; readonly reason: string }
  | { readonly state: 'unavailable'; readonly reason: string; readonly retryAfterMs: number | null };

/** A step that could not go on: why, when to try again, and since when it has been held up. */
export interface StepSetback {
  readonly reason: string;
  readonly nextAttemptAt: Date;
  /** Set when the hold-up is long enough to report (a failure, or a wait past its normal time). */
  readonly stalled: boolean;
}

/** The bridge's records. Each source chain's burns are written by that chain's single bridge job. */
export interface BridgeStore {
  burnCandidates(
    sourceChainId: number,
    filter: { tokenAddress: string; dustThresholdBaseUnits: bigint; limit: number },
  ): Promise<BurnCandidate[]>;
  /** Payments with transfers on a fast chain at `deepestBlock` or deeper that no burn carries yet. */
  fastBurnCandidates(
    sourceChainId: number,
    filter: { tokenAddress: string; deepestBlock: bigint; limit: number },
  ): Promise<FastBurnCandidate[]>;
  /** Open transfers in `step` (of that source chain, or of that home chain for `mint`) due at `now`. */
  due(
    step: Exclude<BridgeStep, 'done'>,
    chain: { sourceChainId: number } | { homeChainId: number },
    now: Date,
    limit: number,
  ): Promise<BridgeTransfer[]>;
  /** The forwarder of a payment (one with a deposit address). */
  forwarderOf(paymentId: string): Promise<PaymentForwarder | undefined>;
  /** The block of the payment's first final transfer on that chain (undefined: none). */
  firstTransferBlock(paymentId: string, sourceChainId: number): Promise<bigint | undefined>;
  /** The fee bound of a burn not sent yet, as read before this attempt (the minimum fee may have changed). */
  rebindBurnFee(id: string, maxFeeBaseUnits: bigint, at: Date): Promise<void>;
  /** The transfer's burn is one found on chain (not sent by us): its hash and terms replace ours. */
  adoptBurn(id: string, burn: BurnOnChain, at: Date): Promise<void>;
  /** The burn transactions already recorded for this payment on this source chain. */
  recordedBurns(paymentId: string, sourceChainId: number): Promise<string[]>;
  /** Open transfers whose step has a transaction in flight, whatever their back-off (one at a time per chain). */
  inFlight(step: 'burn' | 'mint', chainId: number): Promise<BridgeTransfer | undefined>;
  /**
   * A new transfer in step `burn`, and the transfers it `carries` written as carried by it, at once; false if one
   * is already open for this payment and chain, or one of those transfers is carried by another burn already.
   */
  open(transfer: BridgeTransfer, carries?: readonly string[]): Promise<boolean>;
  /** The step's transaction, persisted before broadcast (a new one replaces a dropped one). */
  saveStepTransaction(id: string, step: 'burn' | 'mint', tx: StepTransaction | null, at: Date): Promise<void>;
  highestNonce(step: 'burn' | 'mint', chainId: number): Promise<bigint | undefined>;
  /** The burn is final: its message recorded, the source balance counted as moved on, step → attest. Once. */
  recordBurn(
    id: string,
    burn: { txHash: string; blockNumber: bigint; message: string | null },
    at: Date,
  ): Promise<boolean>;
  /** Step → mint, with what the attestation says (an expiry and its re-attestation request are cleared). */
  recordAttestation(
    id: string,
    attested: { message: string; attestation: string; cctpNonce: string; feeExecutedBaseUnits: bigint },
    at: Date,
  ): Promise<void>;
  /**
   * The attested message expired before its mint: step mint → attest (our mint transaction, which can no
   * longer succeed, forgotten), `expiredAt` set and the re-attestation not asked yet; the setback recorded as
   * `recordSetback` does (a stall, reported on the payment). False if the transfer is no longer waiting to mint.
   */
  recordExpiry(id: string, setback: StepSetback, at: Date): Promise<boolean>;
  /** Circle accepted the re-attestation request of the transfer's expired message. */
  recordReattestRequested(id: string, at: Date): Promise<void>;
  /**
   * The mint is final (ours, or found done on chain): the minted amount added to the home row's bridged funds
   * (what the settler flushes), step → done, and any hold-up the bridge reported on the payment cleared. Once.
   */
  recordMint(
    id: string,
    mint: { txHash: string | null; mintedBaseUnits: bigint; tokenAddress: string },
    at: Date,
  ): Promise<boolean>;
  /**
   * A setback of the current step: attempts + 1, the next attempt, the reason; when `stalled`, the stall's
   * start is kept and the payment's payout is marked held up since then (payout_delayed after the threshold).
   */
  recordSetback(id: string, setback: StepSetback, at: Date): Promise<void>;
  /** Open transfers, oldest first, for the operator's console and /metrics. */
  listOpen(limit: number): Promise<BridgeTransfer[]>;
}
