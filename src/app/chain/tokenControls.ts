import { PaylinkError } from '../../domain/errors.ts';

/**
 * What the payment token itself says about moving money now: USDC's issuer can blacklist an address (it can then
 * neither send nor receive) and pause every transfer. Answers are undefined when the token cannot tell: it has no
 * such function (it is simply not checked), or the node did not answer (an RPC failure never blocks a sale).
 */
export interface TokenControls {
  isBlacklisted(account: string): Promise<boolean | undefined>;
  isPaused(): Promise<boolean | undefined>;
}

/** The token controls of each mode's chain; absent: not checked. */
export interface TokenControlsByMode {
  readonly live?: TokenControls | undefined;
  readonly test?: TokenControls | undefined;
}

const WALLET_BLOCKED_MESSAGE =
  "The merchant's payout wallet is blacklisted by the token (USDC): payments to it could not be paid out. Ask the administrator to set another wallet";

/**
 * Refuses to sell a link whose money could not reach the merchant: a payout wallet the token blacklists
 * (409 MERCHANT_WALLET_BLOCKED), or a paused token (503 TOKEN_PAUSED: customers could not pay either).
 */
export async function assertTokenCanPay(controls: TokenControls | undefined, wallet: string): Promise<void> {
  if (!controls) return;
  const [blacklisted, paused] = await Promise.all([controls.isBlacklisted(wallet), controls.isPaused()]);
  if (blacklisted === true) throw new PaylinkError('MERCHANT_WALLET_BLOCKED', WALLET_BLOCKED_MESSAGE);
  if (paused === true) {
    throw new PaylinkError(
      'TOKEN_PAUSED',
      'USDC transfers are paused by the token issuer right now: no payment can be made; try again later',
    );
  }
}

/** Refuses to set a payout wallet the token blacklists (merchant create and update). */
export async function assertWalletCanReceive(
  controls: TokenControls | undefined,
  wallet: string | null,
): Promise<void> {
  if (!controls || wallet === null) return;
  if ((await controls.isBlacklisted(wallet)) === true) {
    throw new PaylinkError(
      'MERCHANT_WALLET_BLOCKED',
      'wallet_address is blacklisted by the token (USDC): it could receive no payout',
      { field: 'wallet_address' },
    );
  }
}
