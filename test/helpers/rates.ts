import type { Logger } from 'pino';
import { marketRates } from '../../src/adapters/rates/marketRates.ts';
import { staticSource } from '../../src/adapters/rates/static.ts';
import type { RateProvider } from '../../src/app/payments/ports.ts';
import type { Clock } from '../../src/app/shared/ports.ts';

/** Rates for set-ups that price in USDC (and USD, at 1) and need no rate API: the static source, always fresh. */
export function usdcOnlyRates(clock: Clock, logger: Logger): RateProvider {
  return marketRates({
    sources: [staticSource({}, () => clock.now())],
    cacheTtlMs: 60_000,
    maxAgeMs: 600_000,
    maxSpreadBps: 100,
    timeoutMs: 1_000,
    clock,
    logger,
  });
}
