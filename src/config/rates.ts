import { z } from 'zod';
import { parseDecimal } from '../domain/decimal.ts';
import type { HomeNetwork } from './chains/networks.ts';
import { ConfigError } from './configError.ts';
import { duration, url } from './fields.ts';

export type RateSourceConfig =
  | { readonly kind: 'static'; readonly usdcPerUnit: Readonly<Record<string, string>> }
  | { readonly kind: 'coinbase'; readonly baseUrl: string }
  | { readonly kind: 'coingecko'; readonly baseUrl: string };

export interface RatesConfig {
  readonly sources: readonly RateSourceConfig[];
  readonly cacheTtlMs: number;
  readonly maxAgeMs: number;
  readonly maxSpreadBps: number;
  readonly timeoutMs: number;
}

/** The sandbox has no internet, so it prices from a fixed table (USDC per unit) unless told otherwise. */
const SANDBOX_RATES = 'static:USD=1,EUR=1.08,GBP=1.27,CAD=0.73,CHF=1.13,JPY=0.0066,AUD=0.65,KWD=3.25';

export const ratesEnv = {
  PAYLINK_RATES: z.string().optional(),
  PAYLINK_RATES_COINBASE_URL: url.default('https://api.coinbase.com'),
  PAYLINK_RATES_COINGECKO_URL: url.default('https://api.coingecko.com'),
  PAYLINK_RATES_CACHE_TTL: duration('PAYLINK_RATES_CACHE_TTL').default(60_000),
  PAYLINK_RATES_MAX_AGE: duration('PAYLINK_RATES_MAX_AGE').default(10 * 60_000),
  PAYLINK_RATES_MAX_SPREAD_BPS: z.coerce.number().int().min(0).max(10_000).default(100),
  PAYLINK_RATES_TIMEOUT: duration('PAYLINK_RATES_TIMEOUT').default(5_000),
};

type RatesEnv = z.infer<z.ZodObject<typeof ratesEnv>>;

export function ratesConfig(e: RatesEnv, network: HomeNetwork): RatesConfig {
  const rateSpec = e.PAYLINK_RATES ?? (network === 'sandbox' ? SANDBOX_RATES : 'coinbase,coingecko');
  const sources = parseRateSources(rateSpec, {
    coinbase: e.PAYLINK_RATES_COINBASE_URL,
    coingecko: e.PAYLINK_RATES_COINGECKO_URL,
  });
  if (typeof sources === 'string') throw new ConfigError(`Invalid configuration:\n  ${sources}`);
  return {
    sources,
    cacheTtlMs: e.PAYLINK_RATES_CACHE_TTL,
    maxAgeMs: e.PAYLINK_RATES_MAX_AGE,
    maxSpreadBps: e.PAYLINK_RATES_MAX_SPREAD_BPS,
    timeoutMs: e.PAYLINK_RATES_TIMEOUT,
  };
}

function parseRateSources(
  spec: string,
  urls: { coinbase: string; coingecko: string },
): RateSourceConfig[] | string {
  const text = spec.trim();
  if (text.startsWith('static:')) {
    const usdcPerUnit: Record<string, string> = {};
    for (const pair of text.slice('static:'.length).split(',')) {
      const [code, value, ...rest] = pair.split('=').map((part) => part.trim());
      const parsed = parseDecimal(value ?? '');
      if (
        !code ||
        !/^[A-Za-z]{3,5}$/.test(code) ||
        rest.length > 0 ||
        typeof parsed === 'string' ||
        parsed.units <= 0n
      ) {
        return `PAYLINK_RATES: "${pair}" is not CODE=positive-decimal`;
      }
      usdcPerUnit[code.toUpperCase()] = value!;
    }
    return [{ kind: 'static', usdcPerUnit }];
  }
  const sources: RateSourceConfig[] = [];
  for (const name of text.split(',').map((s) => s.trim())) {
    if (name === 'coinbase') sources.push({ kind: 'coinbase', baseUrl: urls.coinbase });
    else if (name === 'coingecko') sources.push({ kind: 'coingecko', baseUrl: urls.coingecko });
    else return `PAYLINK_RATES: unknown source "${name}" (use coinbase, coingecko or static:CODE=rate,…)`;
  }
  return sources;
}
