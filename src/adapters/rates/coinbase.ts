import type { Decimal } from '../../domain/decimal.ts';
import { parseDecimal } from '../../domain/decimal.ts';
import { invertPrice } from '../../domain/rates.ts';
import { fetchLosslessJson, isRecord, type RateSource, RateSourceError } from './rateSource.ts';

/**
 * Coinbase's public exchange rates: `GET /v2/exchange-rates?currency=USDC` answers the price of one USDC in
 * ~640 currencies as decimal strings. It carries no timestamp, so the observation time is the fetch time.
 */
export function coinbaseSource(baseUrl: string, now: () => Date): RateSource {
  return {
    name: 'coinbase',
    async fetchTable(signal) {
      const body = await fetchLosslessJson(`${baseUrl}/v2/exchange-rates?currency=USDC`, signal);
      const data = isRecord(body) ? body.data : undefined;
      if (!isRecord(data) || data.currency !== 'USDC' || !isRecord(data.rates)) {
        throw new RateSourceError('coinbase answered in an unexpected shape');
      }
      const usdcPerUnit = new Map<string, Decimal>();
      for (const [code, price] of Object.entries(data.rates)) {
        if (typeof price !== 'string') continue;
        const parsed = parseDecimal(price);
        if (typeof parsed === 'string' || parsed.units <= 0n) continue;
        usdcPerUnit.set(code.toUpperCase(), invertPrice(parsed));
      }
      return { usdcPerUnit, observedAt: now() };
    },
  };
}
