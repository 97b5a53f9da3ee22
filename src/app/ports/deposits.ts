import type { Deposit } from '../../domain/payment.ts';

/**
 * Computes a payment's deposit address off-chain: the CREATE2 address of a forwarder committed to the merchant
 * wallet, the treasury, the commission and the payment id. No key of that address exists anywhere.
 */
export interface DepositPlanner {
  /** `treasury` defaults to the operator's; a refund's forwarder names the customer on both sides. */
  plan(params: {
    paymentId: string;
    merchantWallet: string;
    commissionBps: number;
    treasury?: string;
  }): Deposit;
  readonly chainId: number;
  /** The token payments and refunds are made in (USDC), checksummed. */
  readonly tokenAddress: string;
  /** The contracts deposits go through (token, factory, forwarder implementation): never a refund address. */
  readonly contracts: readonly string[];
}

/** The deposit planner of each mode's chain; no `test` when the deployment has no test chain. */
export interface DepositPlanners {
  readonly live: DepositPlanner;
  readonly test?: DepositPlanner | undefined;
}
