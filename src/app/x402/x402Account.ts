import type { KeyMode } from '../../domain/credentials.ts';
import { USDC } from '../../domain/currencies.ts';
import { PaylinkError } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { newPayment, type Payment } from '../../domain/payment.ts';
import { ONE, quote } from '../../domain/quote.ts';
import type { DepositPlanner } from '../payments/ports.ts';
import { timeOrderedId } from '../payments/timeOrderedId.ts';
import type { Clock } from '../shared/ports.ts';
import type { X402Store } from './ports.ts';

/** The merchant's x402 address takes whatever comes, for as long as the merchant sells through it. */
const X402_ACCOUNT_NEVER_EXPIRES = new Date('9999-12-31T00:00:00.000Z');

export interface X402AccountDeps {
  readonly x402: Pick<X402Store, 'accountOf' | 'insertAccount'>;
  readonly clock: Clock;
}

/**
 * The merchant's x402 address in this mode, made on first use: one forwarder per merchant, committed to its
 * wallet, the treasury and its commission as any payment's, whose address is the same on every chain (decision
 * 0028). It is a payment of kind `x402` priced at one base unit, so it is paid (and flushable) from the first
 * final transfer on, and every later transfer adds to what the settler flushes in its batches; it never expires.
 * No merchant listing shows it: each call is a payment of its own.
 *
 * It follows the merchant's current wallet and commission: once either changes, the next call gets a new address
 * committed to the new terms (migration 0051). The old address is kept, watched and flushed as before — to the
 * wallet and commission its forwarder committed to, which nothing can change (the service holds no key to it).
 */
export async function x402AccountFor(
  deps: X402AccountDeps,
  planner: DepositPlanner,
  merchant: Merchant,
  mode: KeyMode,
): Promise<Payment> {
  if (!merchant.walletAddress)
    throw new PaylinkError(
      'MERCHANT_NOT_CONFIGURED',
      'The merchant account has no wallet address configured; ask the administrator to set it',
    );
  const terms = { payoutAddress: merchant.walletAddress, commissionBps: merchant.commissionBps };
  const existing = await deps.x402.accountOf(merchant.id, mode, terms);
  if (existing) return existing;
  const id = timeOrderedId();
  const now = deps.clock.now();
  const account = newPayment({
    id,
    kind: 'x402',
    merchantId: merchant.id,
    mode,
    quote: quote({ currency: USDC, minorUnits: 1n }, ONE, merchant.commissionBps),
    rateSource: 'x402',
    rateObservedAt: now,
    underpaymentToleranceBps: 0,
    payoutAddress: merchant.walletAddress,
    expiresAt: X402_ACCOUNT_NEVER_EXPIRES,
    createdAt: now,
    deposit: planner.plan({
      paymentId: id,
      merchantWallet: merchant.walletAddress,
      commissionBps: merchant.commissionBps,
    }),
  });
  // Two first calls at once: the partial unique index keeps one, and both answer it.
  return deps.x402.insertAccount(account);
}
