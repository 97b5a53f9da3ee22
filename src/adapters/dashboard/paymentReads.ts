import { getPaymentStatus } from '../../app/payments/getPaymentStatus.ts';
import type { ListedPayment } from '../../app/payments/listPayments.ts';
import type { DashboardDeps } from './dashboardDeps.ts';

/**
 * What refunds sent back to the customer, per payment of a page that has received money (the list says
 * "partly refunded" or "refunded" instead of "paid"): one read for the page.
 */
export async function refundedOf(
  deps: DashboardDeps,
  payments: readonly ListedPayment[],
): Promise<Map<string, bigint>> {
  const store = deps.refunds?.store;
  if (!store) return new Map();
  return store.sentByPayment(
    payments.filter(({ state }) => state.amountReceivedBaseUnits > 0n).map(({ payment }) => payment.id),
  );
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
