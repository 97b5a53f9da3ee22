import { randomUUID } from 'node:crypto';
import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import {
  assertWithinReceived,
  countsAgainstPayment,
  deriveRefundStatus,
  OVERPAID,
  type Refund,
  refundAmountBaseUnits,
  refundFundingOf,
} from '../../domain/refund.ts';
import { plainText } from '../../domain/text.ts';
import { queueRefundNotice, type RefundNoticeSettings } from '../email/refundNotices.ts';
import { depositPlannerFor } from '../payments/createPayment.ts';
import { KEY_PATTERN } from '../payments/createPaymentOnce.ts';
import { isPaymentId } from '../payments/getPaymentStatus.ts';
import type { Clock } from '../shared/ports.ts';
import type { RefundRecord, RefundStore } from './ports.ts';
import { checkRefundAddress, type RefundAddressDeps, refundDeposit } from './refundAddress.ts';
import { insertRefundEvent } from './refundEvents.ts';

export interface CreateRefundDeps extends RefundAddressDeps {
  readonly refunds: RefundStore;
  readonly clock: Clock;
  /** How long the customer has to give an address (default 30 days). */
  readonly refundClaimTtlMs: number;
  /** Notices to the customer, where e-mail is configured: a refund without an address asks for theirs. */
  readonly refundNotices?: RefundNoticeSettings | undefined;
}

export interface CreateRefundInput {
  readonly paymentId: string;
  readonly amount: string;
  readonly currency?: string | undefined;
  readonly reason?: string | undefined;
  readonly address?: string | undefined;
}

const MAX_REASON_LENGTH = 500;

/**
 * Creates a refund of a payment, in one transaction holding the payment's row: so two concurrent refunds can
 * never together exceed what it received. With an address its deposit address exists at once; without, the
 * customer gives one on the claim page. With an idempotency key the same key and body give the same refund.
 */
export async function createRefund(
  deps: CreateRefundDeps,
  merchantId: string,
  mode: KeyMode,
  input: CreateRefundInput,
  idempotency?: { readonly key: string; readonly requestHash: string },
): Promise<{ record: RefundRecord; replayed: boolean }> {
  const paymentId = input.paymentId.trim().toLowerCase();
  if (!isPaymentId(paymentId)) throw new ValidationError('payment_id', 'must be a payment id (UUID)');
  if (idempotency && !KEY_PATTERN.test(idempotency.key))
    throw new ValidationError('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
  const reason = input.reason?.trim() ? plainText('reason', input.reason.trim()) : null;
  if (reason !== null && reason.length > MAX_REASON_LENGTH)
    throw new ValidationError('reason', `must be at most ${MAX_REASON_LENGTH} characters`);
  const planner = depositPlannerFor(deps.deposits, mode);
  const address = input.address?.trim()
    ? await checkRefundAddress(deps, mode, 'address', input.address)
    : null;

  const now = deps.clock.now();
  return deps.refunds.transaction(async (t) => {
    const payment = await t.lockPayment(paymentId, now);
    if (!payment || payment.merchantId !== merchantId || payment.mode !== mode)
      throw new PaylinkError('NOT_FOUND', 'Payment not found');
    if (idempotency) {
      const earlier = await t.findByIdempotencyKey(merchantId, mode, idempotency.key);
      if (earlier) {
        if (earlier.requestHash !== idempotency.requestHash)
          throw new PaylinkError(
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was used with a different request body',
          );
        return { record: earlier.record, replayed: true };
      }
    }
    const counted = (await t.refundsOf(paymentId))
      .filter((r) => countsAgainstPayment(deriveRefundStatus(r.refund, refundFundingOf(r.deposit), now)))
      .map((r) => r.refund.amountBaseUnits);
    const amountBaseUnits = refundAmountBaseUnits(
      payment,
      input,
      counted.reduce((sum, amount) => sum + amount, 0n),
    );
    assertWithinReceived(payment, amountBaseUnits, counted);

    const refund: Refund = {
      id: randomUUID(),
      merchantId,
      mode,
      paymentId,
      amountBaseUnits,
      requestedAmount: input.amount.trim(),
      requestedCurrency:
        input.amount.trim() === OVERPAID ? 'USDC' : (input.currency ?? 'USDC').trim().toUpperCase(),
      reason,
      address,
      addressSource: address ? 'merchant' : null,
      addressGivenAt: address ? now : null,
      claimExpiresAt: new Date(now.getTime() + deps.refundClaimTtlMs),
      canceledAt: null,
      announcedStatus: address ? 'awaiting_funds' : 'awaiting_address',
      createdAt: now,
      updatedAt: now,
    };
    await t.insertRefund(refund, idempotency);
    const deposit = address ? refundDeposit(planner, refund, address, now) : undefined;
    if (deposit) await t.insertDeposit(deposit);
    const record = { refund, deposit };
    await insertRefundEvent(t, 'refund.created', record, refund.announcedStatus, now);
    if (!address && deps.refundNotices)
      await queueRefundNotice(t, deps.refundNotices, payment, record, 'claim', now);
    return { record, replayed: false };
  });
}
