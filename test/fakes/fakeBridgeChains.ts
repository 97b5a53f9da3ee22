import type {
  AttestationLookup,
  Attestations,
  BridgeTransfer,
  BurnOnChain,
  BurnReceipt,
  HomeMints,
  MintReceipt,
  PaymentForwarder,
  ReattestRequest,
  SourceBurns,
} from '../../src/app/bridge/ports.ts';

/**
 * The source chain, the home chain and Circle's attestation API as the bridge steps see them
 * (adapters/cctp/burnsAndMints.ts and adapters/cctp/attestations.ts), each answering what a test set: balances,
 * burns found by depositor, receipts by hash, the finalized block and the head, the messenger's minimum fee and
 * the route's cap; nonces the home transmitter marks used and each attested message's expiration block; Iris's
 * answer per burn. Calls are encoded as JSON so that a test reads what a step asked the chain to do.
 */
export class FakeSourceBurns implements SourceBurns {
  readonly chainId: number;
  readonly domain: number;
  readonly balances = new Map<string, bigint>();
  /** Burns on chain by depositor (lowercase), oldest first. */
  readonly burns = new Map<string, BurnOnChain[]>();
  readonly receipts = new Map<string, BurnReceipt>();
  readonly blockHashes = new Map<bigint, string>();
  finalized = 0n;
  head = 0n;
  minimumFee = 0n;
  feeCapBps = 10;
  readonly burnsAsked: { forwarder: string; fromBlock: bigint }[] = [];

  constructor(chainId = 8453, domain = 6) {
    this.chainId = chainId;
    this.domain = domain;
  }

  burnCall(
    forwarder: PaymentForwarder,
    burn: { amountBaseUnits: bigint; maxFeeBaseUnits: bigint; minFinalityThreshold: number },
  ): { to: string; data: string } {
    return {
      to: forwarder.factoryAddress,
      data: JSON.stringify({
        burn: forwarder.depositAddress,
        amount: burn.amountBaseUnits.toString(),
        maxFee: burn.maxFeeBaseUnits.toString(),
        minFinalityThreshold: burn.minFinalityThreshold,
      }),
    };
  }

  async usdcBalance(address: string): Promise<bigint> {
    return this.balances.get(address.toLowerCase()) ?? 0n;
  }

  async burnsBy(forwarder: string, fromBlock: bigint): Promise<BurnOnChain[]> {
    this.burnsAsked.push({ forwarder, fromBlock });
    return (this.burns.get(forwarder.toLowerCase()) ?? []).filter((b) => b.blockNumber >= fromBlock);
  }

  async burnReceipt(txHash: string, _mintRecipient: string): Promise<BurnReceipt | undefined> {
    return this.receipts.get(txHash.toLowerCase());
  }

  async finalizedBlockNumber(): Promise<bigint> {
    return this.finalized;
  }

  async minimumBurnFee(_amountBaseUnits: bigint): Promise<bigint> {
    return this.minimumFee;
  }

  async burnFeeCapBps(_factoryAddress: string): Promise<number> {
    return this.feeCapBps;
  }

  async latestBlockNumber(): Promise<bigint> {
    return this.head;
  }

  async blockHashAt(blockNumber: bigint): Promise<string | undefined> {
    return this.blockHashes.get(blockNumber);
  }
}

export class FakeHomeMints implements HomeMints {
  readonly chainId: number;
  readonly usdcAddress = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
  readonly usedNonces = new Set<string>();
  readonly receipts = new Map<string, MintReceipt>();
  /** attested message → its expiration block; absent: 0 (never expires). */
  readonly expirations = new Map<string, bigint>();
  finalized = 0n;
  head = 0n;

  constructor(chainId = 137) {
    this.chainId = chainId;
  }

  mintCall(attestedMessage: string, attestation: string): { to: string; data: string } {
    return {
      to: '0x00000000000000000000000000000000000000e7',
      data: JSON.stringify({ attestedMessage, attestation }),
    };
  }

  async nonceUsed(cctpNonce: string): Promise<boolean> {
    return this.usedNonces.has(cctpNonce);
  }

  async mintReceipt(txHash: string): Promise<MintReceipt | undefined> {
    return this.receipts.get(txHash.toLowerCase());
  }

  async finalizedBlockNumber(): Promise<bigint> {
    return this.finalized;
  }

  async blockNumber(): Promise<bigint> {
    return this.head;
  }

  expirationBlockOf(attestedMessage: string): bigint {
    // The real adapter decodes the message's bytes: there is nothing to decode in no message.
    if (typeof attestedMessage !== 'string') throw new TypeError('not a CCTP message');
    return this.expirations.get(attestedMessage) ?? 0n;
  }
}

export class FakeAttestations implements Attestations {
  /** burn hash (lowercase) → Iris's answer; absent: pending. */
  readonly answers = new Map<string, AttestationLookup>();
  fastFee = 0n;
  reattestAnswer: ReattestRequest = { state: 'requested' };
  readonly lookups: Parameters<Attestations['lookup']>[0][] = [];
  readonly reattests: string[] = [];

  async lookup(burn: Parameters<Attestations['lookup']>[0]): Promise<AttestationLookup> {
    this.lookups.push(burn);
    return this.answers.get(burn.burnTxHash.toLowerCase()) ?? { state: 'pending', reason: 'not signed yet' };
  }

  async fastMinimumFee(_sourceDomain: number, _amountBaseUnits: bigint): Promise<bigint> {
    return this.fastFee;
  }

  async reattest(cctpNonce: string): Promise<ReattestRequest> {
    this.reattests.push(cctpNonce);
    return this.reattestAnswer;
  }
}

export const FORWARDER: PaymentForwarder = {
  paymentId: 'pay_1',
  factoryAddress: '0x00000000000000000000000000000000000000fa',
  depositAddress: '0x00000000000000000000000000000000000000d1',
  merchantAddress: '0x00000000000000000000000000000000000000a1',
  treasuryAddress: '0x00000000000000000000000000000000000000b1',
  commissionBps: 100,
};

/** A transfer of 10 USDC from chain 8453 to 137, in `step` with nothing done yet unless `changes` say so. */
export function bridgeTransfer(changes: Partial<BridgeTransfer> = {}): BridgeTransfer {
  const createdAt = new Date('2026-12-01T00:00:00.000Z');
  return {
    id: 'brg_1',
    paymentId: FORWARDER.paymentId,
    sourceChainId: 8453,
    sourceDomain: 6,
    homeChainId: 137,
    tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    depositAddress: FORWARDER.depositAddress,
    amountBaseUnits: 10_000_000n,
    speed: 'standard',
    maxFeeBaseUnits: 0n,
    quotedMaxFeeBaseUnits: 0n,
    minFinalityThreshold: 2000,
    step: 'burn',
    burnTx: null,
    burnTxHash: null,
    burnBlockNumber: null,
    message: null,
    attestedMessage: null,
    attestation: null,
    cctpNonce: null,
    feeExecutedBaseUnits: null,
    mintTx: null,
    mintTxHash: null,
    mintedBaseUnits: null,
    expiredAt: null,
    reattestRequestedAt: null,
    attempts: 0,
    nextAttemptAt: null,
    lastError: null,
    stalledSince: null,
    createdAt,
    updatedAt: createdAt,
    completedAt: null,
    ...changes,
  };
}
