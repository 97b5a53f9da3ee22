import type { SubscriberArgs, SubscriberConfig } from '@medusajs/framework';
import { ContainerRegistrationKeys, Modules, PaymentWebhookEvents } from '@medusajs/framework/utils';
import { paylinkOptionsIn } from '../recheck/pendingSessions';
import { applyRefundWebhook, type ReceivedWebhook } from '../refunds/refundWebhook';

/** Paylink's refund.* webhooks, received on the provider's `/hooks/payment/paylink_<id>` route. */
export default async function paylinkRefundWebhook({ event, container }: SubscriberArgs<ReceivedWebhook>) {
  const provider = paylinkOptionsIn(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).find(
    (entry) => entry.providerId === `pp_${event.data.provider}`,
  );
  if (!provider) return;
  await applyRefundWebhook(
    event.data,
    provider.options,
    container.resolve(Modules.PAYMENT),
    container.resolve(ContainerRegistrationKeys.LOGGER),
  );
}

export const config: SubscriberConfig = {
  event: PaymentWebhookEvents.WebhookReceived,
  context: { subscriberId: 'paylink-refund-webhook' },
};
