import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../../test/fakes/memoryLedger.ts';
import { testPayment } from '../../../test/fakes/paymentFixture.ts';
import { recordingLogger } from '../../../test/fakes/recordingLogger.ts';
import type { Refund } from '../../domain/refund.ts';
import type { RefundStore } from '../refunds/ports.ts';
import { expirerPass, runExpirer } from './runExpirer.ts';

// testPayment: created at 00:10, expires at 01:10.
const EXPIRES = new Date('2026-01-01T01:10:00.000Z');
const AFTER = new Date(EXPIRES.getTime() + 1);

/** Refunds with nothing owed to their merchants: the announcer's queue is empty. */
const noRefundsDue = { listDue: async () => [] } as unknown as RefundStore;

function expirer(at: Date) {
  const ledger = new MemoryLedger();
  const payment = testPayment(1);
  ledger.addPayment(payment);
  return {
    ledger,
    payment,
    deps: { ledger, refunds: noRefundsDue, clock: { now: () => at }, logger: recordingLogger() },
  };
}

describe('the expirer loop', () => {
  it('is idle while nothing is past its expiry (at it included)', async () => {
    const { deps, ledger, payment } = expirer(EXPIRES);
    expect(await expirerPass(deps)).toBe('idle');
    expect(ledger.payment(payment.id).status).toBe('pending');
  });

  it('expires what is past it and runs again at once, then is idle', async () => {
    const { deps, ledger, payment } = expirer(AFTER);
    expect(await expirerPass(deps)).toBe('busy');
    expect(ledger.payment(payment.id).status).toBe('expired');
    expect(await expirerPass(deps)).toBe('idle');
  });

  it('is busy when only a refund was told to its merchant, and writes its event', async () => {
    const { deps } = expirer(EXPIRES);
    const events: string[] = [];
    // Never given an address, past its claim's expiry: `expired`, where its merchant was told `awaiting_address`.
    const record = { refund: unclaimedRefund(), deposit: undefined };
    let due = [record];
    const refunds = {
      listDue: async () => due,
      transaction: async (work: (t: unknown) => Promise<unknown>) =>
        work({
          lockPayment: async () => undefined,
          refundsOf: async () => [record],
          insertEvent: async (event: { type: string }) => {
            events.push(event.type);
          },
          setAnnounced: async () => {
            due = [];
          },
        }),
    } as unknown as RefundStore;
    expect(await expirerPass({ ...deps, refunds })).toBe('busy');
    expect(events).toEqual(['refund.expired']);
    expect(await expirerPass({ ...deps, refunds })).toBe('idle');
  });

  it('passes until its signal aborts, then resolves', async () => {
    const { deps, ledger, payment } = expirer(AFTER);
    const stop = new AbortController();
    const running = runExpirer(deps, { intervalMs: 10, signal: stop.signal });
    while (ledger.payment(payment.id).status !== 'expired')
      await new Promise((resolve) => setTimeout(resolve, 5));
    stop.abort();
    await expect(running).resolves.toBeUndefined();
  });
});

function unclaimedRefund(): Refund {
  const created = new Date('2026-01-01T00:00:00.000Z');
  return {
    id: '00000000-0000-7000-8000-0000000000a1',
    merchantId: 'merchant-1',
    mode: 'live',
    paymentId: testPayment(1).id,
    amountBaseUnits: 5_000_000n,
    requestedAmount: '5.00',
    requestedCurrency: 'USDC',
    reason: null,
    address: null,
    addressSource: null,
    addressGivenAt: null,
    claimExpiresAt: new Date(EXPIRES.getTime() - 1),
    canceledAt: null,
    announcedStatus: 'awaiting_address',
    createdAt: created,
    updatedAt: created,
  };
}
