import { describe, expect, it } from 'vitest';
import { assertTokenCanPay, assertWalletCanReceive, type TokenControls } from './tokenControls.ts';

const WALLET = '0x00000000000000000000000000000000000000b1';

/** A token that answers as told (undefined: it cannot tell), and records whom it was asked about. */
function token(blacklisted: boolean | undefined, paused: boolean | undefined) {
  const asked: string[] = [];
  const controls: TokenControls = {
    isBlacklisted: async (account) => {
      asked.push(account);
      return blacklisted;
    },
    isPaused: async () => paused,
  };
  return { controls, asked };
}

describe('assertTokenCanPay', () => {
  it('sells when the token says the wallet is free and transfers run, or cannot tell', async () => {
    for (const [blacklisted, paused] of [
      [false, false],
      [undefined, undefined],
      [false, undefined],
      [undefined, false],
    ] as const) {
      const { controls, asked } = token(blacklisted, paused);
      await expect(assertTokenCanPay(controls, WALLET)).resolves.toBeUndefined();
      expect(asked).toEqual([WALLET]);
    }
    await expect(assertTokenCanPay(undefined, WALLET)).resolves.toBeUndefined();
  });

  it('refuses a blacklisted payout wallet with 409, before a pause', async () => {
    await expect(assertTokenCanPay(token(true, true).controls, WALLET)).rejects.toMatchObject({
      code: 'MERCHANT_WALLET_BLOCKED',
      status: 409,
      message:
        "The merchant's payout wallet is blacklisted by the token (USDC): payments to it could not be paid out. Ask the administrator to set another wallet",
    });
  });

  it('refuses while the token is paused with 503', async () => {
    await expect(assertTokenCanPay(token(false, true).controls, WALLET)).rejects.toMatchObject({
      code: 'TOKEN_PAUSED',
      status: 503,
      message:
        'USDC transfers are paused by the token issuer right now: no payment can be made; try again later',
    });
  });
});

describe('assertWalletCanReceive', () => {
  it('refuses a blacklisted wallet on the wallet_address field, and takes one the token cannot tell about', async () => {
    await expect(assertWalletCanReceive(token(true, false).controls, WALLET)).rejects.toMatchObject({
      code: 'MERCHANT_WALLET_BLOCKED',
      field: 'wallet_address',
      message: 'wallet_address is blacklisted by the token (USDC): it could receive no payout',
    });
    for (const blacklisted of [false, undefined]) {
      const { controls, asked } = token(blacklisted, true);
      await expect(assertWalletCanReceive(controls, WALLET)).resolves.toBeUndefined();
      expect(asked).toEqual([WALLET]);
    }
  });

  it('asks nothing without controls or without a wallet', async () => {
    const { controls, asked } = token(true, true);
    await expect(assertWalletCanReceive(controls, null)).resolves.toBeUndefined();
    await expect(assertWalletCanReceive(undefined, WALLET)).resolves.toBeUndefined();
    expect(asked).toEqual([]);
  });
});
