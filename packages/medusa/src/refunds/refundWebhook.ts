import type { IPaymentModuleService, Logger } from '@medusajs/framework/types';
import type { PaylinkOptions } from '../providers/paylink/options';
import { paylinkSdk } from '../providers/paylink/sdk';
import { withRefund } from './refundEntries';

const DEFAULT_TOLERANCE_SECONDS = 300;

/** What Medusa's `/hooks/payment/:provider` route emits as `payment.webhook_received`. */
export interface ReceivedWebhook {
  readonly provider: string;
  readonly payload: {
    readonly rawData?: unknown;
    readonly headers?: Record<string, unknown>;
  };
}

/**
 * A verified `refund.*` webhook brings the refund kept in its Medusa payment's data up to date: status, address,
 * transaction. The provider's webhook hook cannot change a payment's data (Medusa only takes an action from it),
 * so this runs beside it on the same event. The event only says which refund changed: what is stored is the
 * refund as Paylink's API shows it now, so a replayed or late event writes nothing older than what is there.
 */
export async function applyRefundWebhook(
  webhook: ReceivedWebhook,
  options: PaylinkOptions,
  payments: IPaymentModuleService,
  logger: Logger,
): Promise<void> {
  const sdk = await paylinkSdk();
  let event: Awaited<ReturnType<typeof sdk.verifyWebhook>>;
  try {
    event = await sdk.verifyWebhook(
      rawBody(webhook.payload.rawData),
      (webhook.payload.headers ?? {}) as Record<string, string>,
      options.webhookSecret,
      { toleranceSeconds: options.webhookToleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS },
    );
  } catch {
    // The provider's hook logs why; nothing is read or written for a webhook that does not verify.
    return;
  }
  if (!event.event.startsWith('refund.') || !('refund_id' in event)) return;
  const client = new sdk.PaylinkClient({ apiKey: options.apiKey, baseUrl: options.apiUrl });
  try {
    const refund = await client.getRefund(event.refund_id);
    const paid = await client.getPayment(refund.payment_id);
    const sessionId = (paid.metadata as Record<string, unknown> | null | undefined)?.session_id;
    if (typeof sessionId !== 'string') return;
    const [payment] = await payments.listPayments(
      { payment_session_id: sessionId },
      { select: ['id', 'data'] },
    );
    const data = (payment?.data ?? {}) as Record<string, unknown>;
    const refunds = withRefund(Array.isArray(data.refunds) ? data.refunds : [], refund);
    if (!payment || !refunds) return;
    // Medusa's type for updatePayment names only the id; the payment module writes the data given with it.
    await payments.updatePayment({ id: payment.id, data: { ...data, refunds } } as { id: string });
    logger.info(
      `Paylink: refund ${refund.refund_id} of payment ${payment.id} is ${refund.status} (${event.event})`,
    );
  } catch (error) {
    logger.warn(
      `Paylink: refund ${event.refund_id} could not be brought up to date on its payment (${event.event}): ${
        (error as Error).message
      }; the admin's payment view asks Paylink again`,
    );
  }
}

/** The body as Medusa kept it: a Buffer, or one serialized by the event bus ({ type: 'Buffer', data }). */
function rawBody(raw: unknown): string | Uint8Array {
  if (typeof raw === 'string' || raw instanceof Uint8Array) return raw;
  const serialized = raw as { type?: unknown; data?: unknown } | undefined;
  if (serialized?.type === 'Buffer' && Array.isArray(serialized.data))
    return Uint8Array.from(serialized.data as number[]);
  return '';
}
