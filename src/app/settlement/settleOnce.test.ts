import { describe, expect, it } from 'vitest';
import { FakeRelayer } from '../../../test/fakes/fakeRelayer.ts';
import { MemorySettlements } from '../../../test/fakes/memorySettlements.ts';
import { CHAIN_ID, testPayment } from '../../../test/fakes/paymentFixture.ts';
import { recordingLogger } from '../../../test/fakes/recordingLogger.ts';
import { settlementCandidate } from '../../../test/fakes/settlementCandidate.ts';
import type { Payment } from '../../domain/payment.ts';
import { NO_PAYOUT_YET } from '../../domain/payout.ts';
import type { SettlementRecord } from './ports.ts';
import { runSettler, type SettleResult, settleOnce, settlerPassOutcome } from './settleOnce.ts';

const NOW = new Date('2026-01-01T02:00:00.000Z');
const TEN_SECONDS_AGO = new Date(NOW.getTime() - 10_000);
const DELAYED_AFTER_MS = 600_000;
const PAID = { status: 'paid', amountReceivedBaseUnits: 10_000_000n } as const;

/** Settlement `stl_7` (nonce 7) of payment 9, broadcast ten seconds ago: not stuck yet, no receipt. */
function inFlight(): SettlementRecord {
  const p = testPayment(9, PAID);
  return {
    id: 'stl_7',
    chainId: CHAIN_ID,
    nonce: 7n,
    status: 'pending',
    payoutTxHash: null,
    failureReason: null,
    createdAt: TEN_SECONDS_AGO,
    completedAt: null,
    items: [{ paymentId: p.id, depositAddress: p.deposit!.depositAddress, expectedBaseUnits: 10_000_000n }],
    transactions: [
      {
        id: 'rtx_7',
        settlementId: 'stl_7',
        chainId: CHAIN_ID,
        fromAddress: '0x00000000000000000000000000000000000000f1',
        nonce: 7n,
        txHash: `0x${'7'.repeat(64)}`,
        rawTx: '0xraw7',
        gas: 100_000n,
        maxFeePerGas: 100n,
        maxPriorityFeePerGas: 10n,
        status: 'broadcast',
        replacesId: null,
        createdAt: TEN_SECONDS_AGO,
        broadcastAt: TEN_SECONDS_AGO,
      },
    ],
  };
}

/** Payment 3, whose merchant share has failed to go out for longer than delayedAfterMs. */
const DELAYED = testPayment(3, {
  ...PAID,
  payout: {
    ...NO_PAYOUT_YET,
    failures: 5,
    blockedSince: new Date(NOW.getTime() - DELAYED_AFTER_MS),
    blockedReason: 'blacklisted',
  },
});

function setUp(
  options: { inFlight?: SettlementRecord; dueFor?: readonly number[]; others?: Payment[] } = {},
) {
  const settlements = new MemorySettlements();
  const relayer = new FakeRelayer();
  relayer.chainNonce = 7n;
  if (options.inFlight) {
    settlements.addSettlement(options.inFlight);
    settlements.addPayment(testPayment(9, PAID));
  }
  for (const n of options.dueFor ?? []) {
    const candidate = settlementCandidate(n);
    settlements.addPayment(testPayment(n, PAID));
    settlements.due.push(candidate);
    relayer.deposits.set(candidate.paymentId, candidate.depositAddress);
  }
  for (const p of options.others ?? []) settlements.addPayment(p);
  const logger = recordingLogger();
  const deps = {
    settlements,
    relayer,
    chain: { finalizedBlockNumber: async () => 100n },
    clock: { now: () => NOW },
    logger,
  };
  const settleOptions = {
    chainId: CHAIN_ID,
    payoutPolicy: { dustThresholdBaseUnits: 10_000n, delayedAfterMs: DELAYED_AFTER_MS },
    relayerLowBalanceWei: 10n ** 15n,
  };
  return { settlements, relayer, logger, deps, settleOptions, settle: () => settleOnce(deps, settleOptions) };
}

describe('settleOnce', () => {
  it('with nothing in flight, flushes what is due and tells of delayed payouts, in one pass', async () => {
    const s = setUp({ dueFor: [1], others: [DELAYED] });
    const result = await s.settle();
    const created = (await s.settlements.inFlight(CHAIN_ID))!;
    expect(result).toEqual({
      inFlight: null,
      send: {
        kind: 'sent',
        settlementId: created.id,
        nonce: 7n,
        txHash: created.transactions[0]!.txHash,
        paymentIds: [testPayment(1).id],
        broadcast: true,
      },
      delayNotices: [DELAYED.id],
    });
    expect(s.settlements.allEvents().map((e) => e.type)).toEqual(['payment.payout_delayed']);
  });

  it('is idle with nothing in flight, due or delayed', async () => {
    const s = setUp();
    expect(await s.settle()).toEqual({ inFlight: null, send: { kind: 'idle' }, delayNotices: [] });
    expect(s.settlements.candidateQueries).toHaveLength(1);
  });

  it('sends nothing new while a settlement is still in flight, and still tells of delays', async () => {
    const s = setUp({ inFlight: inFlight(), dueFor: [1], others: [DELAYED] });
    expect(await s.settle()).toEqual({
      inFlight: { kind: 'awaiting-receipt', settlementId: 'stl_7', txHash: `0x${'7'.repeat(64)}` },
      send: null,
      delayNotices: [DELAYED.id],
    });
    // Not even asked what is due: one settlement at a time per chain.
    expect(s.settlements.candidateQueries).toEqual([]);
    expect(s.relayer.broadcasts).toEqual([]);
    expect(s.settlements.settlement('stl_7').status).toBe('pending');
  });

  it('flushes what is due in the same pass once the settlement in flight is resolved', async () => {
    // Nonce 7 went to another transaction and none of ours was mined: the settlement is dropped, and the
    // pass goes on to send the due payment with the next nonce.
    const s = setUp({ inFlight: inFlight(), dueFor: [1] });
    s.relayer.chainNonce = 8n;
    const result = await s.settle();
    expect(result.inFlight).toEqual({ kind: 'dropped', settlementId: 'stl_7' });
    expect(s.settlements.settlement('stl_7').status).toBe('failed');
    expect(result.send).toMatchObject({ kind: 'sent', nonce: 8n, paymentIds: [testPayment(1).id] });
    expect(result.delayNotices).toEqual([]);
  });
});

describe('the other sender’s turn (the home chain’s mints)', () => {
  const TX7 = `0x${'7'.repeat(64)}`;
  /** Settlement 7 in flight with its receipt at `blockNumber` (the fake chain's finalized block is 100). */
  function minedAt(blockNumber: bigint) {
    const s = setUp({ inFlight: inFlight(), dueFor: [1] });
    s.relayer.receipts.set(TX7, {
      txHash: TX7,
      blockNumber,
      success: true,
      gasUsed: 1n,
      feeWei: 1n,
      flushed: [],
      withheld: [],
    });
    s.relayer.chainNonce = 8n;
    const turns: string[] = [];
    const otherTurn = async () => {
      turns.push('asked');
      return true;
    };
    return { s, turns, settle: () => settleOnce(s.deps, s.settleOptions, otherTurn) };
  }

  it('comes while our settlement is mined but not final (its nonce is spent), and no flush is sent then', async () => {
    const { s, turns, settle } = minedAt(101n);
    const result = await settle();
    expect(result.inFlight?.kind).toBe('awaiting-finality');
    expect(turns).toEqual(['asked']);
    expect(result.send).toBeNull();
    expect(s.settlements.candidateQueries).toEqual([]);
  });

  it('comes while our settlement is unmined too (the mint takes the next nonce), and no flush is sent then', async () => {
    const s = setUp({ inFlight: inFlight(), dueFor: [1] });
    const turns: string[] = [];
    const result = await settleOnce(s.deps, s.settleOptions, async () => {
      turns.push('asked');
      return true;
    });
    expect(result.inFlight?.kind).toBe('awaiting-receipt');
    expect(turns).toEqual(['asked']);
    expect(result.send).toBeNull();
  });

  it('holds every new flush back while its own transaction is unmined', async () => {
    const s = setUp({ dueFor: [1] });
    const result = await settleOnce(s.deps, s.settleOptions, async () => false);
    expect(result).toEqual({ inFlight: null, send: null, delayNotices: [] });
    expect(s.relayer.broadcasts).toEqual([]);
  });
});

describe('settlerPassOutcome', () => {
  const result = (inFlight: SettleResult['inFlight'], send: SettleResult['send']): SettleResult => ({
    inFlight,
    send,
    delayNotices: [],
  });
  const tx = { settlementId: 'stl_7', txHash: '0x77' };

  it('looks again within the block while a transaction of ours is unmined', () => {
    for (const kind of ['broadcast', 'awaiting-receipt'] as const)
      expect(settlerPassOutcome(result({ kind, ...tx }, null))).toBe('soon');
    expect(settlerPassOutcome(result({ kind: 'replaced', ...tx, replacedTxHash: '0x76' }, null))).toBe(
      'soon',
    );
    const sent = {
      kind: 'sent',
      settlementId: 's',
      nonce: 8n,
      txHash: '0x88',
      paymentIds: [],
      broadcast: true,
    };
    expect(settlerPassOutcome(result(null, sent as SettleResult['send']))).toBe('soon');
  });

  it('waits its interval when nothing of ours is unmined', () => {
    expect(settlerPassOutcome(result(null, { kind: 'idle' }))).toBe('idle');
    expect(settlerPassOutcome(result({ kind: 'awaiting-finality', ...tx }, null))).toBe('idle');
    expect(settlerPassOutcome(result({ kind: 'confirmed', ...tx }, { kind: 'idle' }))).toBe('idle');
    expect(settlerPassOutcome(result({ kind: 'dropped', settlementId: 'stl_7' }, { kind: 'idle' }))).toBe(
      'idle',
    );
  });
});

describe('runSettler', () => {
  it('runs passes until the signal aborts', async () => {
    const s = setUp({ dueFor: [1] });
    const controller = new AbortController();
    const passes: unknown[] = [];
    const inFlightOf = s.settlements.inFlight.bind(s.settlements);
    s.settlements.inFlight = async (chainId) => {
      passes.push(chainId);
      // The first pass sends; the second, with it in flight, stops the loop (the pass itself still ends).
      if (passes.length === 2) controller.abort();
      return inFlightOf(chainId);
    };
    await runSettler(s.deps, { ...s.settleOptions, intervalMs: 1, signal: controller.signal });
    expect(passes).toEqual([CHAIN_ID, CHAIN_ID]);
    expect(s.relayer.broadcasts).toHaveLength(1);
    expect(s.logger.lines.filter((l) => l.level !== 'info')).toEqual([]);
  });

  it.each([
    [undefined, 60_000],
    [5_000, 5_000],
  ])(
    'logs a failed pass as the settler’s and backs off up to maxBackoffMs (%s: %s ms)',
    async (maxBackoffMs, retryInMs) => {
      const s = setUp();
      const controller = new AbortController();
      s.settlements.inFlight = async () => {
        throw new Error('database down');
      };
      const warn = s.logger.warn;
      // Stop at the first failure's log line: the back-off wait then ends at once.
      s.deps.logger.warn = (...args) => {
        warn(...args);
        controller.abort();
      };
      await runSettler(s.deps, {
        ...s.settleOptions,
        intervalMs: 40_000,
        signal: controller.signal,
        ...(maxBackoffMs === undefined ? {} : { maxBackoffMs }),
      });
      expect(s.logger.lines).toEqual([
        {
          level: 'warn',
          fields: {
            job: 'settler',
            failures: 1,
            retryInMs,
            err: { name: 'Error', message: 'database down' },
          },
          message: 'background job failed',
        },
      ]);
    },
  );
});
