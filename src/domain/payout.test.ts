import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PAYOUT_POLICY,
  derivePayoutState,
  NO_PAYOUT_YET,
  type PayoutProgress,
  payableBaseUnits,
  payoutAfterFailure,
  payoutAfterFlush,
  payoutStateHoldsUntil,
  SETTLEMENT_RETRY_MAX_MS,
  settledBaseUnits,
  settlementRetryDelayMs,
} from './payout.ts';

const T0 = new Date('2026-11-23T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const policy = DEFAULT_PAYOUT_POLICY; // dust 0.01 USDC, delayed after 10 minutes
/** 27.00 USDC received at 1 %: the merchant's share is 26.73, the commission 0.27. */
const paid = (payout: Partial<PayoutProgress> = {}) => ({
  status: 'paid' as const,
  amountReceivedBaseUnits: 27_000_000n,
  commissionBps: 100,
  payout: { ...NO_PAYOUT_YET, ...payout },
});

describe('payout status', () => {
  it('is pending until the merchant share goes out, then sent', () => {
    expect(derivePayoutState(paid(), policy, T0)).toEqual({
      status: 'pending',
      delayedReason: null,
      merchantOwedBaseUnits: 26_730_000n,
    });
    expect(derivePayoutState(paid({ merchantPaidBaseUnits: 26_730_000n }), policy, T0).status).toBe('sent');
    // Sent, though the treasury's commission is still held: the merchant has all of its money.
    expect(
      derivePayoutState(
        paid({
          merchantPaidBaseUnits: 26_730_000n,
          commissionBlockedSince: T0,
          commissionBlockedReason: 'x',
        }),
        policy,
        at(3_600_000),
      ).status,
    ).toBe('sent');
  });

  it('is not due for a payment not paid yet, and absent for one that expired with nothing', () => {
    expect(
      derivePayoutState({ ...paid(), status: 'pending', amountReceivedBaseUnits: 0n }, policy, T0).status,
    ).toBe('not_due');
    expect(
      derivePayoutState({ ...paid(), status: 'processing', amountReceivedBaseUnits: 0n }, policy, T0).status,
    ).toBe('not_due');
    // A payout already under way is reported as it is, whatever the payment's status says.
    const processing = { ...paid(), status: 'processing' as const };
    expect(
      derivePayoutState(
        { ...processing, payout: { ...NO_PAYOUT_YET, merchantPaidBaseUnits: 1n } },
        policy,
        T0,
      ).status,
    ).toBe('pending');
    expect(
      derivePayoutState({ ...processing, payout: { ...NO_PAYOUT_YET, blockedSince: T0 } }, policy, T0).status,
    ).toBe('pending');
    // A payment that failed (expired underpaid) is paid out what arrived: its payout is due.
    expect(
      derivePayoutState({ ...paid(), status: 'failed', amountReceivedBaseUnits: 5_000_000n }, policy, T0)
        .status,
    ).toBe('pending');
    expect(
      derivePayoutState({ ...paid(), status: 'expired', amountReceivedBaseUnits: 0n }, policy, T0).status,
    ).toBeNull();
  });

  it('is delayed from exactly the configured time after the merchant share started failing, with the reason', () => {
    const failing = paid({ blockedSince: T0, blockedReason: 'Blacklistable: account is blacklisted' });
    expect(derivePayoutState(failing, policy, at(policy.delayedAfterMs - 1)).status).toBe('pending');
    expect(derivePayoutState(failing, policy, at(policy.delayedAfterMs))).toEqual({
      status: 'delayed',
      delayedReason: 'Blacklistable: account is blacklisted',
      merchantOwedBaseUnits: 26_730_000n,
    });
    expect(payoutStateHoldsUntil(failing.payout, policy, at(1))).toEqual(at(policy.delayedAfterMs));
    expect(payoutStateHoldsUntil(failing.payout, policy, at(policy.delayedAfterMs))).toBeNull();
    expect(payoutStateHoldsUntil(NO_PAYOUT_YET, policy, T0)).toBeNull();
  });

  it('counts as sent while what is left is dust waiting for more', () => {
    const received = 27_005_000n; // 0.005 arrived after the flush of 27.00
    const state = {
      ...paid({ merchantPaidBaseUnits: 26_730_000n, treasuryPaidBaseUnits: 270_000n }),
      amountReceivedBaseUnits: received,
    };
    expect(derivePayoutState(state, policy, T0)).toMatchObject({
      status: 'sent',
      merchantOwedBaseUnits: 4_950n,
    });
    expect(derivePayoutState({ ...state, amountReceivedBaseUnits: 27_010_000n }, policy, T0).status).toBe(
      'pending',
    );
  });
});

describe('payout status, at the dust threshold and the commission’s rounding', () => {
  /** 27.00 paid out (26.73 and 0.27), and then `left` more arrived after the flush. */
  const withLeft = (left: bigint) => ({
    ...paid({ merchantPaidBaseUnits: 26_730_000n, treasuryPaidBaseUnits: 270_000n }),
    amountReceivedBaseUnits: 27_000_000n + left,
  });

  it('is sent with one base unit less than the dust threshold left, pending with exactly the threshold', () => {
    expect(derivePayoutState(withLeft(policy.dustThresholdBaseUnits - 1n), policy, T0).status).toBe('sent');
    expect(derivePayoutState(withLeft(policy.dustThresholdBaseUnits), policy, T0).status).toBe('pending');
  });

  it('is never sent while nothing went out, even when all that arrived is below the dust threshold', () => {
    // 0.005 USDC sent to a link that then expired: failed, and too little to flush yet.
    const dust = {
      ...paid(),
      status: 'failed' as const,
      amountReceivedBaseUnits: policy.dustThresholdBaseUnits / 2n,
    };
    expect(derivePayoutState(dust, policy, T0)).toEqual({
      status: 'pending',
      delayedReason: null,
      merchantOwedBaseUnits: 4_950n,
    });
  });

  it('gives the merchant the base unit the commission’s floor leaves: 1 % of 27.000099 is 0.270000', () => {
    const odd = { ...paid(), amountReceivedBaseUnits: 27_000_099n };
    expect(derivePayoutState(odd, policy, T0).merchantOwedBaseUnits).toBe(26_730_099n);
    const even = { ...paid(), amountReceivedBaseUnits: 27_000_100n };
    expect(derivePayoutState(even, policy, T0).merchantOwedBaseUnits).toBe(26_730_099n);
  });
});

describe('payout status, with a CCTP fee taken on the way to the home chain (decision 0034)', () => {
  /** 10 000 USDC paid on a source chain at 1 %; a fast transfer kept 1 USDC (1 bp), 9 999 arrived. */
  const fee = 1_000_000n;
  const bridged = (payout: Partial<PayoutProgress> = {}) => ({
    status: 'paid' as const,
    amountReceivedBaseUnits: 10_000_000_000n,
    commissionBps: 100,
    payout: { ...NO_PAYOUT_YET, bridgeFeeBaseUnits: fee, ...payout },
  });

  it('owes the merchant its share of what arrived, and is sent once that went out', () => {
    expect(payableBaseUnits(10_000_000_000n, bridged().payout)).toBe(9_999_000_000n);
    // Commission 1 % of 9 999 = 99.99; the merchant's share 9 899.01.
    expect(derivePayoutState(bridged(), policy, T0)).toEqual({
      status: 'pending',
      delayedReason: null,
      merchantOwedBaseUnits: 9_899_010_000n,
    });
    const flushed = bridged({ merchantPaidBaseUnits: 9_899_010_000n, treasuryPaidBaseUnits: 99_990_000n });
    expect(settledBaseUnits(flushed.payout)).toBe(10_000_000_000n);
    expect(derivePayoutState(flushed, policy, T0)).toEqual({
      status: 'sent',
      delayedReason: null,
      merchantOwedBaseUnits: 0n,
    });
  });

  it('is pending while one base unit of what arrived is owed and what is left reaches the dust threshold', () => {
    const state = bridged({ merchantPaidBaseUnits: 9_899_000_000n, treasuryPaidBaseUnits: 99_990_000n });
    // 0.01 left in the forwarder: exactly the dust threshold, so due.
    expect(derivePayoutState(state, policy, T0)).toMatchObject({
      status: 'pending',
      merchantOwedBaseUnits: 10_000n,
    });
    // The same 0.01 taken by CCTP instead: nothing more can be paid, sent.
    expect(
      derivePayoutState(
        { ...state, payout: { ...state.payout, bridgeFeeBaseUnits: fee + 10_000n } },
        policy,
        T0,
      ).status,
    ).toBe('sent');
  });

  it('a flush keeps the fee counted', () => {
    const after = payoutAfterFlush(bridged().payout, {
      merchantSentBaseUnits: 9_899_010_000n,
      feeSentBaseUnits: 99_990_000n,
      merchantOwedBaseUnits: 0n,
      feeOwedBaseUnits: 0n,
      txHash: '0xab',
      at: T0,
    });
    expect(after.bridgeFeeBaseUnits).toBe(fee);
    expect(settledBaseUnits(after)).toBe(10_000_000_000n);
  });
});

describe('payout progress', () => {
  it('backs off 10 s doubling to an hour, and keeps trying at an hour for ever', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(settlementRetryDelayMs)).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 2_560_000,
    ]);
    expect(settlementRetryDelayMs(10)).toBe(SETTLEMENT_RETRY_MAX_MS);
    expect(settlementRetryDelayMs(1_000_000)).toBe(SETTLEMENT_RETRY_MAX_MS);
    expect(() => settlementRetryDelayMs(0)).toThrow(RangeError);
  });

  it('a failure counts, waits its back-off, and keeps the first moment and the last reason of each share', () => {
    const once = payoutAfterFailure(NO_PAYOUT_YET, { commission: 'Pausable: paused' }, T0);
    expect(once).toMatchObject({
      failures: 1,
      retryAt: at(10_000),
      blockedSince: null,
      commissionBlockedSince: T0,
      commissionBlockedReason: 'Pausable: paused',
    });
    const twice = payoutAfterFailure(once, { merchant: 'm', commission: 'c' }, at(10_000));
    expect(twice).toMatchObject({
      failures: 2,
      retryAt: at(30_000),
      blockedSince: at(10_000),
      blockedReason: 'm',
      commissionBlockedSince: T0,
      commissionBlockedReason: 'c',
    });
    expect(() => payoutAfterFailure(NO_PAYOUT_YET, {}, T0)).toThrow(RangeError);
  });

  it('a flush adds what each side got; a share still held keeps its failure, one paid clears it', () => {
    const failing = payoutAfterFailure(NO_PAYOUT_YET, { merchant: 'm', commission: 'c' }, T0);
    const delayed = { ...failing, delayNotifiedAt: at(1) };
    const commissionStillHeld = payoutAfterFlush(delayed, {
      merchantSentBaseUnits: 26_730_000n,
      feeSentBaseUnits: 0n,
      merchantOwedBaseUnits: 0n,
      feeOwedBaseUnits: 270_000n,
      txHash: '0xaa',
      at: at(2),
    });
    expect(commissionStillHeld).toMatchObject({
      merchantPaidBaseUnits: 26_730_000n,
      txHash: '0xaa',
      sentAt: at(2),
      failures: 1,
      retryAt: failing.retryAt,
      blockedSince: null,
      blockedReason: null,
      delayNotifiedAt: null,
      commissionBlockedSince: T0,
    });
    const done = payoutAfterFlush(commissionStillHeld, {
      merchantSentBaseUnits: 0n,
      feeSentBaseUnits: 270_000n,
      merchantOwedBaseUnits: 0n,
      feeOwedBaseUnits: 0n,
      txHash: '0xbb',
      at: at(3),
    });
    // The commission alone moved: the merchant's payout transaction stays the one that paid it.
    expect(done).toMatchObject({
      treasuryPaidBaseUnits: 270_000n,
      txHash: '0xaa',
      sentAt: at(2),
      failures: 0,
      retryAt: null,
      commissionBlockedSince: null,
    });
    expect(() =>
      payoutAfterFlush(NO_PAYOUT_YET, {
        merchantSentBaseUnits: 0n,
        feeSentBaseUnits: 0n,
        merchantOwedBaseUnits: 1n,
        feeOwedBaseUnits: 0n,
        txHash: '0x',
        at: T0,
      }),
    ).toThrow(RangeError);
  });

  it('what was paid only ever grows, by exactly what was sent', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 10n })), {
          maxLength: 20,
        }),
        (flushes) => {
          let payout = NO_PAYOUT_YET;
          let merchant = 0n;
          let treasury = 0n;
          for (const [m, f] of flushes) {
            if (m + f === 0n) continue;
            payout = payoutAfterFlush(payout, {
              merchantSentBaseUnits: m,
              feeSentBaseUnits: f,
              merchantOwedBaseUnits: 0n,
              feeOwedBaseUnits: 0n,
              txHash: '0x1',
              at: T0,
            });
            merchant += m;
            treasury += f;
          }
          expect(payout.merchantPaidBaseUnits).toBe(merchant);
          expect(payout.treasuryPaidBaseUnits).toBe(treasury);
        },
      ),
    );
  });
});

describe('payout status, at its edges', () => {
  it('never owes a negative amount, even when more went out than the share', () => {
    expect(derivePayoutState(paid({ merchantPaidBaseUnits: 30_000_000n }), policy, T0)).toEqual({
      status: 'sent',
      delayedReason: null,
      merchantOwedBaseUnits: 0n,
    });
  });

  it('is not delayed once nothing is owed, however long ago a share failed', () => {
    const state = derivePayoutState(
      paid({ merchantPaidBaseUnits: 26_730_000n, blockedSince: at(-3_600_000), blockedReason: 'x' }),
      policy,
      T0,
    );
    expect(state.status).toBe('sent');
    expect(state.delayedReason).toBeNull();
  });

  it('says why it refuses a failure count below 1', () => {
    expect(() => settlementRetryDelayMs(0)).toThrow(new RangeError('failures must be ≥ 1, got 0'));
  });
});

describe('payout progress after an attempt, share by share', () => {
  it('records a merchant share that failed without touching the commission', () => {
    const next = payoutAfterFailure(NO_PAYOUT_YET, { merchant: 'blocked' }, T0);
    expect(next.blockedSince).toStrictEqual(T0);
    expect(next.blockedReason).toBe('blocked');
    expect(next.commissionBlockedSince).toBeNull();
    expect(next.commissionBlockedReason).toBeNull();
    expect(next.failures).toBe(1);
  });

  it('says a failure must name a share', () => {
    expect(() => payoutAfterFailure(NO_PAYOUT_YET, {}, T0)).toThrow(
      new RangeError('a payout failure names the share that failed'),
    );
  });

  const flush = (amounts: {
    merchantSent: bigint;
    feeSent: bigint;
    merchantOwed?: bigint;
    feeOwed?: bigint;
  }) => ({
    merchantSentBaseUnits: amounts.merchantSent,
    feeSentBaseUnits: amounts.feeSent,
    merchantOwedBaseUnits: amounts.merchantOwed ?? 0n,
    feeOwedBaseUnits: amounts.feeOwed ?? 0n,
    txHash: '0xabc',
    at: T0,
  });

  it('refuses a flush with a negative amount, or one that sent nothing', () => {
    for (const amounts of [
      { merchantSent: -1n, feeSent: 2n },
      { merchantSent: 1n, feeSent: -1n },
      { merchantSent: 1n, feeSent: 0n, merchantOwed: -1n },
      { merchantSent: 1n, feeSent: 0n, feeOwed: -1n },
    ]) {
      expect(() => payoutAfterFlush(NO_PAYOUT_YET, flush(amounts))).toThrow(
        new RangeError('a flush moves no negative amount'),
      );
    }
    expect(() => payoutAfterFlush(NO_PAYOUT_YET, flush({ merchantSent: 0n, feeSent: 0n }))).toThrow(
      new RangeError('a flush that sent nothing is a failure (payoutAfterFailure)'),
    );
  });

  it('takes a flush that sent the same to both sides', () => {
    const next = payoutAfterFlush(NO_PAYOUT_YET, flush({ merchantSent: 5n, feeSent: 5n }));
    expect(next.merchantPaidBaseUnits).toBe(5n);
    expect(next.treasuryPaidBaseUnits).toBe(5n);
  });

  it('keeps the merchant share’s failure while part of it is still held', () => {
    const failing = payoutAfterFailure(NO_PAYOUT_YET, { merchant: 'blocked' }, at(-60_000));
    const next = payoutAfterFlush(failing, flush({ merchantSent: 0n, feeSent: 7n, merchantOwed: 10n }));
    expect(next.blockedSince).toStrictEqual(at(-60_000));
    expect(next.blockedReason).toBe('blocked');
    expect(next.failures).toBe(1);
  });
});
