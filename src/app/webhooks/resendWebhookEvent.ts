import { PaylinkError } from '../../domain/errors.ts';
import type { Clock } from '../shared/ports.ts';
import { WebhookEventNotFoundError } from './listWebhookEvents.ts';
import type { WebhookEventRecord, WebhookStore } from './ports.ts';

/**
 * Sends an event again: whatever its state (delivered, failed, stopped, waiting for a retry), it is due at once
 * with a fresh retry schedule, the same `webhook-id` and the same body. Refused while an attempt is in flight,
 * so an operator's resend never races a worker's result.
 */
export async function resendWebhookEvent(
  deps: { readonly webhooks: WebhookStore; readonly clock: Clock },
  eventId: string,
): Promise<WebhookEventRecord> {
  const outcome = await deps.webhooks.requeue(eventId, deps.clock.now());
  if (outcome === 'not_found') throw new WebhookEventNotFoundError();
  if (outcome === 'in_flight') {
    throw new PaylinkError(
      'CONFLICT',
      'The event is being delivered right now; try again once the attempt ends',
    );
  }
  const event = await deps.webhooks.findEvent(eventId);
  if (!event) throw new WebhookEventNotFoundError();
  return event;
}
