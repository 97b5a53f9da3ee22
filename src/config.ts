import { z } from 'zod';
import { parseDecimal } from './domain/decimal.ts';
import { parseDuration } from './domain/duration.ts';
import { parseUsdc } from './domain/money.ts';

/**
 * Configuration: read once from the environment at start, validated, frozen. A bad value stops the process
 * with a message naming the variable. The README's configuration table lists the same variables.
 */
export type Network = 'sandbox' | 'polygon' | 'amoy';

export type RateSourceConfig =
  | { readonly kind: 'static'; readonly usdcPerUnit: Readonly<Record<string, string>> }
  | { readonly kind: 'coinbase'; readonly baseUrl: string }
  | { readonly kind: 'coingecko'; readonly baseUrl: string };

export interface Config {
  readonly databaseUrl: string;
  readonly host: string;
  readonly apiPort: number;
  readonly checkoutPort: number;
  readonly baseUrl: string;
  readonly checkoutUrl: string;
  readonly network: Network;
  readonly paymentTtlMs: number;
  readonly maxAmountBaseUnits: bigint;
  readonly rates: {
    readonly sources: readonly RateSourceConfig[];
    readonly cacheTtlMs: number;
    readonly maxAgeMs: number;
    readonly maxSpreadBps: number;
    readonly timeoutMs: number;
  };
  readonly adminToken: string | undefined;
  readonly webhookAllowPrivate: boolean;
  readonly logLevel: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The sandbox has no internet, so it prices from a fixed table (USDC per unit) unless told otherwise. */
export const SANDBOX_RATES = 'static:USD=1,EUR=1.08,GBP=1.27,CAD=0.73,CHF=1.13,JPY=0.0066,AUD=0.65,KWD=3.25';

const duration = (name: string) =>
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a duration such as 90s, 60m or 24h` });
      return z.NEVER;
    }
    return ms;
  });

const port = z.coerce.number().int().min(1).max(65_535);
const boolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));

const envSchema = z.object({
  PAYLINK_DATABASE_URL: z
    .string()
    .default('sqlite:./data/paylink.db')
    .refine((v) => /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(v), 'must be sqlite:<path> or postgres://…'),
  PAYLINK_HOST: z.string().min(1).default('127.0.0.1'),
  PAYLINK_API_PORT: port.default(3000),
  PAYLINK_CHECKOUT_PORT: port.default(3001),
  PAYLINK_BASE_URL: url.optional(),
  PAYLINK_CHECKOUT_URL: url.optional(),
  PAYLINK_NETWORK: z.enum(['sandbox', 'polygon', 'amoy']).default('sandbox'),
  PAYLINK_PAYMENT_TTL: duration('PAYLINK_PAYMENT_TTL').default(60 * 60_000),
  PAYLINK_MAX_AMOUNT: z
    .string()
    .default('1000000')
    .transform((text, ctx) => {
      const units = parseUsdc(text);
      if (units === undefined || units <= 0n) {
        ctx.addIssue({ code: 'custom', message: 'PAYLINK_MAX_AMOUNT must be a positive USDC amount' });
        return z.NEVER;
      }
      return units;
    }),
  PAYLINK_RATES: z.string().optional(),
  PAYLINK_RATES_COINBASE_URL: url.default('https://api.coinbase.com'),
  PAYLINK_RATES_COINGECKO_URL: url.default('https://api.coingecko.com'),
  PAYLINK_RATES_CACHE_TTL: duration('PAYLINK_RATES_CACHE_TTL').default(60_000),
  PAYLINK_RATES_MAX_AGE: duration('PAYLINK_RATES_MAX_AGE').default(10 * 60_000),
  PAYLINK_RATES_MAX_SPREAD_BPS: z.coerce.number().int().min(0).max(10_000).default(100),
  PAYLINK_RATES_TIMEOUT: duration('PAYLINK_RATES_TIMEOUT').default(5_000),
  PAYLINK_ADMIN_TOKEN: z
    .string()
    .min(24, 'PAYLINK_ADMIN_TOKEN must be at least 24 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  PAYLINK_WEBHOOK_ALLOW_PRIVATE: boolean.default(false),
  PAYLINK_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export function parseRateSources(
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  const rateSpec =
    e.PAYLINK_RATES ?? (e.PAYLINK_NETWORK === 'sandbox' ? SANDBOX_RATES : 'coinbase,coingecko');
  const sources = parseRateSources(rateSpec, {
    coinbase: e.PAYLINK_RATES_COINBASE_URL,
    coingecko: e.PAYLINK_RATES_COINGECKO_URL,
  });
  if (typeof sources === 'string') throw new ConfigError(`Invalid configuration:\n  ${sources}`);
  const urlHost = e.PAYLINK_HOST === '0.0.0.0' || e.PAYLINK_HOST === '::' ? '127.0.0.1' : e.PAYLINK_HOST;
  const config: Config = {
    databaseUrl: e.PAYLINK_DATABASE_URL,
    host: e.PAYLINK_HOST,
    apiPort: e.PAYLINK_API_PORT,
    checkoutPort: e.PAYLINK_CHECKOUT_PORT,
    baseUrl: e.PAYLINK_BASE_URL ?? `http://${urlHost}:${e.PAYLINK_API_PORT}`,
    checkoutUrl: e.PAYLINK_CHECKOUT_URL ?? `http://${urlHost}:${e.PAYLINK_CHECKOUT_PORT}`,
    network: e.PAYLINK_NETWORK,
    paymentTtlMs: e.PAYLINK_PAYMENT_TTL,
    maxAmountBaseUnits: e.PAYLINK_MAX_AMOUNT,
    rates: {
      sources,
      cacheTtlMs: e.PAYLINK_RATES_CACHE_TTL,
      maxAgeMs: e.PAYLINK_RATES_MAX_AGE,
      maxSpreadBps: e.PAYLINK_RATES_MAX_SPREAD_BPS,
      timeoutMs: e.PAYLINK_RATES_TIMEOUT,
    },
    adminToken: e.PAYLINK_ADMIN_TOKEN,
    webhookAllowPrivate: e.PAYLINK_WEBHOOK_ALLOW_PRIVATE,
    logLevel: e.PAYLINK_LOG_LEVEL,
  };
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
