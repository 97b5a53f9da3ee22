import type {
  BlockRef,
  ChainCursor,
  Ledger,
  LedgerTransaction,
  OutboxEvent,
  TransferRecord,
  UnacceptedTransfer,
} from '../../src/app/chain/ports.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { memoryTransaction } from './memoryTransaction.ts';

/** Everything the ledger holds, in one value so that a failed transaction can be undone by restoring a copy. */
interface LedgerState {
  payments: Map<string, Payment>;
  /** In insertion order, as the database returns them without an ORDER BY. */
  transfers: TransferRecord[];
  unaccepted: { transfer: UnacceptedTransfer; orphaned: boolean }[];
  /** chainId → block number → hash. */
  blocks: Map<number, Map<bigint, string>>;
  cursors: Map<number, ChainCursor>;
  /** Per payment, in sequence order. */
  events: OutboxEvent[];
  /** paymentId → lowercase token → final amount (deposit_balances). */
  receivedByToken: Map<string, Map<string, bigint>>;
  touched: { paymentId: string; at: Date }[];
}

const unique = (ids: readonly string[]) => [...new Set(ids)];

/** The SQL adapter refuses a negative block number (adapters/db/ledgerTransaction.ts `blockParam`): so does this. */
function blockParam(value: bigint): bigint {
  if (value < 0n) throw new RangeError(`block number out of range: ${value}`);
  return value;
}

/**
 * The `Ledger` port in memory, for fast unit tests of the chain watcher and status refreshes. It does what
 * adapters/db/ledgerRepository.ts does for everything the use cases rely on: a transaction that throws leaves
 * nothing behind, a transfer is stored once per id, final and orphaned transfers are never orphaned or made
 * final again, and block heights compare as the SQL does (`<=`, `<`, `>`).
 */
export class MemoryLedger implements Ledger {
  private state: LedgerState = {
    payments: new Map(),
    transfers: [],
    unaccepted: [],
    blocks: new Map(),
    cursors: new Map(),
    events: [],
    receivedByToken: new Map(),
    touched: [],
  };

  /** Transactions begun, committed or not: what a test reads to see that a pass wrote nothing. */
  transactionsBegun = 0;

  addPayment(payment: Payment): void {
    this.state.payments.set(payment.id, payment);
  }

  payment(id: string): Payment {
    const payment = this.state.payments.get(id);
    if (!payment) throw new Error(`no payment ${id}`);
    return payment;
  }

  /** Every transfer recorded, in insertion order. */
  allTransfers(): TransferRecord[] {
    return [...this.state.transfers];
  }

  allUnaccepted(): { transfer: UnacceptedTransfer; orphaned: boolean }[] {
    return [...this.state.unaccepted];
  }

  allEvents(): OutboxEvent[] {
    return [...this.state.events];
  }

  recordedBlocks(chainId: number): BlockRef[] {
    return [...(this.state.blocks.get(chainId) ?? new Map<bigint, string>())]
      .map(([number, hash]) => ({ number, hash }))
      .sort((a, b) => (a.number < b.number ? -1 : a.number > b.number ? 1 : 0));
  }

  receivedByToken(paymentId: string): ReadonlyMap<string, bigint> | undefined {
    return this.state.receivedByToken.get(paymentId);
  }

  touches(): { paymentId: string; at: Date }[] {
    return [...this.state.touched];
  }

  async transaction<T>(work: (tx: LedgerTransaction) => Promise<T>): Promise<T> {
    this.transactionsBegun += 1;
    return memoryTransaction(
      this.state,
      (before) => {
        this.state = before;
      },
      () => work(this.transactionOf()),
    );
  }

  async paymentsByDepositAddress(
    chainId: number,
    addresses: readonly string[],
    factory?: string,
  ): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const wanted = new Set(addresses);
    for (const p of this.state.payments.values()) {
      // Stored lowercase, matched exactly (the watcher passes lowercase addresses).
      const address = p.deposit?.depositAddress.toLowerCase();
      if (factory !== undefined && p.deposit?.factoryAddress.toLowerCase() !== factory) continue;
      if (p.deposit?.chainId === chainId && address && wanted.has(address)) found.set(address, p.id);
    }
    return found;
  }

  async cursor(chainId: number): Promise<ChainCursor | undefined> {
    return this.state.cursors.get(chainId);
  }

  async recentBlocks(chainId: number, atOrBelow: bigint, limit: number): Promise<BlockRef[]> {
    blockParam(atOrBelow);
    return this.recordedBlocks(chainId)
      .filter((b) => b.number <= atOrBelow)
      .reverse()
      .slice(0, limit);
  }

  async transfersToFinalize(chainId: number, blockNumber: bigint, limit: number): Promise<TransferRecord[]> {
    blockParam(blockNumber);
    return this.state.transfers
      .filter((t) => t.chainId === chainId && !t.final && !t.orphaned && t.blockNumber <= blockNumber)
      .sort((a, b) => (a.blockNumber < b.blockNumber ? -1 : a.blockNumber > b.blockNumber ? 1 : 0))
      .slice(0, limit);
  }

  async earliestPaymentCreatedAt(chainId: number): Promise<Date | undefined> {
    let earliest: Date | undefined;
    for (const p of this.state.payments.values()) {
      if (p.deposit?.chainId !== chainId) continue;
      if (!earliest || p.createdAt.getTime() < earliest.getTime()) earliest = p.createdAt;
    }
    return earliest;
  }

  async openPaymentsPastExpiry(now: Date, limit: number): Promise<string[]> {
    return [...this.state.payments.values()]
      .filter((p) => (p.status === 'pending' || p.status === 'processing') && p.expiresAt < now)
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, limit)
      .map((p) => p.id);
  }

  async listTransfers(paymentId: string): Promise<TransferRecord[]> {
    return this.state.transfers
      .filter((t) => t.paymentId === paymentId)
      .sort((a, b) =>
        a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
      );
  }

  async listUnacceptedTransfers(paymentId: string): Promise<UnacceptedTransfer[]> {
    return this.state.unaccepted
      .filter((u) => u.transfer.paymentId === paymentId && !u.orphaned)
      .map((u) => u.transfer);
  }

  async listEvents(paymentId: string): Promise<OutboxEvent[]> {
    return this.state.events.filter((e) => e.paymentId === paymentId);
  }

  private transactionOf(): LedgerTransaction {
    // Each method reads `this.state` when called: a rollback replaces it.
    const s = () => this.state;
    return {
      insertTransfers: async (transfers) => {
        const known = new Set(s().transfers.map((t) => t.id));
        const inserted: string[] = [];
        for (const t of transfers) {
          blockParam(t.blockNumber);
          if (known.has(t.id)) continue;
          known.add(t.id);
          s().transfers.push(t);
          inserted.push(t.paymentId);
        }
        return unique(inserted);
      },
      insertUnacceptedTransfers: async (transfers) => {
        const known = new Set(s().unaccepted.map((u) => u.transfer.id));
        const fresh = transfers.filter((t) => !known.has(t.id));
        for (const t of fresh) s().unaccepted.push({ transfer: t, orphaned: false });
        return fresh;
      },
      saveReceivedByToken: async (paymentId, _chainId, received) => {
        const balances = s().receivedByToken.get(paymentId) ?? new Map<string, bigint>();
        for (const [token, amount] of received) balances.set(token.toLowerCase(), amount);
        s().receivedByToken.set(paymentId, balances);
      },
      rewindAbove: async (chainId, blockNumber) => {
        blockParam(blockNumber);
        const orphaned: string[] = [];
        s().transfers = s().transfers.map((t) => {
          if (t.chainId !== chainId || t.final || t.orphaned || t.blockNumber <= blockNumber) return t;
          orphaned.push(t.paymentId);
          return { ...t, orphaned: true };
        });
        for (const u of s().unaccepted)
          if (u.transfer.chainId === chainId && u.transfer.blockNumber > blockNumber) u.orphaned = true;
        const blocks = s().blocks.get(chainId);
        if (blocks) for (const number of [...blocks.keys()]) if (number > blockNumber) blocks.delete(number);
        return unique(orphaned);
      },
      orphanTransfers: async (ids) => {
        const wanted = new Set(ids);
        const orphaned: string[] = [];
        s().transfers = s().transfers.map((t) => {
          if (!wanted.has(t.id) || t.final) return t;
          orphaned.push(t.paymentId);
          return { ...t, orphaned: true };
        });
        return unique(orphaned);
      },
      markFinal: async (chainId, blockNumber) => {
        blockParam(blockNumber);
        const finalized: string[] = [];
        s().transfers = s().transfers.map((t) => {
          if (t.chainId !== chainId || t.final || t.orphaned || t.blockNumber > blockNumber) return t;
          finalized.push(t.paymentId);
          return { ...t, final: true };
        });
        return unique(finalized);
      },
      saveCursor: async (cursor) => {
        blockParam(cursor.nextBlock);
        blockParam(cursor.headBlock);
        blockParam(cursor.finalizedBlock);
        s().cursors.set(cursor.chainId, { ...cursor });
      },
      saveBlocks: async (chainId, blocks) => {
        const recorded = s().blocks.get(chainId) ?? new Map<bigint, string>();
        for (const block of blocks) recorded.set(blockParam(block.number), block.hash);
        s().blocks.set(chainId, recorded);
      },
      pruneBlocksBelow: async (chainId, blockNumber) => {
        if (blockNumber <= 0n) return;
        const recorded = s().blocks.get(chainId);
        if (!recorded) return;
        for (const number of [...recorded.keys()]) if (number < blockNumber) recorded.delete(number);
      },
      lockPayment: async (paymentId) => s().payments.get(paymentId),
      listTransfers: async (paymentId) => s().transfers.filter((t) => t.paymentId === paymentId),
      updatePaymentState: async (paymentId, update) => {
        const { state, txid, txidChainId, paidWith, announcedStatus, updatedAt } = update;
        const payment = s().payments.get(paymentId);
        if (!payment) return;
        s().payments.set(paymentId, {
          ...payment,
          status: state.status,
          announcedStatus,
          paidWith: paidWith && { address: paidWith.address.toLowerCase(), symbol: paidWith.symbol },
          amountReceivedBaseUnits: state.amountReceivedBaseUnits,
          paidAt: state.paidAt,
          late: state.late,
          txid,
          txidChainId,
          updatedAt,
        });
      },
      touchPayment: async (paymentId, at) => {
        const payment = s().payments.get(paymentId);
        if (!payment) return;
        s().payments.set(paymentId, { ...payment, updatedAt: at });
        s().touched.push({ paymentId, at });
      },
      insertEvent: async (event) => {
        s().events.push(event);
      },
      // No reaction here: a memory ledger's payments get no receipt (the database tests cover receipts).
      paymentPaid: async () => undefined,
      paymentTopUp: async () => undefined,
    };
  }
}
