import type { AgreedRate } from '../../domain/rates.ts';
import type { AtHand } from './atHand.ts';

/**
 * The agreed market rate for a currency: USDC per one unit, at once while the agreement is fresh. Rejects with
 * PaylinkError RATE_UNAVAILABLE when no trustworthy rate can be had right now.
 */
export interface RateProvider {
  usdcPerUnit(currencyCode: string): AtHand<AgreedRate>;
}
