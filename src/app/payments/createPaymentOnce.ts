import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import type { Payment } from '../../domain/payment.ts';
import {
  type CreatePaymentDeps,
  type CreatePaymentInput,
  createPayment,
  depositPlannerFor,
} from './createPayment.ts';
import type { IdempotencyStore } from './ports.ts';

export interface CreatePaymentOnceDeps extends CreatePaymentDeps {
  readonly idempotency: IdempotencyStore;
}

export interface IdempotentRequest {
  /** The `Idempotency-Key` header. */
  readonly key: string;
  /** SHA-256 of the request body's bytes. */
  readonly requestHash: string;
}

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
/** A claim older than this with no payment belongs to a request that died; a retry may take it over. */
export const STALE_CLAIM_MS = 60_000;
/** What an Idempotency-Key may be (refunds take the same keys). */
export const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Payment creation made safe to retry: the same key and body give the same payment (the response is rebuilt
 * from it, byte for byte the same fields), never a second one. The key is completed in the transaction that
 * inserts the payment, so a crash either leaves no payment (the key can be retried) or a key that names it.
 */
export async function createPaymentOnce(
  deps: CreatePaymentOnceDeps,
  merchant: Merchant,
  input: CreatePaymentInput,
  request: IdempotentRequest,
  mode: KeyMode = 'live',
): Promise<{ payment: Payment; replayed: boolean }> {
  if (!KEY_PATTERN.test(request.key)) {
    throw new ValidationError('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
  }
  // Before claiming: a request that can never succeed must not hold a key.
  depositPlannerFor(deps.deposits, mode);
  const now = deps.clock.now();
  const claim = await deps.idempotency.claim({
    merchantId: merchant.id,
    mode,
    key: request.key,
    requestHash: request.requestHash,
    now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    staleClaimBefore: new Date(now.getTime() - STALE_CLAIM_MS),
  });
  switch (claim.kind) {
    case 'mismatch':
      throw new PaylinkError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was used with a different request body',
      );
    case 'in_progress':
      throw new PaylinkError(
        'IDEMPOTENCY_IN_PROGRESS',
        'A request with this Idempotency-Key is still in progress; retry shortly',
      );
    case 'replay': {
      const payment = await deps.payments.findForMerchant(merchant.id, claim.paymentId, mode);
      if (!payment) throw new Error(`idempotency key names a missing payment ${claim.paymentId}`);
      return { payment, replayed: true };
    }
    case 'claimed':
      try {
        return {
          payment: await createPayment(deps, merchant, input, { idempotencyKey: request.key, mode }),
          replayed: false,
        };
      } catch (error) {
        await deps.idempotency.release(merchant.id, mode, request.key);
        throw error;
      }
  }
}
