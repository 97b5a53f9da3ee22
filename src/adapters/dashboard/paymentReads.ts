import { getPaymentStatus } from '../../app/payments/getPaymentStatus.ts';
import type { ListedPayment } from '../../app/payments/listPayments.ts';
import { refundFundingOf } from '../../domain/refund.ts';
import type { DashboardDeps } from './dashboardDeps.ts';

/**
 * What refunds sent back to the customer, per payment of a page that has received money (the list says
 * "partly refunded" or "refunded" instead of "paid"). One read per such payment: a page is at most 100.
 */
export async function refundedOf(
  deps: DashboardDeps,
  payments: readonly ListedPayment[],
): Promise<Map<string, bigint>> {
  const refunded = new Map<string, bigint>();
  const store = deps.refunds?.store;
  if (!store) return refunded;
  await Promise.all(
    payments
      .filter(({ state }) => state.amountReceivedBaseUnits > 0n)
      .map(async ({ payment }) => {
        let sent = 0n;
        for (const { deposit } of await store.listForPayment(payment.id))
          sent += refundFundingOf(deposit).sentBaseUnits;
        if (sent > 0n) refunded.set(payment.id, sent);
      }),
  );
  return refunded;
}

/** Payments by id (a search's, or what waits) with their status now; an id that names none is left out. */
export async function paymentsByIds(deps: DashboardDeps, ids: readonly string[]): Promise<ListedPayment[]> {
  const found = await Promise.all(
    ids.map(async (id) => {
      const payment = await deps.payments.findById(id);
      if (!payment) return undefined;
      const { state } = await getPaymentStatus(deps, payment.merchantId, payment.id, payment.mode);
      return { payment, state };
    }),
  );
  return found.filter((p) => p !== undefined);
}
