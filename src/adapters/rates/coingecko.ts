import { type Decimal, parseDecimal } from '../../domain/decimal.ts';
import { invertPrice } from '../../domain/rates.ts';
import { fetchLosslessJson, isRecord, type RateSource, RateSourceError } from './rateSource.ts';

/**
 * The fiat currencies CoinGecko prices (its `vs_currencies`), asked for in one call: the free API refreshes
 * about once a minute and answers 429 when called too often, so one request per refresh is the budget.
 */
// biome-ignore format: a list reads best packed
const COINGECKO_VS_CURRENCIES = [
  'usd', 'aed', 'ars', 'aud', 'bdt', 'bhd', 'bmd', 'brl', 'cad', 'chf', 'clp', 'cny', 'czk', 'dkk', 'eur', 'gbp',
  'gel', 'hkd', 'huf', 'idr', 'ils', 'inr', 'jpy', 'krw', 'kwd', 'lkr', 'mmk', 'mxn', 'myr', 'ngn', 'nok', 'nzd',
  'php', 'pkr', 'pln', 'rub', 'sar', 'sek', 'sgd', 'thb', 'try', 'twd', 'uah', 'vnd', 'zar',
] as const;

/**
 * CoinGecko's simple price: `GET /api/v3/simple/price?ids=usd-coin&vs_currencies=…&include_last_updated_at=true`
 * answers the price of one USDC per currency as JSON numbers (read losslessly) and `last_updated_at` in Unix
 * seconds, which is the observation time.
 */
export function coingeckoSource(baseUrl: string): RateSource {
  const query = `ids=usd-coin&vs_currencies=${COINGECKO_VS_CURRENCIES.join(',')}&include_last_updated_at=true`;
  return {
    name: 'coingecko',
    async fetchTable(signal) {
      const body = await fetchLosslessJson(`${baseUrl}/api/v3/simple/price?${query}`, signal);
      const prices = isRecord(body) ? body['usd-coin'] : undefined;
      if (!isRecord(prices) || typeof prices.last_updated_at !== 'string') {
        throw new RateSourceError('coingecko answered in an unexpected shape');
      }
      const updatedAtSeconds = Number(prices.last_updated_at);
      if (!Number.isSafeInteger(updatedAtSeconds))
        throw new RateSourceError('coingecko sent a bad last_updated_at');
      const usdcPerUnit = new Map<string, Decimal>();
      for (const [code, price] of Object.entries(prices)) {
        if (code === 'last_updated_at' || typeof price !== 'string') continue;
        const parsed = parseDecimal(price);
        if (typeof parsed === 'string' || parsed.units <= 0n) continue;
        usdcPerUnit.set(code.toUpperCase(), invertPrice(parsed));
      }
      return { usdcPerUnit, observedAt: new Date(updatedAtSeconds * 1000) };
    },
  };
}
