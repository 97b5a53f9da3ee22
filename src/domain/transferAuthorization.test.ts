import { describe, expect, it } from 'vitest';
import { testPayment } from '../../test/fakes/paymentFixture.ts';
import type { PaymentState } from './paymentStatus.ts';
import {
  AUTHORIZATION_REFUSALS,
  describeRefusal,
  MIN_VALIDITY_LEFT_S,
  refuseAuthorization,
  signedTransferDueBaseUnits,
  type TransferAuthorization,
  VALID_BEFORE_AFTER_EXPIRY_S,
} from './transferAuthorization.ts';

const DEPOSIT = '0x1111111111111111111111111111111111111111';
const CUSTOMER = '0x2222222222222222222222222222222222222222';
const NOW_S = 1_800_000_000n;
const EXPIRES_S = NOW_S + 3_600n;
const terms = {
  depositAddress: DEPOSIT,
  amountDueBaseUnits: 27_000_000n,
  minValueBaseUnits: 500_000n,
  expiresAt: new Date(Number(EXPIRES_S) * 1000),
  now: new Date(Number(NOW_S) * 1000 + 400), // mid-second: the token compares whole seconds
};
const fits: TransferAuthorization = {
  from: CUSTOMER,
  to: DEPOSIT,
  valueBaseUnits: 27_000_000n,
  validAfter: 0n,
  validBefore: EXPIRES_S,
  nonce: `0x${'ab'.repeat(32)}`,
};
const refusal = (changes: Partial<TransferAuthorization>, termChanges: Partial<typeof terms> = {}) =>
  refuseAuthorization({ ...fits, ...changes }, { ...terms, ...termChanges });

describe('refuseAuthorization', () => {
  it('accepts an authorization of exactly the amount due to the deposit address', () => {
    expect(refusal({})).toBeUndefined();
  });

  it('refuses another recipient, and a transfer signed by the deposit address itself', () => {
    expect(refusal({ to: CUSTOMER })).toBe('WRONG_RECIPIENT');
    expect(refusal({ from: DEPOSIT })).toBe('SELF_TRANSFER');
  });

  it('takes exactly what is due: one base unit more or less is refused, and so is dust', () => {
    expect(refusal({ valueBaseUnits: 27_000_001n })).toBe('VALUE_ABOVE_DUE');
    expect(refusal({ valueBaseUnits: 26_999_999n })).toBe('VALUE_BELOW_DUE');
    expect(refusal({ valueBaseUnits: 1n })).toBe('VALUE_BELOW_DUE');
    expect(refusal({ valueBaseUnits: 0n })).toBe('ZERO_VALUE');
    expect(refusal({ valueBaseUnits: 1n }, { amountDueBaseUnits: 0n })).toBe('NOTHING_DUE');
  });

  it('takes a remainder only when it is at least the minimum the relayer sends', () => {
    expect(refusal({ valueBaseUnits: 500_000n }, { amountDueBaseUnits: 500_000n })).toBeUndefined();
    expect(refusal({ valueBaseUnits: 499_999n }, { amountDueBaseUnits: 499_999n })).toBe('DUE_BELOW_MINIMUM');
    expect(describeRefusal('DUE_BELOW_MINIMUM', { ...terms, amountDueBaseUnits: 499_999n })).toBe(
      'The 0.499999 USDC still due is below 0.50 USDC, the least a signed transfer may carry: send it from your wallet',
    );
    expect(describeRefusal('VALUE_BELOW_DUE', terms)).toBe(
      'The authorization transfers less than is due on this payment: sign a transfer of exactly 27.00 USDC',
    );
  });

  it('must be valid now: validAfter strictly before the current second', () => {
    expect(refusal({ validAfter: NOW_S - 1n })).toBeUndefined();
    expect(refusal({ validAfter: NOW_S })).toBe('NOT_YET_VALID');
  });

  it(`must stay valid ${MIN_VALIDITY_LEFT_S} s more, to be mined`, () => {
    expect(refusal({ validBefore: NOW_S + MIN_VALIDITY_LEFT_S })).toBeUndefined();
    expect(refusal({ validBefore: NOW_S + MIN_VALIDITY_LEFT_S - 1n })).toBe('EXPIRES_TOO_SOON');
  });

  it(`may outlive the link by ${VALID_BEFORE_AFTER_EXPIRY_S} s, not one second more`, () => {
    expect(refusal({ validBefore: EXPIRES_S + VALID_BEFORE_AFTER_EXPIRY_S })).toBeUndefined();
    expect(refusal({ validBefore: EXPIRES_S + VALID_BEFORE_AFTER_EXPIRY_S + 1n })).toBe('OUTLIVES_LINK');
    // A link expiring mid-second counts from the next whole second.
    const midSecond = new Date(Number(EXPIRES_S) * 1000 - 500);
    expect(refusal({ validBefore: EXPIRES_S + VALID_BEFORE_AFTER_EXPIRY_S }, { expiresAt: midSecond })).toBe(
      undefined,
    );
  });

  it('explains every refusal in words', () => {
    for (const message of Object.values(AUTHORIZATION_REFUSALS)) expect(message.length).toBeGreaterThan(10);
  });
});

describe('describeRefusal, each kind', () => {
  it('tells the amount to sign for a value above or below what is due, and the plain refusal otherwise', () => {
    expect(describeRefusal('VALUE_ABOVE_DUE', terms)).toBe(
      'The authorization transfers more than is due on this payment: sign a transfer of exactly 27.00 USDC',
    );
    expect(describeRefusal('NOT_YET_VALID', terms)).toBe('The authorization is not valid yet');
  });
});

describe('signedTransferDueBaseUnits', () => {
  // 10 USDC at a 1 % tolerance: paid from 9.90 USDC.
  const payment = testPayment(1, { underpaymentToleranceBps: 100 });
  const state = (status: PaymentState['status'], seen: bigint) =>
    ({ status, amountSeenBaseUnits: seen }) as PaymentState;

  it('asks the price less what was seen and what was relayed but not seen yet', () => {
    expect(signedTransferDueBaseUnits(payment, state('processing', 4_000_000n), 1_000_000n)).toBe(5_000_000n);
    expect(signedTransferDueBaseUnits(payment, state('pending', 0n), 0n)).toBe(10_000_000n);
  });

  it('asks nothing once that reaches the tolerated threshold, and the whole rest a base unit below it', () => {
    expect(signedTransferDueBaseUnits(payment, state('processing', 9_900_000n), 0n)).toBe(0n);
    expect(signedTransferDueBaseUnits(payment, state('processing', 9_899_999n), 0n)).toBe(100_001n);
  });

  it('asks nothing of a paid payment', () => {
    expect(signedTransferDueBaseUnits(payment, state('paid', 0n), 0n)).toBe(0n);
  });
});
