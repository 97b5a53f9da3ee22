import { z } from 'zod';
import type { LogoRules } from '../domain/brand.ts';
import type { PayoutPolicy } from '../domain/payout.ts';
import { brandConfig, brandEnv } from './brand.ts';
import { type CctpConfig, cctpConfig, cctpEnv } from './chains/cctp.ts';
import { type ChainSettings, chainsConfig, chainsEnv, type HomeChainSettings } from './chains/chainList.ts';
import type { HomeNetwork } from './chains/networks.ts';
import { ConfigError } from './configError.ts';
import { dashboardConfig, dashboardEnv } from './dashboard.ts';
import {
  type ConnectionLimits,
  limitsConfig,
  limitsEnv,
  type RateLimitConfig,
  type TrustProxy,
} from './limits.ts';
import { type MailConfig, mailEnv, parseMailConfig } from './mail.ts';
import { paymentsConfig, paymentsEnv } from './payments.ts';
import { type RatesConfig, ratesConfig, ratesEnv } from './rates.ts';
import { serviceConfig, serviceEnv } from './service.ts';
import { type WebhooksConfig, webhooksConfig, webhooksEnv } from './webhooks.ts';

export { attestationUrlOf, type CctpConfig, IRIS_MAINNET_URL, IRIS_TESTNET_URL } from './chains/cctp.ts';
/**
 * Configuration: read once from the environment at start, validated, frozen. A bad value stops the process
 * with a message naming the variable. The README's configuration table lists the same variables.
 *
 * Each file of this folder holds one area's variables (their schema and what they become); `loadConfig` below
 * is the one place that reads the environment, through the one schema they make together.
 */
export {
  type CctpRouteSettings,
  type ChainMode,
  type ChainRole,
  type ChainSettings,
  chainsOfMode,
  type Finality,
  type HomeChainSettings,
  isSourceChain,
  requireChainSetting,
  type SourceChainSettings,
} from './chains/chainList.ts';
export {
  CCTP_DOMAINS,
  type ChainNetwork,
  type HomeNetwork,
  LIVE_SOURCE_NETWORKS,
  NETWORKS,
  type NetworkPreset,
  SANDBOX_RPC_URL,
  type SourceNetwork,
  TEST_SOURCE_NETWORKS,
  type TokenSetting,
  type VariablePrefix,
} from './chains/networks.ts';
export { sourceVariablePrefix } from './chains/sourceChains.ts';
export { ConfigError } from './configError.ts';
export type { ConnectionLimits } from './limits.ts';
export type { RateSourceConfig } from './rates.ts';

export interface Config {
  readonly databaseUrl: string;
  readonly host: string;
  readonly apiPort: number;
  readonly checkoutPort: number;
  readonly baseUrl: string;
  readonly checkoutUrl: string;
  readonly network: HomeNetwork;
  readonly paymentTtlMs: number;
  /** How long a customer has to give a refund's address on its claim page. */
  readonly refundClaimTtlMs: number;
  /** Operators must enroll a TOTP second factor before the dashboard serves them anything else. */
  readonly dashboardRequire2fa: boolean;
  /** What a merchant's logo may be (PAYLINK_LOGO_MAX_BYTES, PAYLINK_LOGO_MAX_PIXELS; decision 0052). */
  readonly logoRules: LogoRules;
  readonly maxAmountBaseUnits: bigint;
  /** The least USDC a payment link may ask for, after conversion (PAYLINK_MIN_AMOUNT). */
  readonly minAmountBaseUnits: bigint;
  readonly rates: RatesConfig;
  readonly adminToken: string | undefined;
  readonly webhookAllowPrivate: boolean;
  /** Rate limits of the merchant API (docs/decisions/0007-rate-limits.md); null: not limited. */
  readonly rateLimit: RateLimitConfig;
  /** Fastify's trustProxy: which proxies' X-Forwarded-For gives the client address (the per-IP limit). */
  readonly trustProxy: TrustProxy;
  /** What one client may hold open on the API and checkout servers (request timeout, connections per address). */
  readonly connectionLimits: ConnectionLimits;
  /** How long an authenticated API key is remembered by an API process (0: looked up on every request). */
  readonly authCacheTtlMs: number;
  /** Status responses an API process keeps until their payment changes (0: none; docs/decisions/0010). */
  readonly statusCacheEntries: number;
  /** When /readyz calls the chain watcher failing. */
  readonly readiness: { readonly maxLagBlocks: number; readonly maxStallMs: number };
  readonly webhooks: WebhooksConfig;
  readonly logLevel: string;
  /**
   * When a payout's status says `delayed` (and `payment.payout_delayed` is owed), and the dust threshold below
   * which final funds wait (the live chain's; the test chain uses the same).
   */
  readonly payoutPolicy: PayoutPolicy;
  /** A new merchant's underpayment tolerance when none is given, in basis points (PAYLINK_DEFAULT_TOLERANCE). */
  readonly defaultToleranceBps: number;
  /**
   * Every chain the deployment takes payments on, per mode its home chain then its source chains: the live home
   * (PAYLINK_NETWORK) and PAYLINK_CHAINS, then when test mode is on the test home and PAYLINK_TEST_CHAINS.
   */
  readonly chains: readonly ChainSettings[];
  /** The live home chain (PAYLINK_NETWORK): the entry of `chains` whose mode is live and role home. */
  readonly liveHomeChain: HomeChainSettings;
  /**
   * The home chain of test-mode payments (sk_test_ keys), or undefined when test mode is off: the entry of
   * `chains` whose mode is test and role home. It may be the live chain itself (the sandbox serves both modes):
   * then it has the live chain's id and settings.
   */
  readonly testHomeChain: HomeChainSettings | undefined;
  /** Circle's attestation API, when some chain burns through CCTP (a source chain is enabled). */
  readonly cctp: CctpConfig | undefined;
  /** Sandbox only: where the demo merchant's webhook inbox listens. */
  readonly sandboxWebhookPort: number;
  /** E-mail to customers (PAYLINK_SMTP_URL, PAYLINK_MAIL_FROM); undefined: none is queued. */
  readonly mail: MailConfig | undefined;
}

const envSchema = z.object({
  ...serviceEnv,
  ...paymentsEnv,
  ...dashboardEnv,
  ...brandEnv,
  ...ratesEnv,
  ...webhooksEnv,
  ...limitsEnv,
  ...chainsEnv,
  ...cctpEnv,
  ...mailEnv,
});

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  const network = e.PAYLINK_NETWORK;
  const rates = ratesConfig(e, network);
  const payments = paymentsConfig(e);
  const { chains, liveHome, testHome } = chainsConfig(e, network, env);
  const mail = parseMailConfig(e.PAYLINK_SMTP_URL, e.PAYLINK_MAIL_FROM, network);
  if (typeof mail === 'string') throw new ConfigError(`Invalid configuration:\n  ${mail}`);
  return deepFreeze({
    ...serviceConfig(e),
    ...payments,
    ...dashboardConfig(e),
    ...brandConfig(e),
    rates,
    ...webhooksConfig(e, network),
    ...limitsConfig(e),
    payoutPolicy: {
      dustThresholdBaseUnits: e.PAYLINK_DUST_THRESHOLD,
      delayedAfterMs: e.PAYLINK_PAYOUT_DELAYED_AFTER,
    },
    chains,
    liveHomeChain: liveHome,
    testHomeChain: testHome,
    cctp: cctpConfig(e, chains),
    mail,
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
