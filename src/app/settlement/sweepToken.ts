import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { PaymentStore } from '../payments/ports.ts';
import type { SettlementStore } from './ports.ts';

export interface SweepTokenDeps {
  readonly payments: Pick<PaymentStore, 'findById'>;
  readonly settlements: Pick<SettlementStore, 'requestSweep'>;
  /** What `holder` holds of `token` now, in the token's base units (the chain). */
  readonly tokenBalance: (token: string, holder: string) => Promise<bigint>;
}

/**
 * Forwards a token that does not pay (sent to a payment by mistake) out of the payment's deposit address, split
 * like any payout: the merchant's share to the merchant, the commission to the treasury. Only asks: the settler
 * flushes it on its next pass (it owns the relayer's nonces). Returns what will be forwarded, in base units.
 */
export async function sweepToken(
  deps: SweepTokenDeps,
  paymentId: string,
  tokenAddress: string,
): Promise<bigint> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(tokenAddress))
    throw new ValidationError('token', 'must be a 0x token address');
  const payment = await deps.payments.findById(paymentId.trim().toLowerCase());
  if (!payment?.deposit) throw new PaylinkError('NOT_FOUND', 'Payment not found');
  const balance = await deps.tokenBalance(tokenAddress, payment.deposit.depositAddress);
  if (balance === 0n) {
    throw new PaylinkError(
      'CONFLICT',
      "The payment's deposit address holds none of this token: nothing to sweep",
    );
  }
  if (!(await deps.settlements.requestSweep(payment.id, tokenAddress, balance))) {
    throw new PaylinkError('CONFLICT', 'This token pays: it is settled with the payment, not swept');
  }
  return balance;
}
