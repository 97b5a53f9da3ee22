import { type Address, getAddress, type Hex, isAddress, isHex } from 'viem';
import { z } from 'zod';
import { percentToBps } from './domain/commission.ts';
import { parseDecimal } from './domain/decimal.ts';
import { parseDuration } from './domain/duration.ts';
import { MAX_UNDERPAYMENT_TOLERANCE_BPS } from './domain/merchant.ts';
import { parseUsdc } from './domain/money.ts';
import type { PayoutPolicy } from './domain/payout.ts';
import { type BucketPolicy, parseRate } from './domain/tokenBucket.ts';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './domain/webhookRetry.ts';
import { type MailConfig, parseMailConfig } from './mailConfig.ts';

/**
 * Configuration: read once from the environment at start, validated, frozen. A bad value stops the process
 * with a message naming the variable. The README's configuration table lists the same variables.
 */
export type Network = 'sandbox' | 'polygon' | 'amoy';

export type RateSourceConfig =
  | { readonly kind: 'static'; readonly usdcPerUnit: Readonly<Record<string, string>> }
  | { readonly kind: 'coinbase'; readonly baseUrl: string }
  | { readonly kind: 'coingecko'; readonly baseUrl: string };

/** When a transfer counts as final: the node's `finalized` block, or N confirmations on top of its block. */
export type Finality =
  | { readonly kind: 'finalized' }
  | { readonly kind: 'confirmations'; readonly confirmations: number };

/**
 * A token the watcher reads: accepted (it pays: a USD stablecoin of 6 decimals, counted like USDC) or only noticed
 * (sent by mistake: recorded, reported, and forwarded only when an operator sweeps it).
 */
export interface TokenSetting {
  readonly symbol: string;
  /** Undefined for the sandbox's own tokens, which the service deploys (chainSetup resolves them). */
  readonly address: Address | undefined;
  readonly decimals: number;
}

export interface NetworkPreset {
  readonly chainId: number;
  /** Circle's native USDC; the sandbox deploys its own. */
  readonly usdcAddress: Address | undefined;
  /** Tokens known on the network by symbol, for PAYLINK_ACCEPTED_TOKENS and PAYLINK_NOTICED_TOKENS. */
  readonly knownTokens: Readonly<Record<string, TokenSetting>>;
  /** What is noticed when PAYLINK_NOTICED_TOKENS is not set (less what is accepted). */
  readonly noticedByDefault: readonly string[];
  readonly explorerUrl: string;
  readonly name: string;
  /**
   * A public RPC for the checkout's wallet button (wallet_addEthereumChain). Never PAYLINK_RPC_URL: provider
   * URLs often carry an API key, and this one is shown to every customer.
   */
  readonly publicRpcUrl: string | undefined;
  readonly nativeCurrencySymbol: string;
}

export const NETWORKS: Readonly<Record<Network, NetworkPreset>> = {
  sandbox: {
    chainId: 31337,
    usdcAddress: undefined,
    // Deployed by the sandbox itself (sandboxChain.ts): a USDC, and a stand-in for bridged USDC.e.
    knownTokens: {
      USDC: { symbol: 'USDC', address: undefined, decimals: 6 },
      'USDC.e': { symbol: 'USDC.e', address: undefined, decimals: 6 },
    },
    noticedByDefault: ['USDC.e'],
    explorerUrl: '',
    name: 'Sandbox (local anvil)',
    publicRpcUrl: undefined,
    nativeCurrencySymbol: 'ETH',
  },
  polygon: {
    chainId: 137,
    usdcAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    knownTokens: {
      USDC: { symbol: 'USDC', address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 },
      // Bridged from Ethereum (PoS bridge): what exchanges and older wallets still send as "USDC".
      'USDC.e': { symbol: 'USDC.e', address: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174', decimals: 6 },
      USDT: { symbol: 'USDT', address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', decimals: 6 },
      DAI: { symbol: 'DAI', address: '0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063', decimals: 18 },
    },
    noticedByDefault: ['USDC.e', 'USDT', 'DAI'],
    explorerUrl: 'https://polygonscan.com',
    name: 'Polygon',
    publicRpcUrl: 'https://polygon-rpc.com',
    nativeCurrencySymbol: 'POL',
  },
  amoy: {
    chainId: 80002,
    usdcAddress: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
    knownTokens: {
      USDC: { symbol: 'USDC', address: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', decimals: 6 },
    },
    noticedByDefault: [],
    explorerUrl: 'https://amoy.polygonscan.com',
    name: 'Polygon Amoy',
    publicRpcUrl: 'https://rpc-amoy.polygon.technology',
    nativeCurrencySymbol: 'POL',
  },
};

export interface ChainConfig {
  readonly network: Network;
  readonly chainId: number;
  readonly rpcUrls: readonly string[];
  readonly usdcAddress: Address | undefined;
  /**
   * Tokens that pay (PAYLINK_ACCEPTED_TOKENS): USDC first — the token a payment asks for, at usdcAddress — then
   * any other 6-decimal USD stablecoin enabled (USDC.e). Each is read in the watcher's one request per range.
   */
  readonly acceptedTokens: readonly TokenSetting[];
  /** Tokens recorded when sent to a payment, but never counted (PAYLINK_NOTICED_TOKENS). */
  readonly noticedTokens: readonly TokenSetting[];
  /**
   * The public RPC the checkout's wallet button offers (wallet_addEthereumChain): PAYLINK_PUBLIC_RPC_URL, else
   * the network preset's. Shown to every customer, so never a provider URL with an API key.
   */
  readonly publicRpcUrl: string | undefined;
  readonly factoryAddress: Address | undefined;
  readonly treasuryAddress: Address | undefined;
  readonly relayerKey: Hex | undefined;
  readonly finality: Finality;
  readonly pollIntervalMs: number;
  /** The most blocks one eth_getLogs may span (RPC providers cap ranges; 2,000 is a common limit). */
  readonly maxBlockRange: number;
  /** Where a new chain cursor starts; default: the head when the watcher first runs. */
  readonly startBlock: bigint | undefined;
  /** Final funds below this wait for more before being flushed (gas would cost more than they are worth). */
  readonly dustThresholdBaseUnits: bigint;
  /** The relayer's gas balance below which the service warns loudly, in wei. */
  readonly relayerLowBalanceWei: bigint;
  /**
   * Gasless payment (decision 0012): offered when PAYLINK_GASLESS is on and this key is set (the sandbox has
   * its own). A key of its own: the settler's relayer key has one writer of its nonces.
   */
  readonly gasless: {
    readonly enabled: boolean;
    readonly relayerKey: Hex | undefined;
    /** The most the gasless relayer may pay for gas in any hour, in wei (PAYLINK_GASLESS_MAX_FEE_PER_HOUR). */
    readonly maxFeeWeiPerHour: bigint;
  };
}

export interface Config {
  readonly databaseUrl: string;
  readonly host: string;
  readonly apiPort: number;
  readonly checkoutPort: number;
  readonly baseUrl: string;
  readonly checkoutUrl: string;
  readonly network: Network;
  readonly paymentTtlMs: number;
  /** How long a customer has to give a refund's address on its claim page. */
  readonly refundClaimTtlMs: number;
  /** Operators must enroll a TOTP second factor before the dashboard serves them anything else. */
  readonly dashboardRequire2fa: boolean;
  readonly maxAmountBaseUnits: bigint;
  /** The least USDC a payment link may ask for, after conversion (PAYLINK_MIN_AMOUNT). */
  readonly minAmountBaseUnits: bigint;
  readonly rates: {
    readonly sources: readonly RateSourceConfig[];
    readonly cacheTtlMs: number;
    readonly maxAgeMs: number;
    readonly maxSpreadBps: number;
    readonly timeoutMs: number;
  };
  readonly adminToken: string | undefined;
  readonly webhookAllowPrivate: boolean;
  /** Rate limits of the merchant API (docs/decisions/0007-rate-limits.md); null: not limited. */
  readonly rateLimit: {
    readonly perKey: BucketPolicy | null;
    /** Requests without a valid API key, per client address. */
    readonly perIp: BucketPolicy | null;
    /** Buckets shared by every API process; unset: each process counts alone, in memory. */
    readonly redisUrl: string | undefined;
  };
  /** Fastify's trustProxy: which proxies' X-Forwarded-For gives the client address (the per-IP limit). */
  readonly trustProxy: boolean | number | readonly string[];
  /** What one client may hold open on the API and checkout servers (request timeout, connections per address). */
  readonly connectionLimits: ConnectionLimits;
  /** How long an authenticated API key is remembered by an API process (0: looked up on every request). */
  readonly authCacheTtlMs: number;
  /** Status responses an API process keeps until their payment changes (0: none; docs/decisions/0010). */
  readonly statusCacheEntries: number;
  /** When /readyz calls the chain watcher failing. */
  readonly readiness: { readonly maxLagBlocks: number; readonly maxStallMs: number };
  readonly webhooks: {
    /** One attempt's whole exchange (connect, send, response) must fit in this. */
    readonly timeoutMs: number;
    /** Delays before the 2nd, 3rd, … attempt; the first is immediate. */
    readonly retryScheduleMs: readonly number[];
    /** A claimed event's lease: one attempt plus a minute to record it; past it the event is claimed again. */
    readonly leaseMs: number;
  };
  readonly logLevel: string;
  /**
   * When a payout's status says `delayed` (and `payment.payout_delayed` is owed), and the dust threshold below
   * which final funds wait (the live chain's; the test chain uses the same).
   */
  readonly payoutPolicy: PayoutPolicy;
  /** A new merchant's underpayment tolerance when none is given, in basis points (PAYLINK_DEFAULT_TOLERANCE). */
  readonly defaultToleranceBps: number;
  readonly chain: ChainConfig;
  /**
   * The chain of test-mode payments (sk_test_ keys), or undefined when test mode is off. It may be the live
   * chain itself (the sandbox serves both modes): then it has the live chain's id and settings.
   */
  readonly testChain: ChainConfig | undefined;
  /** Sandbox only: where the demo merchant's webhook inbox listens. */
  readonly sandboxWebhookPort: number;
  /** E-mail to customers (PAYLINK_SMTP_URL, PAYLINK_MAIL_FROM); undefined: none is queued. */
  readonly mail: MailConfig | undefined;
}

/** What one client may hold open on the API and checkout servers (adapters/web/connectionLimits.ts). */
export interface ConnectionLimits {
  /** The whole request, headers and body, must arrive within this; answered 408 and closed after it. */
  readonly requestTimeoutMs: number;
  /**
   * Connections one client address is served on at once (further ones are answered 503 and closed); 0: no cap
   * (behind a proxy every connection comes from the proxy, which must enforce its own).
   */
  readonly maxConnectionsPerClient: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The sandbox has no internet, so it prices from a fixed table (USDC per unit) unless told otherwise. */
const SANDBOX_RATES = 'static:USD=1,EUR=1.08,GBP=1.27,CAD=0.73,CHF=1.13,JPY=0.0066,AUD=0.65,KWD=3.25';

/**
 * A number without a unit is refused rather than read as milliseconds: PAYLINK_PAYMENT_TTL=60 meant a link
 * that expired in 60 ms, when whoever wrote it surely meant seconds or minutes.
 */
const DURATION_UNITS = 'ms, s, m, h or d (90s, 60m, 24h)';
const withoutUnit = (text: string) => /^\s*\d+\s*$/.test(text);

const duration = (name: string) =>
  z.string().transform((text, ctx) => {
    if (withoutUnit(text)) {
      ctx.addIssue({ code: 'custom', message: `${name} needs a unit: ${DURATION_UNITS}` });
      return z.NEVER;
    }
    const ms = parseDuration(text);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a duration in ${DURATION_UNITS}` });
      return z.NEVER;
    }
    return ms;
  });

const port = z.coerce.number().int().min(1).max(65_535);
const address = (name: string) =>
  z.string().transform((text, ctx) => {
    if (!isAddress(text.trim(), { strict: false }) || /^0x0{40}$/i.test(text.trim())) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a non-zero 0x address` });
      return z.NEVER;
    }
    return getAddress(text.trim());
  });
const usdcAmount = (name: string) =>
  z.string().transform((text, ctx) => {
    const units = parseUsdc(text);
    if (units === undefined) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a USDC amount` });
      return z.NEVER;
    }
    return units;
  });
const rpcUrlList = (name: string) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      const urls = (text ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      for (const u of urls) {
        if (!/^(https?|wss?):\/\/.+/.test(u)) {
          ctx.addIssue({ code: 'custom', message: `${name} must be comma-separated http(s) or ws(s) URLs` });
          return z.NEVER;
        }
      }
      return urls;
    });
const privateKey = (name: string) =>
  z
    .string()
    .optional()
    .refine((v) => v === undefined || (isHex(v) && v.length === 66), {
      // Never echo the value: it is a private key.
      message: `${name} must be a 0x-prefixed 32-byte hex private key`,
    })
    .transform((v) => v as Hex | undefined);
const blockNumber = (name: string) =>
  z
    .string()
    .regex(/^\d{1,12}$/, `${name} must be a block number`)
    .transform((v) => BigInt(v))
    .optional();
const boolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));

/** `100/s`, `6000/m` … in requests per second, or `off` (null). */
const rateSetting = (name: string, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      if (text.trim().toLowerCase() === 'off') return null;
      const perSecond = parseRate(text);
      if (perSecond === undefined) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a rate such as 100/s or 6000/m, or off` });
        return z.NEVER;
      }
      return perSecond;
    });
const burstSetting = z.coerce.number().int().min(1).max(1_000_000).optional();

/** Without an explicit burst, twice the per-second rate: 100/s bursts to 200. */
function bucketPolicy(ratePerSecond: number | null, burst: number | undefined): BucketPolicy | null {
  if (ratePerSecond === null) return null;
  return { ratePerSecond, burst: burst ?? Math.max(1, Math.ceil(2 * ratePerSecond)) };
}

const envSchema = z.object({
  PAYLINK_DATABASE_URL: z
    .string()
    .default('sqlite:./data/paylink.db')
    .refine((v) => /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(v), 'must be sqlite:<path> or postgres://…'),
  PAYLINK_HOST: z.string().min(1).default('127.0.0.1'),
  PAYLINK_API_PORT: port.default(3000),
  PAYLINK_CHECKOUT_PORT: port.default(3001),
  PAYLINK_SANDBOX_WEBHOOK_PORT: port.default(3002),
  PAYLINK_BASE_URL: url.optional(),
  PAYLINK_CHECKOUT_URL: url.optional(),
  PAYLINK_NETWORK: z.enum(['sandbox', 'polygon', 'amoy']).default('sandbox'),
  PAYLINK_PAYMENT_TTL: duration('PAYLINK_PAYMENT_TTL').default(60 * 60_000),
  PAYLINK_REFUND_CLAIM_TTL: duration('PAYLINK_REFUND_CLAIM_TTL').default(30 * 24 * 60 * 60_000),
  PAYLINK_DASHBOARD_REQUIRE_2FA: boolean.optional(),
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
  // The least a link may ask for, in USDC after conversion: below it the network fee and the commission's
  // rounding eat a real share (5 JPY is 0.04 USDC).
  PAYLINK_MIN_AMOUNT: z
    .string()
    .default('0.50')
    .transform((text, ctx) => {
      const units = parseUsdc(text);
      if (units === undefined || units <= 0n) {
        ctx.addIssue({ code: 'custom', message: 'PAYLINK_MIN_AMOUNT must be a positive USDC amount' });
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
  PAYLINK_WEBHOOK_ALLOW_PRIVATE: boolean.optional(),
  PAYLINK_WEBHOOK_TIMEOUT: duration('PAYLINK_WEBHOOK_TIMEOUT')
    .default(15_000)
    .refine((ms) => ms <= 60_000, 'PAYLINK_WEBHOOK_TIMEOUT must be at most 60s'),
  PAYLINK_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return DEFAULT_RETRY_SCHEDULE_MS;
      const schedule = text.split(',').some(withoutUnit) ? undefined : parseRetrySchedule(text);
      if (!schedule) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYLINK_WEBHOOK_RETRY_SCHEDULE must be comma-separated durations in ${DURATION_UNITS}`,
        });
        return z.NEVER;
      }
      return schedule;
    }),
  PAYLINK_RATE_LIMIT: rateSetting('PAYLINK_RATE_LIMIT', '100/s'),
  PAYLINK_RATE_LIMIT_BURST: burstSetting,
  PAYLINK_RATE_LIMIT_IP: rateSetting('PAYLINK_RATE_LIMIT_IP', '10/s'),
  PAYLINK_RATE_LIMIT_IP_BURST: burstSetting,
  PAYLINK_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, 'PAYLINK_REDIS_URL must be a redis:// or rediss:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  PAYLINK_TRUST_PROXY: z
    .string()
    .optional()
    .transform((text, ctx): boolean | number | string[] => {
      const value = text?.trim() ?? '';
      if (value === '' || value === 'false') return false;
      if (value === 'true') return true;
      if (/^\d{1,2}$/.test(value)) return Number(value);
      const list = value.split(',').map((part) => part.trim());
      if (list.every((part) => /^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(part))) return list;
      ctx.addIssue({
        code: 'custom',
        message:
          'PAYLINK_TRUST_PROXY must be true, false, a hop count, or comma-separated proxy addresses/CIDRs',
      });
      return z.NEVER;
    }),
  PAYLINK_REQUEST_TIMEOUT: duration('PAYLINK_REQUEST_TIMEOUT')
    .default(30_000)
    .refine((ms) => ms <= 300_000, 'PAYLINK_REQUEST_TIMEOUT must be at most 5m'),
  PAYLINK_MAX_CONNECTIONS_PER_CLIENT: z
    .string()
    .regex(/^(\d{1,6}|off)$/, 'PAYLINK_MAX_CONNECTIONS_PER_CLIENT must be a number of connections, or off')
    .optional(),
  PAYLINK_AUTH_CACHE_TTL: z
    .string()
    .default('5s')
    .transform((text, ctx) => {
      if (text.trim() === '0' || text.trim() === 'off') return 0;
      const ms = withoutUnit(text) ? undefined : parseDuration(text);
      if (ms === undefined || ms <= 0 || ms > 300_000) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYLINK_AUTH_CACHE_TTL must be a duration up to 5m in ${DURATION_UNITS}, or 0`,
        });
        return z.NEVER;
      }
      return ms;
    }),
  PAYLINK_STATUS_CACHE_ENTRIES: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  PAYLINK_READY_MAX_LAG_BLOCKS: z.coerce.number().int().min(1).max(1_000_000).default(100),
  PAYLINK_READY_MAX_STALL: duration('PAYLINK_READY_MAX_STALL').default(120_000),
  PAYLINK_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PAYLINK_RPC_URL: rpcUrlList('PAYLINK_RPC_URL'),
  PAYLINK_PUBLIC_RPC_URL: url.optional(),
  PAYLINK_USDC_ADDRESS: address('PAYLINK_USDC_ADDRESS').optional(),
  PAYLINK_ACCEPTED_TOKENS: z.string().optional(),
  PAYLINK_NOTICED_TOKENS: z.string().optional(),
  PAYLINK_FACTORY_ADDRESS: address('PAYLINK_FACTORY_ADDRESS').optional(),
  PAYLINK_TREASURY_ADDRESS: address('PAYLINK_TREASURY_ADDRESS').optional(),
  PAYLINK_RELAYER_KEY: privateKey('PAYLINK_RELAYER_KEY'),
  // Test mode (sk_test_ keys): its own chain, or the live one when the networks are the same.
  PAYLINK_TEST_NETWORK: z.enum(['sandbox', 'amoy', 'off']).optional(),
  PAYLINK_TEST_RPC_URL: rpcUrlList('PAYLINK_TEST_RPC_URL'),
  PAYLINK_TEST_USDC_ADDRESS: address('PAYLINK_TEST_USDC_ADDRESS').optional(),
  PAYLINK_TEST_FACTORY_ADDRESS: address('PAYLINK_TEST_FACTORY_ADDRESS').optional(),
  PAYLINK_TEST_TREASURY_ADDRESS: address('PAYLINK_TEST_TREASURY_ADDRESS').optional(),
  PAYLINK_TEST_RELAYER_KEY: privateKey('PAYLINK_TEST_RELAYER_KEY'),
  PAYLINK_TEST_START_BLOCK: blockNumber('PAYLINK_TEST_START_BLOCK'),
  PAYLINK_FINALITY: z
    .string()
    .default('finalized')
    .transform((text, ctx): Finality => {
      if (text === 'finalized') return { kind: 'finalized' };
      const match = /^confirmations:(\d{1,4})$/.exec(text);
      if (!match) {
        ctx.addIssue({ code: 'custom', message: 'PAYLINK_FINALITY must be finalized or confirmations:N' });
        return z.NEVER;
      }
      return { kind: 'confirmations', confirmations: Number(match[1]) };
    }),
  PAYLINK_POLL_INTERVAL: duration('PAYLINK_POLL_INTERVAL').default(2_000),
  PAYLINK_MAX_BLOCK_RANGE: z.coerce.number().int().min(1).max(100_000).default(2_000),
  PAYLINK_START_BLOCK: blockNumber('PAYLINK_START_BLOCK'),
  PAYLINK_DUST_THRESHOLD: usdcAmount('PAYLINK_DUST_THRESHOLD').default(10_000n),
  PAYLINK_PAYOUT_DELAYED_AFTER: duration('PAYLINK_PAYOUT_DELAYED_AFTER').default(10 * 60_000),
  PAYLINK_RELAYER_LOW_BALANCE: z
    .string()
    .regex(/^\d+(\.\d{1,18})?$/, 'PAYLINK_RELAYER_LOW_BALANCE must be an amount of POL')
    .default('1'),
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
  PAYLINK_GASLESS: z.enum(['on', 'off']).default('on'),
  PAYLINK_GASLESS_RELAYER_KEY: privateKey('PAYLINK_GASLESS_RELAYER_KEY'),
  PAYLINK_GASLESS_MAX_FEE_PER_HOUR: z
    .string()
    .regex(/^\d+(\.\d{1,18})?$/, 'PAYLINK_GASLESS_MAX_FEE_PER_HOUR must be an amount of POL')
    .default('5'),
  // Checked by parseMailConfig, whose messages never quote the URL (it may hold a password).
  PAYLINK_SMTP_URL: z.string().optional(),
  PAYLINK_MAIL_FROM: z.string().optional(),
});

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
  if (e.PAYLINK_MIN_AMOUNT > e.PAYLINK_MAX_AMOUNT) {
    throw new ConfigError(
      'Invalid configuration:\n  PAYLINK_MIN_AMOUNT must not be above PAYLINK_MAX_AMOUNT: no link could be created',
    );
  }
  const mail = parseMailConfig(e.PAYLINK_SMTP_URL, e.PAYLINK_MAIL_FROM, e.PAYLINK_NETWORK);
  if (typeof mail === 'string') throw new ConfigError(`Invalid configuration:\n  ${mail}`);
  const preset = NETWORKS[e.PAYLINK_NETWORK];
  const urlHost = e.PAYLINK_HOST === '0.0.0.0' || e.PAYLINK_HOST === '::' ? '127.0.0.1' : e.PAYLINK_HOST;
  const config: Omit<Config, 'testChain'> = {
    databaseUrl: e.PAYLINK_DATABASE_URL,
    host: e.PAYLINK_HOST,
    apiPort: e.PAYLINK_API_PORT,
    checkoutPort: e.PAYLINK_CHECKOUT_PORT,
    baseUrl: e.PAYLINK_BASE_URL ?? `http://${urlHost}:${e.PAYLINK_API_PORT}`,
    checkoutUrl: e.PAYLINK_CHECKOUT_URL ?? `http://${urlHost}:${e.PAYLINK_CHECKOUT_PORT}`,
    network: e.PAYLINK_NETWORK,
    paymentTtlMs: e.PAYLINK_PAYMENT_TTL,
    refundClaimTtlMs: e.PAYLINK_REFUND_CLAIM_TTL,
    dashboardRequire2fa: e.PAYLINK_DASHBOARD_REQUIRE_2FA ?? false,
    maxAmountBaseUnits: e.PAYLINK_MAX_AMOUNT,
    minAmountBaseUnits: e.PAYLINK_MIN_AMOUNT,
    rates: {
      sources,
      cacheTtlMs: e.PAYLINK_RATES_CACHE_TTL,
      maxAgeMs: e.PAYLINK_RATES_MAX_AGE,
      maxSpreadBps: e.PAYLINK_RATES_MAX_SPREAD_BPS,
      timeoutMs: e.PAYLINK_RATES_TIMEOUT,
    },
    adminToken: e.PAYLINK_ADMIN_TOKEN,
    webhookAllowPrivate: e.PAYLINK_WEBHOOK_ALLOW_PRIVATE ?? e.PAYLINK_NETWORK === 'sandbox',
    rateLimit: {
      perKey: bucketPolicy(e.PAYLINK_RATE_LIMIT, e.PAYLINK_RATE_LIMIT_BURST),
      perIp: bucketPolicy(e.PAYLINK_RATE_LIMIT_IP, e.PAYLINK_RATE_LIMIT_IP_BURST),
      redisUrl: e.PAYLINK_REDIS_URL,
    },
    trustProxy: e.PAYLINK_TRUST_PROXY,
    connectionLimits: {
      requestTimeoutMs: e.PAYLINK_REQUEST_TIMEOUT,
      maxConnectionsPerClient: maxConnectionsPerClient(
        e.PAYLINK_MAX_CONNECTIONS_PER_CLIENT,
        e.PAYLINK_TRUST_PROXY,
      ),
    },
    authCacheTtlMs: e.PAYLINK_AUTH_CACHE_TTL,
    statusCacheEntries: e.PAYLINK_STATUS_CACHE_ENTRIES,
    readiness: { maxLagBlocks: e.PAYLINK_READY_MAX_LAG_BLOCKS, maxStallMs: e.PAYLINK_READY_MAX_STALL },
    webhooks: {
      timeoutMs: e.PAYLINK_WEBHOOK_TIMEOUT,
      retryScheduleMs: e.PAYLINK_WEBHOOK_RETRY_SCHEDULE,
      leaseMs: e.PAYLINK_WEBHOOK_TIMEOUT + 60_000,
    },
    logLevel: e.PAYLINK_LOG_LEVEL,
    defaultToleranceBps: e.PAYLINK_DEFAULT_TOLERANCE,
    payoutPolicy: {
      dustThresholdBaseUnits: e.PAYLINK_DUST_THRESHOLD,
      delayedAfterMs: e.PAYLINK_PAYOUT_DELAYED_AFTER,
    },
    sandboxWebhookPort: e.PAYLINK_SANDBOX_WEBHOOK_PORT,
    mail,
    chain: {
      network: e.PAYLINK_NETWORK,
      chainId: preset.chainId,
      rpcUrls:
        e.PAYLINK_RPC_URL.length > 0 || e.PAYLINK_NETWORK !== 'sandbox'
          ? e.PAYLINK_RPC_URL
          : [SANDBOX_RPC_URL],
      usdcAddress: e.PAYLINK_USDC_ADDRESS ?? preset.usdcAddress,
      publicRpcUrl: publicRpcUrl(e.PAYLINK_PUBLIC_RPC_URL, e.PAYLINK_NETWORK) ?? preset.publicRpcUrl,
      ...tokenSettings(
        preset,
        e.PAYLINK_USDC_ADDRESS ?? preset.usdcAddress,
        e.PAYLINK_ACCEPTED_TOKENS,
        e.PAYLINK_NOTICED_TOKENS,
        '',
      ),
      factoryAddress: e.PAYLINK_FACTORY_ADDRESS,
      treasuryAddress: e.PAYLINK_TREASURY_ADDRESS,
      relayerKey: e.PAYLINK_RELAYER_KEY,
      finality: e.PAYLINK_FINALITY,
      pollIntervalMs: e.PAYLINK_POLL_INTERVAL,
      maxBlockRange: e.PAYLINK_MAX_BLOCK_RANGE,
      startBlock: e.PAYLINK_START_BLOCK,
      dustThresholdBaseUnits: e.PAYLINK_DUST_THRESHOLD,
      relayerLowBalanceWei: polToWei(e.PAYLINK_RELAYER_LOW_BALANCE),
      gasless: {
        enabled: e.PAYLINK_GASLESS === 'on',
        relayerKey: e.PAYLINK_GASLESS_RELAYER_KEY,
        maxFeeWeiPerHour: polToWei(e.PAYLINK_GASLESS_MAX_FEE_PER_HOUR),
      },
    },
  };
  return deepFreeze({ ...config, testChain: testChainConfig(e, config.chain) });
}

/**
 * The test-mode chain: PAYLINK_TEST_NETWORK, default `sandbox` when the live network is the sandbox (one local
 * chain serves both modes), else `off`. On the live network itself every PAYLINK_TEST_* setting defaults to
 * the live one; on another network only USDC has a default (the preset's) and the RPC one on the sandbox.
 */
function testChainConfig(e: z.infer<typeof envSchema>, live: ChainConfig): ChainConfig | undefined {
  const network = e.PAYLINK_TEST_NETWORK ?? (e.PAYLINK_NETWORK === 'sandbox' ? 'sandbox' : 'off');
  if (network === 'off') return undefined;
  const same = network === live.network;
  const preset = NETWORKS[network];
  const rpcUrls =
    e.PAYLINK_TEST_RPC_URL.length > 0
      ? e.PAYLINK_TEST_RPC_URL
      : same
        ? live.rpcUrls
        : network === 'sandbox'
          ? [SANDBOX_RPC_URL]
          : [];
  return {
    ...live,
    network,
    chainId: preset.chainId,
    rpcUrls,
    usdcAddress: e.PAYLINK_TEST_USDC_ADDRESS ?? (same ? live.usdcAddress : preset.usdcAddress),
    // PAYLINK_PUBLIC_RPC_URL is the live network's: another test network keeps its preset.
    publicRpcUrl: same ? live.publicRpcUrl : preset.publicRpcUrl,
    // The live chain's token choices when it is the same network; the network's defaults otherwise.
    ...(same
      ? { acceptedTokens: live.acceptedTokens, noticedTokens: live.noticedTokens }
      : tokenSettings(
          preset,
          e.PAYLINK_TEST_USDC_ADDRESS ?? preset.usdcAddress,
          undefined,
          undefined,
          'TEST_',
        )),
    factoryAddress: e.PAYLINK_TEST_FACTORY_ADDRESS ?? (same ? live.factoryAddress : undefined),
    treasuryAddress: e.PAYLINK_TEST_TREASURY_ADDRESS ?? (same ? live.treasuryAddress : undefined),
    relayerKey: e.PAYLINK_TEST_RELAYER_KEY ?? (same ? live.relayerKey : undefined),
    // The gasless relayer's key is the live chain's; another test network offers it only on the sandbox.
    gasless: { ...live.gasless, relayerKey: same ? live.gasless.relayerKey : undefined },
    // A block number means nothing on another chain.
    startBlock: e.PAYLINK_TEST_START_BLOCK ?? (same ? live.startBlock : undefined),
  };
}

/**
 * PAYLINK_PUBLIC_RPC_URL: https, or http only on the sandbox or to a loopback host (a customer's browser cannot
 * reach anything else over plain http safely). Never with credentials: every customer's wallet is handed it.
 */
function publicRpcUrl(setting: string | undefined, network: Network): string | undefined {
  if (setting === undefined) return undefined;
  const parsed = new URL(setting);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol === 'http:' && network !== 'sandbox' && !loopback)
    throw new ConfigError(
      'Invalid configuration:\n  PAYLINK_PUBLIC_RPC_URL must be an https URL (http only on the sandbox or a loopback host)',
    );
  if (parsed.username || parsed.password)
    throw new ConfigError('Invalid configuration:\n  PAYLINK_PUBLIC_RPC_URL must not carry credentials');
  return setting;
}

/**
 * Open connections per client address: 64 by default; behind a proxy (PAYLINK_TRUST_PROXY set) every connection
 * comes from the proxy, so there is no cap unless one is given.
 */
function maxConnectionsPerClient(setting: string | undefined, trustProxy: Config['trustProxy']): number {
  if (setting === 'off') return 0;
  if (setting !== undefined) return Number(setting);
  return trustProxy === false ? 64 : 0;
}

/**
 * PAYLINK_ACCEPTED_TOKENS and PAYLINK_NOTICED_TOKENS: comma-separated symbols of the network's known tokens
 * (`USDC,USDC.e`), or `SYMBOL:0xaddress[:decimals]` for others. USDC is always accepted, first, at `usdc`; an
 * accepted token must have 6 decimals (it is counted as USDC). Noticed by default: the network's usual mistakes.
 */
function tokenSettings(
  preset: NetworkPreset,
  usdc: Address | undefined,
  acceptedSpec: string | undefined,
  noticedSpec: string | undefined,
  prefix: '' | 'TEST_',
): { acceptedTokens: TokenSetting[]; noticedTokens: TokenSetting[] } {
  const parse = (variable: string, spec: string): TokenSetting[] =>
    spec
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => {
        const [symbol = '', address, decimals] = entry.split(':').map((part) => part.trim());
        if (address === undefined) {
          const known = preset.knownTokens[symbol];
          if (!known) {
            throw new ConfigError(
              `Invalid configuration:\n  ${variable}: ${JSON.stringify(symbol)} is not a token known on this network (${Object.keys(preset.knownTokens).join(', ')}); give SYMBOL:0xaddress`,
            );
          }
          return symbol === 'USDC' ? { ...known, address: usdc } : known;
        }
        if (
          !/^[A-Za-z][\w.]{0,15}$/.test(symbol) ||
          !isAddress(address, { strict: false }) ||
          !/^\d{0,2}$/.test(decimals ?? '')
        ) {
          throw new ConfigError(
            `Invalid configuration:\n  ${variable}: "${entry}" is not SYMBOL:0xaddress[:decimals]`,
          );
        }
        return { symbol, address: getAddress(address), decimals: decimals ? Number(decimals) : 6 };
      });
  const acceptedVariable = `PAYLINK_${prefix}ACCEPTED_TOKENS`;
  const accepted = parse(acceptedVariable, acceptedSpec ?? 'USDC');
  if (accepted[0]?.symbol !== 'USDC') {
    throw new ConfigError(
      `Invalid configuration:\n  ${acceptedVariable} must start with USDC, the token payments ask for`,
    );
  }
  for (const token of accepted) {
    if (token.decimals !== 6) {
      throw new ConfigError(
        `Invalid configuration:\n  ${acceptedVariable}: ${token.symbol} has ${token.decimals} decimals; an accepted token is counted as USDC and must have 6`,
      );
    }
  }
  const isAccepted = (token: TokenSetting) => accepted.some((a) => a.symbol === token.symbol);
  const noticed = (
    noticedSpec === undefined
      ? preset.noticedByDefault.map((symbol) => preset.knownTokens[symbol]!)
      : parse(`PAYLINK_${prefix}NOTICED_TOKENS`, noticedSpec)
  ).filter((token) => !isAccepted(token));
  return { acceptedTokens: accepted, noticedTokens: noticed };
}

/** The sandbox's own anvil. */
export const SANDBOX_RPC_URL = 'http://127.0.0.1:8545';

function polToWei(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'));
}

/**
 * The chain settings a role needs, or a ConfigError naming what is missing. Checked when the API or worker
 * starts, not at load, so administrative commands run without a chain configured.
 */
export function requireChainSetting<K extends keyof ChainConfig>(
  config: Pick<Config, 'chain'>,
  key: K,
  variable: string,
  chain: ChainConfig = config.chain,
): NonNullable<ChainConfig[K]> {
  const value = chain[key];
  if (value === undefined || (Array.isArray(value) && value.length === 0)) {
    throw new ConfigError(`Invalid configuration:\n  ${variable} is required on ${chain.network}`);
  }
  return value as NonNullable<ChainConfig[K]>;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
