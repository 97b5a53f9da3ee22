import type {
  BridgeStep,
  BridgeStore,
  BridgeTransfer,
  BurnCandidate,
  BurnOnChain,
  FastBurnCandidate,
  PaymentForwarder,
  StepSetback,
  StepTransaction,
} from '../../src/app/bridge/ports.ts';

/** A step's attempts start over when the transfer moves on (bridgeRepository.ts `STEP_FRESH`). */
const STEP_FRESH = { attempts: 0, nextAttemptAt: null, lastError: null, stalledSince: null } as const;

const key = (paymentId: string, chainId: number) => `${paymentId}@${chainId}`;
const byAge = (a: BridgeTransfer, b: BridgeTransfer) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The `BridgeStore` port in memory, as adapters/db/bridgeRepository.ts (with bridgeQueries.ts, bridgeExpiry.ts and
 * bridgeSetback.ts) behaves for what the bridge steps rely on: one open transfer per payment and source chain
 * (`open` answers false for a second, or when a carried transfer is carried already, and writes nothing); a
 * step's transaction and its hash saved together, hashes stored lowercase; `due` skips a transfer with its step's
 * transaction in flight and one whose next attempt is later; each move (burn → attest → mint → done, mint → attest
 * on expiry) happens once, from its own step only, and starts the step's attempts over; a setback adds an attempt
 * and keeps the stall's first start; a mint of nothing is refused. What the real store also writes elsewhere (the
 * source balance burnt, the home balance bridged, the payout held up) is kept in maps a test can read.
 */
export class MemoryBridge implements BridgeStore {
  readonly transfers = new Map<string, BridgeTransfer>();
  /** What `burnCandidates` finds on a chain, before its dust filter (the balance's unburnt amount). */
  readonly candidates: BurnCandidate[] = [];
  readonly fastCandidates: FastBurnCandidate[] = [];
  readonly forwarders = new Map<string, PaymentForwarder>();
  /** `${paymentId}@${chainId}` → the block of its first final transfer there. */
  readonly firstBlocks = new Map<string, bigint>();
  /** A ledger transfer's id → the bridge transfer carrying it home. */
  readonly carried = new Map<string, string>();
  /** `${paymentId}@${chainId}` → burnt on that source chain (its balance's `settled`). */
  readonly burnt = new Map<string, bigint>();
  /** `${paymentId}@${chainId}` → minted into its home balance (`bridged`). */
  readonly bridged = new Map<string, bigint>();
  /** paymentId → the payout held up by the bridge: since when, and why. */
  readonly payoutHolds = new Map<string, { since: Date; reason: string }>();
  /** The filters the steps asked with, last first out. */
  readonly asked: { burnCandidates: unknown[]; fastBurnCandidates: unknown[] } = {
    burnCandidates: [],
    fastBurnCandidates: [],
  };

  add(transfer: BridgeTransfer): void {
    this.transfers.set(transfer.id, transfer);
  }

  get(id: string): BridgeTransfer {
    const found = this.transfers.get(id);
    if (!found) throw new Error(`no bridge transfer ${id}`);
    return found;
  }

  private update(id: string, changes: Partial<BridgeTransfer>): void {
    this.transfers.set(id, { ...this.get(id), ...changes });
  }

  async burnCandidates(
    sourceChainId: number,
    filter: { tokenAddress: string; dustThresholdBaseUnits: bigint; limit: number },
  ): Promise<BurnCandidate[]> {
    this.asked.burnCandidates.push({ sourceChainId, ...filter });
    const open = (c: BurnCandidate) =>
      [...this.transfers.values()].some(
        (t) => t.paymentId === c.paymentId && t.sourceChainId === sourceChainId && t.step !== 'done',
      );
    return this.candidates
      .filter(
        (c) =>
          c.sourceChainId === sourceChainId &&
          c.tokenAddress.toLowerCase() === filter.tokenAddress.toLowerCase() &&
          !open(c) &&
          c.unburntBaseUnits > 0n &&
          c.unburntBaseUnits >= filter.dustThresholdBaseUnits,
      )
      .slice(0, filter.limit);
  }

  async fastBurnCandidates(
    sourceChainId: number,
    filter: { tokenAddress: string; deepestBlock: bigint; limit: number },
  ): Promise<FastBurnCandidate[]> {
    this.asked.fastBurnCandidates.push({ sourceChainId, ...filter });
    return this.fastCandidates.slice(0, filter.limit);
  }

  async due(
    step: Exclude<BridgeStep, 'done'>,
    chain: { sourceChainId: number } | { homeChainId: number },
    now: Date,
    limit: number,
  ): Promise<BridgeTransfer[]> {
    return [...this.transfers.values()]
      .filter(
        (t) =>
          t.step === step &&
          (t.nextAttemptAt === null || t.nextAttemptAt.getTime() <= now.getTime()) &&
          ('sourceChainId' in chain
            ? t.sourceChainId === chain.sourceChainId
            : t.homeChainId === chain.homeChainId) &&
          !(step === 'burn' && t.burnTxHash !== null) &&
          !(step === 'mint' && t.mintTxHash !== null),
      )
      .sort(byAge)
      .slice(0, limit);
  }

  async forwarderOf(paymentId: string): Promise<PaymentForwarder | undefined> {
    return this.forwarders.get(paymentId);
  }

  async firstTransferBlock(paymentId: string, sourceChainId: number): Promise<bigint | undefined> {
    return this.firstBlocks.get(key(paymentId, sourceChainId));
  }

  async rebindBurnFee(id: string, maxFeeBaseUnits: bigint, at: Date): Promise<void> {
    if (this.get(id).step === 'burn') this.update(id, { maxFeeBaseUnits, updatedAt: at });
  }

  async adoptBurn(id: string, burn: BurnOnChain, at: Date): Promise<void> {
    if (this.get(id).step !== 'burn') return;
    this.update(id, {
      burnTxHash: burn.txHash.toLowerCase(),
      amountBaseUnits: burn.amountBaseUnits,
      maxFeeBaseUnits: burn.maxFeeBaseUnits,
      minFinalityThreshold: burn.minFinalityThreshold,
      updatedAt: at,
    });
  }

  async recordedBurns(paymentId: string, sourceChainId: number): Promise<string[]> {
    return [...this.transfers.values()]
      .filter((t) => t.paymentId === paymentId && t.sourceChainId === sourceChainId && t.burnTxHash !== null)
      .map((t) => t.burnTxHash as string);
  }

  async inFlight(step: 'burn' | 'mint', chainId: number): Promise<BridgeTransfer | undefined> {
    return [...this.transfers.values()]
      .filter((t) =>
        t.step !== step
          ? false
          : step === 'burn'
            ? t.sourceChainId === chainId && t.burnTxHash !== null
            : t.homeChainId === chainId && t.mintTxHash !== null,
      )
      .sort(byAge)[0];
  }

  async open(transfer: BridgeTransfer, carries: readonly string[] = []): Promise<boolean> {
    const clash = [...this.transfers.values()].some(
      (t) =>
        t.id === transfer.id ||
        (t.paymentId === transfer.paymentId &&
          t.sourceChainId === transfer.sourceChainId &&
          t.step !== 'done'),
    );
    if (clash || carries.some((id) => this.carried.has(id))) return false;
    this.transfers.set(transfer.id, {
      ...transfer,
      burnTxHash: transfer.burnTxHash?.toLowerCase() ?? null,
    });
    for (const id of carries) this.carried.set(id, transfer.id);
    return true;
  }

  async saveStepTransaction(
    id: string,
    step: 'burn' | 'mint',
    tx: StepTransaction | null,
    at: Date,
  ): Promise<void> {
    const hash = tx?.txHash.toLowerCase() ?? null;
    const stored = tx && { ...tx, txHash: hash as string };
    this.update(
      id,
      step === 'burn'
        ? { burnTx: stored, burnTxHash: hash, updatedAt: at }
        : { mintTx: stored, mintTxHash: hash, updatedAt: at },
    );
  }

  async highestNonce(step: 'burn' | 'mint', chainId: number): Promise<bigint | undefined> {
    let highest: bigint | undefined;
    for (const t of this.transfers.values()) {
      const onChain = step === 'burn' ? t.sourceChainId === chainId : t.homeChainId === chainId;
      const nonce = (step === 'burn' ? t.burnTx : t.mintTx)?.nonce;
      if (onChain && nonce !== undefined && (highest === undefined || nonce > highest)) highest = nonce;
    }
    return highest;
  }

  async recordBurn(
    id: string,
    burn: { txHash: string; blockNumber: bigint; message: string | null },
    at: Date,
  ): Promise<boolean> {
    const transfer = this.get(id);
    if (transfer.step !== 'burn') return false;
    this.update(id, {
      step: 'attest',
      burnTxHash: burn.txHash.toLowerCase(),
      burnBlockNumber: burn.blockNumber,
      message: burn.message,
      ...STEP_FRESH,
      updatedAt: at,
    });
    const balance = key(transfer.paymentId, transfer.sourceChainId);
    this.burnt.set(balance, (this.burnt.get(balance) ?? 0n) + transfer.amountBaseUnits);
    return true;
  }

  async recordAttestation(
    id: string,
    attested: { message: string; attestation: string; cctpNonce: string; feeExecutedBaseUnits: bigint },
    at: Date,
  ): Promise<void> {
    if (this.get(id).step !== 'attest') return;
    this.update(id, {
      step: 'mint',
      attestedMessage: attested.message,
      attestation: attested.attestation,
      cctpNonce: attested.cctpNonce.toLowerCase(),
      feeExecutedBaseUnits: attested.feeExecutedBaseUnits,
      expiredAt: null,
      reattestRequestedAt: null,
      ...STEP_FRESH,
      updatedAt: at,
    });
  }

  async recordExpiry(id: string, setback: StepSetback, at: Date): Promise<boolean> {
    if (this.get(id).step !== 'mint') return false;
    this.update(id, {
      step: 'attest',
      mintTx: null,
      mintTxHash: null,
      expiredAt: at,
      reattestRequestedAt: null,
      attempts: 0,
      updatedAt: at,
    });
    await this.recordSetback(id, setback, at);
    return true;
  }

  async recordReattestRequested(id: string, at: Date): Promise<void> {
    const transfer = this.get(id);
    if (transfer.step === 'attest' && transfer.expiredAt !== null)
      this.update(id, { reattestRequestedAt: at, updatedAt: at });
  }

  async recordMint(
    id: string,
    mint: { txHash: string | null; mintedBaseUnits: bigint; tokenAddress: string },
    at: Date,
  ): Promise<boolean> {
    if (mint.mintedBaseUnits <= 0n) throw new RangeError('a mint adds a positive amount');
    const transfer = this.get(id);
    if (transfer.step !== 'mint') return false;
    if (mint.mintedBaseUnits > transfer.amountBaseUnits)
      throw new Error(`bridge transfer ${id} minted more than it burnt`);
    this.update(id, {
      step: 'done',
      mintTxHash: mint.txHash?.toLowerCase() ?? null,
      mintedBaseUnits: mint.mintedBaseUnits,
      ...STEP_FRESH,
      updatedAt: at,
      completedAt: at,
    });
    const balance = key(transfer.paymentId, transfer.homeChainId);
    this.bridged.set(balance, (this.bridged.get(balance) ?? 0n) + mint.mintedBaseUnits);
    this.payoutHolds.delete(transfer.paymentId);
    return true;
  }

  async recordSetback(id: string, setback: StepSetback, at: Date): Promise<void> {
    const transfer = this.get(id);
    const stalledSince = setback.stalled ? (transfer.stalledSince ?? at) : transfer.stalledSince;
    this.update(id, {
      attempts: transfer.attempts + 1,
      nextAttemptAt: setback.nextAttemptAt,
      lastError: setback.reason,
      stalledSince,
      updatedAt: at,
    });
    if (stalledSince === null) return;
    const held = this.payoutHolds.get(transfer.paymentId);
    this.payoutHolds.set(transfer.paymentId, { since: held?.since ?? stalledSince, reason: setback.reason });
  }

  async listOpen(limit: number): Promise<BridgeTransfer[]> {
    return [...this.transfers.values()]
      .filter((t) => t.step !== 'done')
      .sort(byAge)
      .slice(0, limit);
  }
}
