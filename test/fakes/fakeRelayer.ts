import type {
  BroadcastOutcome,
  FeesPerGas,
  FlushCall,
  FlushItem,
  FlushSimulation,
  ForwarderVersion,
  GasEstimate,
  Relayer,
  RelayerReceipt,
  SignedTransaction,
} from '../../src/app/settlement/ports.ts';

/**
 * The relayer as a settlement in flight sees it: the account's nonce, receipts by hash, broadcasts, fees, its
 * balance, and replacements signed with new fees (a new hash per replacement, as re-signing gives); and any
 * other call (a bridge step's burn or mint) estimated and signed with a new hash each. A test sets what the chain
 * says and reads what was sent.
 */
export class FakeRelayer implements Relayer {
  readonly address = '0x00000000000000000000000000000000000000f1';
  chainNonce = 0n;
  balanceWei = 10n ** 18n;
  fees: FeesPerGas = { maxFeePerGas: 50n, maxPriorityFeePerGas: 5n };
  /** What the node answers to the next broadcasts; accepted unless set. */
  broadcastOutcome: BroadcastOutcome = { accepted: true };
  readonly receipts = new Map<string, RelayerReceipt>();
  readonly broadcasts: string[] = [];
  readonly replacements: { rawTx: string; fees: FeesPerGas }[] = [];

  async nonce(): Promise<bigint> {
    return this.chainNonce;
  }

  async balance(): Promise<bigint> {
    return this.balanceWei;
  }

  async currentFees(): Promise<FeesPerGas> {
    return this.fees;
  }

  async receipt(txHash: string): Promise<RelayerReceipt | undefined> {
    return this.receipts.get(txHash);
  }

  async broadcast(rawTx: string): Promise<BroadcastOutcome> {
    this.broadcasts.push(rawTx);
    return this.broadcastOutcome;
  }

  async signReplacement(rawTx: string, fees: FeesPerGas): Promise<SignedTransaction> {
    this.replacements.push({ rawTx, fees });
    const n = this.replacements.length.toString(16).padStart(64, 'e');
    return { rawTx: `0xraw${n}`, txHash: `0x${n}` };
  }

  /** The forwarders' generation, per factory; 2 unless set. */
  readonly versions = new Map<string, ForwarderVersion>();
  /** paymentId → the deposit address its params yield (what CREATE2 would compute); absent: refused. */
  readonly deposits = new Map<string, string>();
  /** What a flush of these items would do; by default every item sends 99 % / 1 % of 1 USDC. */
  simulate: (call: FlushCall) => FlushSimulation = (call) => ({
    ok: true,
    outcomes:
      call.version === 1
        ? null
        : call.items.map(() => ({ merchantSent: 990_000n, feeSent: 10_000n, merchantOwed: 0n, feeOwed: 0n })),
  });
  /** The gas of a flush; by default 50,000 per item. */
  estimate: (call: FlushCall) => GasEstimate = (call) => ({
    ok: true,
    gas: 50_000n * BigInt(call.items.length),
  });
  /** `${to}` → why the token refuses a transfer to it now; absent: it accepts. */
  readonly refusals = new Map<string, string>();
  readonly calls = { simulate: [] as FlushCall[], estimate: [] as FlushCall[] };
  readonly signed: { call: FlushCall; tx: { nonce: bigint; gas: bigint; fees: FeesPerGas } }[] = [];

  depositAddressOf(_factoryAddress: string, item: FlushItem): string | undefined {
    return this.deposits.get(item.paymentId);
  }

  async forwarderVersion(factoryAddress: string): Promise<ForwarderVersion> {
    return this.versions.get(factoryAddress) ?? 2;
  }

  async simulateFlush(call: FlushCall): Promise<FlushSimulation> {
    this.calls.simulate.push(call);
    return this.simulate(call);
  }

  async estimateFlush(call: FlushCall): Promise<GasEstimate> {
    this.calls.estimate.push(call);
    return this.estimate(call);
  }

  async transferRefusal(_token: string, _from: string, to: string): Promise<string | null> {
    return this.refusals.get(to) ?? null;
  }

  async signFlush(
    call: FlushCall,
    tx: { nonce: bigint; gas: bigint; fees: FeesPerGas },
  ): Promise<SignedTransaction> {
    this.signed.push({ call, tx });
    const n = this.signed.length.toString(16).padStart(64, 'f');
    return { rawTx: `0xflush${n}`, txHash: `0x${n}` };
  }

  /** The gas of any other call (a bridge step's burn or mint); 100,000 unless set. */
  callEstimate: GasEstimate = { ok: true, gas: 100_000n };
  readonly estimatedCalls: { to: string; data: string }[] = [];
  readonly signedCalls: {
    call: { to: string; data: string };
    tx: { nonce: bigint; gas: bigint; fees: FeesPerGas };
  }[] = [];

  async estimateCall(to: string, data: string): Promise<GasEstimate> {
    this.estimatedCalls.push({ to, data });
    return this.callEstimate;
  }

  async signCall(
    call: { to: string; data: string },
    tx: { nonce: bigint; gas: bigint; fees: FeesPerGas },
  ): Promise<SignedTransaction> {
    this.signedCalls.push({ call, tx });
    const n = this.signedCalls.length.toString(16).padStart(64, 'c');
    return { rawTx: `0xcall${n}`, txHash: `0x${n}` };
  }
}
