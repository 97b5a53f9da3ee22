import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { type Payment, paymentTerms } from '../../domain/payment.ts';
import { derivePaymentState, type PaymentState } from '../../domain/paymentStatus.ts';
import type { Ledger, TransferRecord, UnacceptedTransfer } from '../chain/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { PaymentStore } from './ports.ts';

/** What settlePayment.ts records as an x402 call's rate source: the call is priced in USDC itself. */
const X402_RATE_SOURCE = 'x402';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class PaymentNotFoundError extends PaylinkError {
  constructor() {
    super('NOT_FOUND', 'Payment not found');
  }
}

/**
 * A merchant's payment with its status derived now. Unknown, malformed, other merchants' and other modes' ids
 * are all the same 404, so the answer reveals nothing about payments the caller's key may not see.
 */
export async function getPaymentStatus(
  deps: PaymentStateDeps,
  merchantId: string,
  paymentId: string,
  mode: KeyMode = 'live',
): Promise<{
  payment: Payment;
  state: PaymentState<TransferRecord>;
  /** Every transfer recorded to it, on every chain, orphaned ones included (the response lists those counted). */
  transfers: TransferRecord[];
  unaccepted: UnacceptedTransfer[];
}> {
  if (!UUID_PATTERN.test(paymentId)) throw new PaymentNotFoundError();
  const payment = await deps.payments.findForMerchant(merchantId, paymentId.toLowerCase(), mode);
  if (!payment) throw new PaymentNotFoundError();
  const [transfers, unaccepted] = await Promise.all([
    deps.ledger.listTransfers(payment.id),
    deps.ledger.listUnacceptedTransfers(payment.id),
  ]);
  const state = paymentStateOf(payment, transfers, deps.clock.now());
  return { payment, state, transfers, unaccepted };
}

export interface PaymentStateDeps {
  readonly payments: PaymentStore;
  readonly ledger: Pick<Ledger, 'listTransfers' | 'listUnacceptedTransfers'>;
  readonly clock: Clock;
}

/** A call settled through the x402 facilitator: priced in USDC by it, with no deposit address of its own. */
export function isX402Call(payment: Payment): boolean {
  return payment.rateSource === X402_RATE_SOURCE && payment.deposit === null;
}

export function isPaymentId(text: string): boolean {
  return UUID_PATTERN.test(text);
}

/**
 * The payment's state as of now, derived from its recorded transfers. The stored status may lag by one watcher
 * or expirer pass; a reader always gets the derivation, so "expired" shows the moment the link expires.
 */
export async function currentState(
  deps: { readonly ledger: Pick<Ledger, 'listTransfers'>; readonly clock: Clock },
  payment: Payment,
): Promise<PaymentState<TransferRecord>> {
  return paymentStateOf(payment, await deps.ledger.listTransfers(payment.id), deps.clock.now());
}

/**
 * A payment's state from its transfers; but a call settled through the x402 facilitator (decision 0059) has no
 * transfer of its own (the money went to the merchant's x402 address), so its state is the one recorded when
 * its transfer was mined.
 */
export function paymentStateOf(
  payment: Payment,
  transfers: TransferRecord[],
  now: Date,
): PaymentState<TransferRecord> {
  if (isX402Call(payment) && payment.status === 'paid')
    return {
      status: 'paid',
      amountReceivedBaseUnits: payment.amountReceivedBaseUnits,
      amountSeenBaseUnits: payment.amountReceivedBaseUnits,
      paidAt: payment.paidAt,
      late: false,
      completedBy: null,
      lastSeen: null,
    };
  return derivePaymentState(paymentTerms(payment), transfers, now);
}
