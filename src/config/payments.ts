import { z } from 'zod';
import { percentToBps } from '../domain/commission.ts';
import { MAX_UNDERPAYMENT_TOLERANCE_BPS } from '../domain/merchant.ts';
import { ConfigError } from './configError.ts';
import { duration, positiveUsdcAmount } from './fields.ts';

/** What a payment link may ask for and how long it lives; a refund's claim; a new merchant's tolerance. */
export const paymentsEnv = {
  PAYLINK_PAYMENT_TTL: duration('PAYLINK_PAYMENT_TTL').default(60 * 60_000),
  PAYLINK_REFUND_CLAIM_TTL: duration('PAYLINK_REFUND_CLAIM_TTL').default(30 * 24 * 60 * 60_000),
  PAYLINK_MAX_AMOUNT: positiveUsdcAmount('PAYLINK_MAX_AMOUNT', '1000000'),
  // The least a link may ask for, in USDC after conversion: below it the network fee and the commission's
  // rounding eat a real share (5 JPY is 0.04 USDC).
  PAYLINK_MIN_AMOUNT: positiveUsdcAmount('PAYLINK_MIN_AMOUNT', '0.50'),
  PAYLINK_PAYOUT_DELAYED_AFTER: duration('PAYLINK_PAYOUT_DELAYED_AFTER').default(10 * 60_000),
  PAYLINK_DEFAULT_TOLERANCE: z
    .string()
    .default('0')
    .transform((text, ctx) => {
      const bps = percentToBps(text.trim());
      if (bps === undefined || bps > MAX_UNDERPAYMENT_TOLERANCE_BPS) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYLINK_DEFAULT_TOLERANCE must be a percentage from 0 to ${MAX_UNDERPAYMENT_TOLERANCE_BPS / 100} with at most 2 decimals`,
        });
        return z.NEVER;
      }
      return bps;
    }),
};

type PaymentsEnv = z.infer<z.ZodObject<typeof paymentsEnv>>;

export function paymentsConfig(e: PaymentsEnv): {
  paymentTtlMs: number;
  refundClaimTtlMs: number;
  maxAmountBaseUnits: bigint;
  minAmountBaseUnits: bigint;
  defaultToleranceBps: number;
} {
  if (e.PAYLINK_MIN_AMOUNT > e.PAYLINK_MAX_AMOUNT) {
    throw new ConfigError(
      'Invalid configuration:\n  PAYLINK_MIN_AMOUNT must not be above PAYLINK_MAX_AMOUNT: no link could be created',
    );
  }
  return {
    paymentTtlMs: e.PAYLINK_PAYMENT_TTL,
    refundClaimTtlMs: e.PAYLINK_REFUND_CLAIM_TTL,
    maxAmountBaseUnits: e.PAYLINK_MAX_AMOUNT,
    minAmountBaseUnits: e.PAYLINK_MIN_AMOUNT,
    defaultToleranceBps: e.PAYLINK_DEFAULT_TOLERANCE,
  };
}
