import { type PayoutFailureCause, payoutAfterFailure } from '../../domain/payout.ts';
import type { Clock } from '../shared/ports.ts';
import type { SettlementStore } from './ports.ts';

export interface PayoutFailure {
  readonly paymentId: string;
  readonly cause: PayoutFailureCause;
}

/**
 * Records failed flush attempts: each payment counts one more failure, waits out its back-off, and keeps why
 * and since when each share is held up — read and written under the payment's row lock.
 */
export async function recordPayoutFailures(
  deps: { readonly settlements: SettlementStore; readonly clock: Clock },
  failures: readonly PayoutFailure[],
): Promise<void> {
  if (failures.length === 0) return;
  const at = deps.clock.now();
  const causes = new Map(failures.map((f) => [f.paymentId, f.cause]));
  await deps.settlements.transaction(async (tx) => {
    for (const payment of await tx.lockPayments([...causes.keys()])) {
      await tx.savePayout(payment.id, payoutAfterFailure(payment.payout, causes.get(payment.id)!, at), at);
    }
  });
}
