import { describe, expect, it } from 'vitest';
import { testPayment } from '../../../test/fakes/paymentFixture.ts';
import { type SweepTokenDeps, sweepToken } from './sweepToken.ts';

const TOKEN = '0x00000000000000000000000000000000000000aa';
/** An id with letters in it, as stored: lowercase. */
const payment = testPayment(0xabc);

function deps(balance: bigint, pays = false) {
  const requested: [string, string, bigint][] = [];
  const read: [string, string][] = [];
  const d: SweepTokenDeps = {
    payments: { findById: async (id) => (id === payment.id ? payment : undefined) },
    settlements: {
      requestSweep: async (paymentId, token, amount) => {
        requested.push([paymentId, token, amount]);
        return !pays;
      },
    },
    tokenBalance: async (token, holder) => {
      read.push([token, holder]);
      return balance;
    },
  };
  return { d, requested, read };
}

describe('sweepToken', () => {
  it('asks for one base unit to be swept, the least there is, from the payment’s deposit address', async () => {
    const { d, requested, read } = deps(1n);
    expect(await sweepToken(d, ` ${payment.id.toUpperCase()} `, TOKEN)).toBe(1n);
    expect(read).toEqual([[TOKEN, payment.deposit!.depositAddress]]);
    expect(requested).toEqual([[payment.id, TOKEN, 1n]]);
  });

  it('refuses to sweep nothing', async () => {
    const { d, requested } = deps(0n);
    await expect(sweepToken(d, payment.id, TOKEN)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: "The payment's deposit address holds none of this token: nothing to sweep",
    });
    expect(requested).toEqual([]);
  });

  it('refuses a token that pays, an unknown payment and a malformed token address', async () => {
    await expect(sweepToken(deps(5n, true).d, payment.id, TOKEN)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'This token pays: it is settled with the payment, not swept',
    });
    await expect(sweepToken(deps(5n).d, 'pay_unknown', TOKEN)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Payment not found',
    });
    for (const token of [`${TOKEN}0`, TOKEN.slice(0, -1), `x${TOKEN}`, TOKEN.replace('0x', '0y')]) {
      await expect(sweepToken(deps(5n).d, payment.id, token)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        field: 'token',
        message: 'token: must be a 0x token address',
      });
    }
  });

  it('refuses a payment without a deposit address as not found', async () => {
    const bare = { ...payment, deposit: null };
    const d: SweepTokenDeps = { ...deps(5n).d, payments: { findById: async () => bare } };
    await expect(sweepToken(d, payment.id, TOKEN)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
