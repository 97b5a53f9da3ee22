import type { KeyMode } from '../../domain/credentials.ts';
import type { Payment } from '../../domain/payment.ts';
import {
  parseRefundAddress,
  type Refund,
  RefundAddressError,
  refundDepositPayment,
} from '../../domain/refund.ts';
import { depositPlannerFor } from '../payments/createPayment.ts';
import type { DepositPlanner, DepositPlanners } from '../payments/ports.ts';
import type { RefundStore } from './ports.ts';

export interface RefundAddressDeps {
  readonly refunds: Pick<RefundStore, 'isDepositAddress'>;
  readonly deposits: DepositPlanners;
}

/**
 * A customer's refund address, checked: well formed (domain/refund.ts), and none of the service's own addresses
 * on that chain — not the token, the forwarder factory or its implementation, nor any deposit address of a
 * payment or refund. Money sent to those would come back into the service's own flows or be stuck.
 */
export async function checkRefundAddress(
  deps: RefundAddressDeps,
  mode: KeyMode,
  field: string,
  input: string,
): Promise<string> {
  const address = parseRefundAddress(field, input);
  const planner = depositPlannerFor(deps.deposits, mode);
  if (planner.contracts.some((contract) => contract.toLowerCase() === address.toLowerCase()))
    throw new RefundAddressError(
      field,
      'service_contract',
      "is one of the payment network's contracts, not a wallet",
    );
  if (await deps.refunds.isDepositAddress(planner.chainId, address))
    throw new RefundAddressError(
      field,
      'deposit_address',
      'is a payment deposit address, not the wallet the refund should reach',
    );
  return address;
}

/**
 * The refund's deposit row once its address is known: a forwarder whose merchant and treasury are both the
 * customer's address, with no commission, committed to the refund's id — it can pay nobody else.
 */
export function refundDeposit(planner: DepositPlanner, refund: Refund, address: string, now: Date): Payment {
  const deposit = planner.plan({
    paymentId: refund.id,
    merchantWallet: address,
    commissionBps: 0,
    treasury: address,
  });
  return refundDepositPayment(refund, address, deposit, now);
}
