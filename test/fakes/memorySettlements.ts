import type { OutboxEvent } from '../../src/app/chain/ports.ts';
import type {
  RelayerBalanceReading,
  RelayerTransactionRecord,
  SettlementCandidate,
  SettlementClosing,
  SettlementItem,
  SettlementRecord,
  SettlementStore,
  SettlementTransaction,
} from '../../src/app/settlement/ports.ts';
import type { Payment } from '../../src/domain/payment.ts';
import type { PayoutProgress } from '../../src/domain/payout.ts';
import { memoryTransaction } from './memoryTransaction.ts';

interface Balance {
  accepted: boolean;
  merchantPaid: bigint;
  treasuryPaid: bigint;
}

interface SettlementsState {
  payments: Map<string, Payment>;
  settlements: Map<string, SettlementRecord>;
  /** paymentId → lowercase token → what its deposit balance says went out (deposit_balances). */
  balances: Map<string, Map<string, Balance>>;
  events: OutboxEvent[];
  readings: RelayerBalanceReading[];
}

const notUsed = (name: string) => () => {
  throw new Error(`MemorySettlements.${name} is not faked: the use case under test should not need it`);
};

/**
 * The part of the `SettlementStore` port that moving a settlement in flight relies on, in memory. Like
 * adapters/db/settlementRepository.ts: a settlement closes once (pending → confirmed or failed, else false and
 * nothing written), closing marks its other transactions replaced, payments are locked in id order, a flush is
 * added to the deposit's balance of a token it has (accepted or not), a broadcast is marked only on a `signed`
 * transaction, a transaction that throws leaves nothing behind, and the payouts delayed and not told yet are
 * found as its `delayedUnnotified` query finds them.
 */
export class MemorySettlements implements SettlementStore {
  private state: SettlementsState = {
    payments: new Map(),
    settlements: new Map(),
    balances: new Map(),
    events: [],
    readings: [],
  };

  addPayment(payment: Payment): void {
    this.state.payments.set(payment.id, payment);
  }

  addSettlement(settlement: SettlementRecord): void {
    this.state.settlements.set(settlement.id, settlement);
  }

  /** A deposit balance row, as the status refresh writes one for each accepted token that arrived. */
  addBalance(paymentId: string, token: string, accepted: boolean): void {
    const balances = this.state.balances.get(paymentId) ?? new Map<string, Balance>();
    balances.set(token.toLowerCase(), { accepted, merchantPaid: 0n, treasuryPaid: 0n });
    this.state.balances.set(paymentId, balances);
  }

  payment(id: string): Payment {
    const payment = this.state.payments.get(id);
    if (!payment) throw new Error(`no payment ${id}`);
    return payment;
  }

  settlement(id: string): SettlementRecord {
    const settlement = this.state.settlements.get(id);
    if (!settlement) throw new Error(`no settlement ${id}`);
    return settlement;
  }

  balance(paymentId: string, token: string): Balance | undefined {
    return this.state.balances.get(paymentId)?.get(token.toLowerCase());
  }

  allEvents(): OutboxEvent[] {
    return [...this.state.events];
  }

  readings(): RelayerBalanceReading[] {
    return [...this.state.readings];
  }

  async inFlight(chainId: number): Promise<SettlementRecord | undefined> {
    return [...this.state.settlements.values()]
      .filter((s) => s.chainId === chainId && s.status === 'pending')
      .sort((a, b) => (a.nonce < b.nonce ? -1 : 1))[0];
  }

  async addTransaction(transaction: RelayerTransactionRecord): Promise<void> {
    const settlement = this.settlement(transaction.settlementId);
    this.state.settlements.set(settlement.id, {
      ...settlement,
      transactions: [...settlement.transactions, transaction],
    });
  }

  async markBroadcast(transactionId: string, at: Date): Promise<void> {
    this.updateTransaction(transactionId, (t) =>
      t.status === 'signed' ? { ...t, status: 'broadcast', broadcastAt: at } : t,
    );
  }

  async recordRelayerBalance(reading: RelayerBalanceReading): Promise<void> {
    this.state.readings.push(reading);
  }

  async transaction<T>(work: (tx: SettlementTransaction) => Promise<T>): Promise<T> {
    return memoryTransaction(
      this.state,
      (before) => {
        this.state = before;
      },
      () => work(this.transactionOf()),
    );
  }

  /** What `candidates` answers (the store's query is not what these tests are about), cut at its limit. */
  due: SettlementCandidate[] = [];
  readonly candidateQueries: { chainId: number; dustThresholdBaseUnits: bigint; now: Date; limit: number }[] =
    [];

  async candidates(
    chainId: number,
    filter: { dustThresholdBaseUnits: bigint; now: Date; limit: number },
  ): Promise<SettlementCandidate[]> {
    this.candidateQueries.push({ chainId, ...filter });
    return this.due.filter((c) => c.chainId === chainId).slice(0, filter.limit);
  }

  async highestNonce(chainId: number): Promise<bigint | undefined> {
    let highest: bigint | undefined;
    for (const s of this.state.settlements.values())
      if (s.chainId === chainId && (highest === undefined || s.nonce > highest)) highest = s.nonce;
    return highest;
  }

  async create(
    settlement: { id: string; chainId: number; nonce: bigint; createdAt: Date },
    items: readonly SettlementItem[],
    transaction: RelayerTransactionRecord,
  ): Promise<boolean> {
    if (await this.inFlight(settlement.chainId)) return false;
    this.addSettlement({
      ...settlement,
      status: 'pending',
      payoutTxHash: null,
      failureReason: null,
      completedAt: null,
      items,
      transactions: [transaction],
    });
    return true;
  }

  async delayedUnnotified(chainId: number, blockedBefore: Date, limit: number): Promise<string[]> {
    // The adapter's query: failing since at or before `blockedBefore`, not told yet, on this chain, oldest first.
    const since = (p: Payment) => p.payout.blockedSince?.getTime() ?? Number.NaN;
    return [...this.state.payments.values()]
      .filter(
        (p) =>
          p.payout.blockedSince !== null &&
          since(p) <= blockedBefore.getTime() &&
          p.payout.delayNotifiedAt === null &&
          p.deposit?.chainId === chainId,
      )
      .sort((a, b) => since(a) - since(b))
      .slice(0, limit)
      .map((p) => p.id);
  }

  listUnsettled = notUsed('listUnsettled');
  requestSweep = notUsed('requestSweep');
  retryNow = notUsed('retryNow');
  relayerBalances = notUsed('relayerBalances');

  private updateTransaction(
    transactionId: string,
    change: (t: RelayerTransactionRecord) => RelayerTransactionRecord,
  ): void {
    for (const settlement of this.state.settlements.values()) {
      if (!settlement.transactions.some((t) => t.id === transactionId)) continue;
      this.state.settlements.set(settlement.id, {
        ...settlement,
        transactions: settlement.transactions.map((t) => (t.id === transactionId ? change(t) : t)),
      });
    }
  }

  private transactionOf(): SettlementTransaction {
    const s = () => this.state;
    return {
      closeSettlement: async (settlementId: string, closing: SettlementClosing, at: Date) => {
        const settlement = s().settlements.get(settlementId);
        if (settlement?.status !== 'pending') return false;
        s().settlements.set(settlementId, {
          ...settlement,
          status: closing.status,
          payoutTxHash: closing.status === 'confirmed' ? closing.payoutTxHash.toLowerCase() : null,
          failureReason: closing.status === 'failed' ? closing.reason : null,
          completedAt: at,
          transactions: settlement.transactions.map((t) =>
            t.id === closing.minedTxId ? { ...t, status: 'mined' } : { ...t, status: 'replaced' },
          ),
        });
        return true;
      },
      lockPayments: async (ids) =>
        [...s().payments.values()].filter((p) => ids.includes(p.id)).sort((a, b) => (a.id < b.id ? -1 : 1)),
      savePayout: async (paymentId: string, payout: PayoutProgress, at: Date) => {
        const payment = s().payments.get(paymentId);
        if (payment) s().payments.set(paymentId, { ...payment, payout, updatedAt: at });
      },
      recordFlush: async (ownerId, _chainId, tokenAddress, merchantSent, feeSent) => {
        const balance = s().balances.get(ownerId)?.get(tokenAddress.toLowerCase());
        if (!balance) return { accepted: false };
        balance.merchantPaid += merchantSent;
        balance.treasuryPaid += feeSent;
        return { accepted: balance.accepted };
      },
      insertEvent: async (event) => {
        s().events.push(event);
      },
    };
  }
}
