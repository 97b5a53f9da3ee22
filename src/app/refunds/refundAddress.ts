import type { KeyMode } from '../../domain/credentials.ts';
import { ValidationError } from '../../domain/errors.ts';
import { parseRefundAddress } from '../../domain/refund.ts';
import { depositPlannerFor } from '../createPayment.ts';
import type { DepositPlanners } from '../ports.ts';
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
    throw new ValidationError(field, "is one of the payment network's contracts, not a wallet");
  if (await deps.refunds.isDepositAddress(planner.chainId, address))
    throw new ValidationError(field, 'is a payment deposit address, not the wallet the refund should reach');
  return address;
}
