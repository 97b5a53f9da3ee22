import { newWebhookSecret } from '../../domain/credentials.ts';
import { ValidationError } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { getMerchant, MerchantNotFoundError } from '../merchants/merchantAdmin.ts';
import type { MerchantStore } from '../merchants/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { WebhookStore } from './ports.ts';

/** Long enough for a merchant to deploy the new secret; the old one must not live on indefinitely. */
export const DEFAULT_SECRET_OVERLAP_MS = 24 * 3_600_000;
export const MAX_SECRET_OVERLAP_MS = 30 * 24 * 3_600_000;

export interface RotatedWebhookSecret {
  readonly merchant: Merchant;
  /** Shown once, like at creation. */
  readonly webhookSecret: string;
  /** Until then webhooks carry a signature with the old secret as well. */
  readonly previousSecretValidUntil: Date;
}

/**
 * Issues a new webhook signing secret. During the overlap every webhook carries two signatures (new and old,
 * space-separated in `webhook-signature`), so the merchant can switch its verification to the new secret at
 * any moment in that window without rejecting a single webhook. A rotation during an overlap ends the older
 * secret at once: at most two secrets ever sign.
 */
export async function rotateWebhookSecret(
  deps: { readonly merchants: MerchantStore; readonly webhooks: WebhookStore; readonly clock: Clock },
  merchantId: string,
  overlapMs: number = DEFAULT_SECRET_OVERLAP_MS,
): Promise<RotatedWebhookSecret> {
  if (!Number.isSafeInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_SECRET_OVERLAP_MS) {
    throw new ValidationError('overlap', 'must be a duration from 0 to 30d');
  }
  await getMerchant(deps, merchantId);
  const now = deps.clock.now();
  const webhookSecret = newWebhookSecret();
  const previousSecretValidUntil = new Date(now.getTime() + overlapMs);
  if (!(await deps.webhooks.rotateSecret(merchantId, webhookSecret, previousSecretValidUntil, now))) {
    throw new MerchantNotFoundError();
  }
  return { merchant: await getMerchant(deps, merchantId), webhookSecret, previousSecretValidUntil };
}
