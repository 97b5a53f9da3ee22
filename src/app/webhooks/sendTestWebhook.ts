import { newEventId } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { signWebhook } from '../../domain/webhookSignature.ts';
import { getMerchant } from '../merchants/merchantAdmin.ts';
import type { MerchantStore } from '../merchants/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { WebhookResponse, WebhookSender } from './ports.ts';

const TEST_WEBHOOK_EVENT = 'webhook.test';

export interface TestWebhookResult {
  readonly id: string;
  readonly url: string;
  readonly body: string;
  readonly response: WebhookResponse;
}

/**
 * Sends one `webhook.test` event to the merchant's webhook URL, signed like every webhook (Standard Webhooks)
 * with its current secret, and returns what the receiver answered. One attempt, outside the outbox: a test is
 * not a payment's event, so it is neither retried nor listed with them, and the person who asked sees the
 * answer at once. It goes through the same sender as real webhooks, so the same addresses are refused.
 */
export async function sendTestWebhook(
  deps: { readonly merchants: MerchantStore; readonly sender: WebhookSender; readonly clock: Clock },
  merchantId: string,
): Promise<TestWebhookResult> {
  const merchant = await getMerchant(deps, merchantId);
  if (merchant.webhookUrl === null)
    throw new PaylinkError('VALIDATION_ERROR', 'No webhook URL is set: ask the administrator to set one');
  const now = deps.clock.now();
  const id = newEventId();
  const body = JSON.stringify({
    id,
    event: TEST_WEBHOOK_EVENT,
    created_at: now.toISOString(),
    merchant_id: merchant.id,
    livemode: false,
  });
  const headers = signWebhook({ id, timestamp: now, body, secrets: [merchant.webhookSecret] });
  const response = await deps.sender.send({ url: merchant.webhookUrl, headers, body });
  return { id, url: merchant.webhookUrl, body, response };
}
