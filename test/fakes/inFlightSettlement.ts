// The settlement in flight that advanceInFlight's unit tests start from (src/app/settlement/advanceInFlight*.test.ts):
// two paid payments, one settlement of relayer transaction 1 sent two minutes ago, the fake relayer and settlements.
import { advanceInFlight } from '../../src/app/settlement/advanceInFlight.ts';
import type {
  RelayerReceipt,
  RelayerTransactionRecord,
  SettlementRecord,
} from '../../src/app/settlement/ports.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { FakeRelayer } from './fakeRelayer.ts';
import { MemorySettlements } from './memorySettlements.ts';
import { CHAIN_ID, testPayment, USDC } from './paymentFixture.ts';
import { recordingLogger } from './recordingLogger.ts';

export const NOW = new Date('2026-01-01T02:00:00.000Z');
export const SENT_AT = new Date('2026-01-01T01:58:00.000Z'); // two minutes ago: past the 60 s before a replacement
export const P1 = testPayment(1, { status: 'paid', amountReceivedBaseUnits: 10_000_000n });
export const P2 = testPayment(2, { status: 'paid', amountReceivedBaseUnits: 10_000_000n });

export function relayerTx(
  n: number,
  fields: Partial<RelayerTransactionRecord> = {},
): RelayerTransactionRecord {
  return {
    id: `rtx_${n}`,
    settlementId: 'stl_1',
    chainId: CHAIN_ID,
    fromAddress: '0x00000000000000000000000000000000000000f1',
    nonce: 7n,
    txHash: `0x${n.toString(16).padStart(64, 'c')}`,
    rawTx: `0xraw${n}`,
    gas: 100_000n,
    maxFeePerGas: 100n,
    maxPriorityFeePerGas: 10n,
    status: 'broadcast',
    replacesId: n > 1 ? `rtx_${n - 1}` : null,
    createdAt: SENT_AT,
    broadcastAt: SENT_AT,
    ...fields,
  };
}

export function settlement(
  transactions: readonly RelayerTransactionRecord[] = [relayerTx(1)],
  payments: readonly Payment[] = [P1, P2],
): SettlementRecord {
  return {
    id: 'stl_1',
    chainId: CHAIN_ID,
    nonce: 7n,
    status: 'pending',
    payoutTxHash: null,
    failureReason: null,
    createdAt: SENT_AT,
    completedAt: null,
    items: payments.map((p) => ({
      paymentId: p.id,
      depositAddress: p.deposit!.depositAddress,
      expectedBaseUnits: p.amountReceivedBaseUnits,
    })),
    transactions,
  };
}

export function receipt(tx: RelayerTransactionRecord, fields: Partial<RelayerReceipt> = {}): RelayerReceipt {
  return {
    txHash: tx.txHash,
    blockNumber: 100n,
    success: true,
    gasUsed: 90_000n,
    feeWei: 9_000_000n,
    flushed: [P1, P2].map((p) => ({
      // Checksummed, as the relayer decodes them: matched without regard to case.
      forwarderAddress: p.deposit!.depositAddress,
      tokenAddress: USDC,
      paymentId: p.id,
      merchantBaseUnits: 9_900_000n,
      feeBaseUnits: 100_000n,
    })),
    withheld: [],
    ...fields,
  };
}

export function setUp(record: SettlementRecord = settlement(), payments: readonly Payment[] = [P1, P2]) {
  const settlements = new MemorySettlements();
  for (const p of payments) {
    settlements.addPayment(p);
    settlements.addBalance(p.id, USDC, true);
  }
  settlements.addSettlement(record);
  const relayer = new FakeRelayer();
  relayer.chainNonce = 7n;
  const logger = recordingLogger();
  const finality = { finalized: 100n };
  let now = NOW;
  const deps = {
    settlements,
    relayer,
    chain: { finalizedBlockNumber: async () => finality.finalized },
    clock: { now: () => now },
    logger,
  };
  const options = {
    chainId: CHAIN_ID,
    payoutPolicy: { dustThresholdBaseUnits: 10_000n, delayedAfterMs: 600_000 },
    relayerLowBalanceWei: 10n ** 16n,
  };
  return {
    settlements,
    relayer,
    logger,
    finality,
    setNow: (at: Date) => {
      now = at;
    },
    advance: (more: { stuckAfterMs?: number } = {}) =>
      advanceInFlight(deps, { ...options, ...more }, settlements.settlement('stl_1')),
  };
}

/** The flush (relayerTx(1)) mined with the events `events` makes of the plain ones (P1's item, then P2's). */
export function mineFlush(
  s: ReturnType<typeof setUp>,
  events: (base: RelayerReceipt['flushed']) => Partial<RelayerReceipt>,
): void {
  const tx = relayerTx(1);
  s.relayer.receipts.set(tx.txHash, receipt(tx, events(receipt(tx).flushed)));
}

/** The token held back P1's shares in the flush: what stays owed to the merchant and to the treasury. */
export function heldBackFromP1(
  base: RelayerReceipt['flushed'],
  merchantOwedBaseUnits: bigint,
  feeOwedBaseUnits: bigint,
) {
  return {
    forwarderAddress: base[0]!.forwarderAddress,
    tokenAddress: USDC,
    paymentId: P1.id,
    merchantOwedBaseUnits,
    feeOwedBaseUnits,
  };
}
