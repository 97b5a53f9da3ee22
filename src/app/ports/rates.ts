import type { AgreedRate } from '../../domain/rates.ts';

/**
 * The agreed market rate for a currency: USDC per one unit. Throws PaylinkError RATE_UNAVAILABLE when no
 * trustworthy rate can be had right now.
 */
export interface RateProvider {
  usdcPerUnit(currencyCode: string): Promise<AgreedRate>;
}
