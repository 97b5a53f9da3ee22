import { PaymentActions, PaymentSessionStatus } from '@medusajs/framework/utils';

/** The part of a Paylink payment (status answer or webhook) the mapping reads. */
export interface PaylinkPaymentState {
  readonly status: 'pending' | 'processing' | 'paid' | 'failed' | 'expired';
  readonly usdc_amount: string;
  readonly amount_received?: string;
}

/** Some USDC arrived, and less than is due: the shopper must send the rest. */
function underpaid(state: PaylinkPaymentState): boolean {
  // Two USDC decimals of 6 places at most, compared exactly as integers of micro-USDC.
  const received = toMicros(state.amount_received ?? '0');
  return received > 0n && received < toMicros(state.usdc_amount);
}

function toMicros(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6) || '0');
}

/**
 * Paylink's status as Medusa's session status. Paid is CAPTURED: the USDC is final on chain and already on its
 * way to the shop's wallet, so there is nothing left to capture (Medusa records the capture at once).
 */
export function sessionStatus(state: PaylinkPaymentState): PaymentSessionStatus {
  switch (state.status) {
    case 'paid':
      return PaymentSessionStatus.CAPTURED;
    case 'failed':
      return PaymentSessionStatus.ERROR;
    case 'expired':
      return PaymentSessionStatus.CANCELED;
    default:
      return underpaid(state) ? PaymentSessionStatus.REQUIRES_MORE : PaymentSessionStatus.PENDING;
  }
}

/**
 * A webhook's event as Medusa's action. payment.paid is AUTHORIZED on purpose: Medusa then completes the cart,
 * whose authorization asks Paylink and answers CAPTURED, which records the capture once. (The CAPTURED action
 * would capture a second time after that authorization and fail the whole webhook.)
 */
export function webhookAction(event: string, state: PaylinkPaymentState): PaymentActions {
  switch (event) {
    case 'payment.paid':
      return PaymentActions.AUTHORIZED;
    case 'payment.expired':
      return PaymentActions.CANCELED;
    case 'payment.failed':
      return PaymentActions.FAILED;
    case 'payment.processing':
      return underpaid(state) ? PaymentActions.REQUIRES_MORE : PaymentActions.PENDING;
    default:
      return PaymentActions.NOT_SUPPORTED;
  }
}
