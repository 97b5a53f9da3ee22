import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { processPaymentWorkflow } from '@medusajs/medusa/core-flows';
import { paylinkOptionsIn, recheckablePayments } from '../recheck/pendingSessions';

/**
 * The safety net for a webhook that never arrived (the shop was down, a proxy dropped it): every pending
 * Paylink session of the last two days is asked of Paylink's status API, and a paid one goes through the
 * same workflow a webhook starts, which completes the cart into an order and records the capture.
 */
export default async function paylinkRecheckPending(container: MedusaContainer): Promise<void> {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER);
  const configModule = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE);
  const providers = paylinkOptionsIn(configModule);
  if (providers.length === 0) return;
  const query = container.resolve(ContainerRegistrationKeys.QUERY);
  for (const paid of await recheckablePayments(query, providers, logger)) {
    try {
      await processPaymentWorkflow(container).run({
        input: { action: 'authorized', data: { session_id: paid.sessionId, amount: paid.amount } },
      });
      logger.info(`Paylink: payment ${paid.paymentId} is paid; its cart is completed (no webhook came)`);
    } catch (error) {
      logger.warn(`Paylink: payment ${paid.paymentId} is paid, completing its cart failed: ${String(error)}`);
    }
  }
}

export const config = {
  name: 'paylink-recheck-pending',
  // Milliseconds between passes (default a minute); PAYLINK_RECHECK_INTERVAL_MS changes it.
  schedule: { interval: Number(process.env.PAYLINK_RECHECK_INTERVAL_MS ?? 60_000) },
};
