import type { Logger } from 'pino';
import type { ApiDeps } from '../adapters/api/apiDeps.ts';
import type { HealthApiDeps } from '../adapters/api/routes/healthApi.ts';
import { PROBE_TIMEOUT_MS } from '../adapters/api/routes/healthApi.ts';
import { cachedMerchantStore } from '../adapters/cache/cachedMerchantStore.ts';
import type { CheckoutDeps } from '../adapters/checkout/checkoutPlugin.ts';
import { modeOfHomeChain, paymentNetworks } from '../adapters/checkout/paymentNetworks.ts';
import { isCommonPassword } from '../adapters/crypto/commonPasswords.ts';
import { scryptPasswords } from '../adapters/crypto/scryptPasswords.ts';
import { totpSecondFactor } from '../adapters/crypto/totp.ts';
import type { DashboardDeps } from '../adapters/dashboard/dashboardDeps.ts';
import type { DatabaseHandle } from '../adapters/db/database.ts';
import { customerEmails } from '../adapters/email/customerEmails.ts';
import { createMetrics, type Metrics } from '../adapters/metrics/metrics.ts';
import { createWebhookSender } from '../adapters/outbound/webhookSender.ts';
import { memoryBucketStore } from '../adapters/rateLimit/memoryBucketStore.ts';
import type { BrandStore } from '../app/brand/ports.ts';
import type { MerchantOverviewStore, PasswordHasher, UserStore } from '../app/dashboard/ports.ts';
import type { EmailStore } from '../app/email/ports.ts';
import type { MerchantStore } from '../app/merchants/ports.ts';
import type { ChainProbe } from '../app/operations/checkReadiness.ts';
import { measureService } from '../app/operations/measureService.ts';
import type { MonitoringStore } from '../app/operations/ports.ts';
import type { CatalogueStore, ReceiptTokenStore } from '../app/pos/ports.ts';
import type { SettlementStore } from '../app/settlement/ports.ts';
import type { Clock, RateLimitStore } from '../app/shared/ports.ts';
import type { MandateStore } from '../app/subscriptions/mandatePorts.ts';
import { DEFAULT_RENEWAL_LEAD_MS, DEFAULT_RENEWAL_RECHECK_MS } from '../app/subscriptions/renewal.ts';
import type { Config } from '../config/index.ts';
import { DEFAULT_LOGO_RULES } from '../domain/brand.ts';
import { chainViews } from './chains/chainViews.ts';
import type { HomeChain } from './chains/model.ts';
import { checkoutGasless, checkoutModeNetworks, checkoutRefunds } from './checkoutServices.ts';
import { checkoutMandates, renewalPull } from './pullServices.ts';
import { rateLimitBuckets } from './rateLimitBuckets.ts';
import { renewalDeps } from './renewalServices.ts';
import { createRates, type createStores, hostResolver } from './wiring.ts';
import { x402Facilitator } from './x402Services.ts';

/**
 * What the API port (the merchant and admin API, and the dashboard beside it) is built from: the stores and
 * adapters of this deployment (the API plugin's own dependencies, and the dashboard's users beside them). What is
 * not given is made here from the configuration (`apiServices`), once.
 */
export interface ApiServerInput extends Omit<ApiDeps, 'health' | 'metrics' | 'rateLimitStore' | 'config'> {
  /** The e-mail queue, for the dashboard's payment requests; absent: the dashboard sends none again. */
  readonly emails?: EmailStore | undefined;
  /** Payouts owed, for the operator's console; absent: the console has no payouts page. */
  readonly settlements?: SettlementStore | undefined;
  /** Password hashing for the dashboard (default scrypt at full cost; tests may pass a cheaper one). */
  readonly passwords?: PasswordHasher | undefined;
  /** A merchant's home page's reads (adapters/db/overviewRepository.ts); absent: the home is the payments list. */
  readonly overview?: MerchantOverviewStore | undefined;
  /** Merchants' branding (adapters/db/brandRepository.ts); absent: no brand page. */
  readonly brands?: BrandStore | undefined;
  /** The point of sale's catalogue (adapters/db/posCatalogueRepository.ts); absent: no point of sale. */
  readonly posCatalogue?: CatalogueStore | undefined;
  /** A paid sale's receipt page, for the point of sale's receipt QR code; absent: none is offered. */
  readonly receiptTokens?: ReceiptTokenStore | undefined;
  /** Aggregate reads for /metrics and /readyz (adapters/db/monitoringRepository.ts). */
  readonly monitoring?: MonitoringStore | undefined;
  /** Subscriptions' mandates (pull renewal), shown on a subscription's dashboard page; absent: not shown. */
  readonly mandates?: Pick<MandateStore, 'findMandate'> | undefined;
  /** Each chain's native token by chain id, for the health page's relayer balances; absent: none is named. */
  readonly nativeSymbols?: ReadonlyMap<number, string> | undefined;
  /** Each chain's name by chain id, for the point of sale; absent: chains are named by their id. */
  readonly networkNames?: ReadonlyMap<number, string> | undefined;
  /** The chain /readyz and /metrics probe; absent: RPC and watcher are reported as not checked. */
  readonly chainProbe?: ChainProbe | undefined;
  /** The test-mode chain when it is another chain: probed and reported too, never gating readiness. */
  readonly testChainProbe?: ChainProbe | undefined;
  /** This process's registry, shared with its background jobs; absent: the server makes its own. */
  readonly metrics?: Metrics | undefined;
  /** Rate-limit buckets; absent: Redis when PAYLINK_REDIS_URL is set, else memory (closed with the server). */
  readonly rateLimitStore?: RateLimitStore | undefined;
  readonly config: ApiDeps['config'] &
    Pick<Config, 'authCacheTtlMs' | 'connectionLimits' | 'dashboardRequire2fa' | 'readiness' | 'webhooks'> &
    Partial<Pick<Config, 'logoRules'>>;
}

/** The API port's plugins' dependencies, each made once, and what closes those made here. */
export interface ApiServices {
  readonly api: ApiDeps;
  /** Absent where there are no dashboard users (`users`). */
  readonly dashboard: DashboardDeps | undefined;
  readonly close: () => Promise<void>;
}

/** Builds what the API and the dashboard need from `input`; the caller closes it (`close`) with the server. */
export function apiServices(input: ApiServerInput): ApiServices {
  const { config } = input;
  const owned: { close(): Promise<void> | void }[] = [];
  const metrics = input.metrics ?? createMetrics();
  const rateLimitStore = input.rateLimitStore ?? ownedRateLimitStore(config, input.logger);
  if (rateLimitStore && !input.rateLimitStore) owned.push(rateLimitStore);
  const health = healthOf(input, metrics);
  const api: ApiDeps = {
    ...input,
    // Every authenticated request looks its key up (rate limit, then route): remembered for a few seconds.
    merchants: cachedMerchantStore(input.merchants, config.authCacheTtlMs),
    metrics,
    health,
    rateLimitStore,
  };
  let dashboard: DashboardDeps | undefined;
  if (input.users) {
    // Sign-in attempts are always limited, rate limiting of the API on or off.
    let buckets = rateLimitStore;
    if (!buckets) {
      buckets = memoryBucketStore();
      owned.push(buckets);
    }
    // "Send test webhook": the same guarded sender as the worker's, so the same addresses are refused.
    const webhookSender = createWebhookSender({
      allowPrivate: config.webhookAllowPrivate,
      timeoutMs: config.webhooks.timeoutMs,
    });
    owned.push(webhookSender);
    dashboard = dashboardDeps(input, input.users, {
      cachedMerchants: api.merchants,
      buckets,
      webhookSender,
      measure: () => measureService(health, PROBE_TIMEOUT_MS),
    });
  }
  return {
    api,
    dashboard,
    close: async () => {
      await Promise.all(owned.map((resource) => resource.close()));
    },
  };
}

/**
 * The rate limit's buckets when either limit is on: in Redis where PAYLINK_REDIS_URL is set (every API process
 * counts in one bucket), else in this process's memory.
 */
function ownedRateLimitStore(config: Pick<Config, 'rateLimit'>, logger: Logger): RateLimitStore | undefined {
  const { perKey, perIp } = config.rateLimit;
  return perKey || perIp ? rateLimitBuckets(config, logger) : undefined;
}

/** What /healthz, /readyz and /metrics read, and the operator's health page too. */
function healthOf(input: ApiServerInput, metrics: Metrics): HealthApiDeps {
  return {
    // Until a monitoring store is wired, reading the watcher's cursor is the database probe and the
    // aggregate gauges stay empty.
    monitoring: input.monitoring ?? {
      ping: async () => {
        await input.ledger.cursor(input.chainProbe?.chainId ?? 0);
      },
      countPaymentsByStatus: () => Promise.reject(new Error('no monitoring store')),
      webhookQueue: () => Promise.reject(new Error('no monitoring store')),
      payoutHealth: () => Promise.reject(new Error('no monitoring store')),
      relayerBalances: () => Promise.reject(new Error('no monitoring store')),
      gaslessRelays: () => Promise.reject(new Error('no monitoring store')),
      bridgeSteps: () => Promise.reject(new Error('no monitoring store')),
    },
    ledger: input.ledger,
    clock: input.clock,
    chain: input.chainProbe,
    testChain: input.testChainProbe,
    metrics,
    readiness: input.config.readiness,
    payoutPolicy: input.config.payoutPolicy,
  };
}

function dashboardDeps(
  input: ApiServerInput,
  users: UserStore,
  made: Pick<DashboardDeps, 'buckets' | 'webhookSender' | 'measure'> & { cachedMerchants: MerchantStore },
): DashboardDeps {
  const { config } = input;
  // Where e-mail is configured: the New payment form's "send by e-mail" and the payment page's button.
  const paymentRequests = customerEmails(config, (chainId) => input.explorers?.get(chainId))?.paymentRequests;
  return {
    users,
    // Uncached: a merchant disabled is signed out at its next request, not after the auth cache's TTL.
    merchants: input.merchants,
    payments: input.payments,
    ledger: input.ledger,
    webhooks: input.webhooks,
    webhookEndpoints: input.webhookEndpoints,
    deposits: input.deposits,
    explorers: input.explorers,
    nativeSymbols: input.nativeSymbols,
    networkNames: input.networkNames,
    overview: input.overview,
    clock: input.clock,
    merchantAdmin: {
      merchants: made.cachedMerchants,
      clock: input.clock,
      hostResolver: input.hostResolver,
      webhookAllowPrivate: config.webhookAllowPrivate,
      tokenControls: input.tokenControls?.live,
      defaultToleranceBps: config.defaultToleranceBps,
      deposits: input.deposits,
      depositAddresses: input.refunds,
    },
    refunds: input.refunds && {
      store: input.refunds,
      claimTtlMs: config.refundClaimTtlMs,
      checkoutUrl: config.checkoutUrl,
    },
    payouts: input.settlements && { settlements: input.settlements, policy: config.payoutPolicy },
    // "New payment" goes through the API's create, with its checks and its idempotency.
    paymentCreation: {
      deps: {
        ...input,
        ...paymentLimits(config),
        paymentRequests,
      },
      checkoutUrl: config.checkoutUrl,
    },
    paymentRequests:
      paymentRequests && input.emails ? { emails: input.emails, settings: paymentRequests } : undefined,
    paymentLinks: input.links && {
      store: input.links,
      checkoutUrl: config.checkoutUrl,
      webhookAllowPrivate: config.webhookAllowPrivate,
    },
    posCatalogue: input.posCatalogue,
    // The subscription pages' use cases are the API's (the checkout's too), with the period's request e-mail.
    subscriptions: input.subscriptions && {
      renewal: {
        ...input,
        subscriptions: input.subscriptions,
        ...paymentLimits(config),
        paymentRequests,
        pull: input.pull,
        renewalLeadMs: DEFAULT_RENEWAL_LEAD_MS,
        renewalRecheckMs: DEFAULT_RENEWAL_RECHECK_MS,
      },
      checkoutUrl: config.checkoutUrl,
      mandates: input.mandates,
    },
    branding: input.brands && { store: input.brands, logoRules: config.logoRules ?? DEFAULT_LOGO_RULES },
    receiptTokens: input.receiptTokens,
    measure: made.measure,
    webhookSender: made.webhookSender,
    passwords: input.passwords ?? scryptPasswords(),
    secondFactor: totpSecondFactor,
    requireOperatorSecondFactor: config.dashboardRequire2fa,
    buckets: made.buckets,
    isCommonPassword,
    baseUrl: config.baseUrl,
  };
}

/** What the checkout's server is built from: its plugin's dependencies, and the server's own settings. */
export interface CheckoutServerInput extends CheckoutDeps {
  readonly logger: Logger;
  /** Request timeout and connections per client (the page is public: anyone may connect); default: the defaults. */
  readonly connectionLimits?: Config['connectionLimits'] | undefined;
}

/** What `serve` runs its two web servers on, made once for both; `close` after both servers are closed. */
export interface WebServices {
  readonly api: ApiServerInput & { readonly passwords: PasswordHasher };
  readonly checkout: CheckoutServerInput;
  readonly close: () => Promise<void>;
}

/** Every dependency of the web edge of a deployment: its stores, and its chains (config.chains, resolved). */
export function webServices(
  config: Config,
  made: {
    readonly database: DatabaseHandle;
    readonly stores: ReturnType<typeof createStores>;
    readonly chains: readonly HomeChain[];
    readonly metrics: Metrics;
    readonly clock: Clock;
    readonly logger: Logger;
  },
): WebServices {
  const { stores, chains, clock, logger } = made;
  const views = chainViews(chains, clock, logger);
  const { deposits } = views;
  const paymentChanges = made.database.followPaymentChanges(logger);
  const gaslessBuckets = rateLimitBuckets(config, logger);
  // What each payment's page offers: its home chain, then the mode's source chains (decision 0033).
  const modeNetworks = checkoutModeNetworks(chains, views.checkoutNetworks);
  const api: WebServices['api'] = {
    ...stores,
    // The same networks, stated in the create response's quote with their CCTP speed and fee cap (decision 0034).
    networksOf: (deposit) => paymentNetworks(deposit, modeOfHomeChain(modeNetworks, deposit.chainId)),
    paymentChanges,
    explorers: views.explorers,
    nativeSymbols: views.nativeSymbols,
    networkNames: views.networkNames,
    tokenControls: views.tokenControls,
    deposits,
    hostResolver,
    // One hasher for the dashboard's sign-ins and the sandbox's demo users.
    passwords: scryptPasswords(),
    metrics: made.metrics,
    chainProbe: views.chainProbe,
    testChainProbe: views.testChainProbe,
    rates: createRates(config, clock, logger),
    x402: x402Facilitator(config, { stores, chains, deposits, clock }),
    pull: renewalPull(
      stores,
      chains,
      clock,
      customerEmails(config, (chainId) => views.explorers.get(chainId))?.paymentRequests,
    ),
    clock,
    logger,
    config,
  };
  const checkout: CheckoutServerInput = {
    refundClaims: checkoutRefunds(stores, deposits, chains, clock),
    subscriptionPages: {
      renewal: renewalDeps(config, { stores, chains, views, rates: api.rates, clock, logger }),
      buckets: gaslessBuckets,
      receiptTokens: stores.receiptTokens,
      checkoutUrl: config.checkoutUrl,
    },
    linkPages: {
      // A payment made from a link's page is the API's: the same pipeline, rates and limits.
      pay: {
        ...stores,
        deposits,
        rates: api.rates,
        clock,
        tokenControls: views.tokenControls,
        hostResolver,
        ...paymentLimits(config),
      },
      buckets: gaslessBuckets,
    },
    ...stores,
    clock,
    logger,
    connectionLimits: config.connectionLimits,
    gasless: checkoutGasless(stores, chains, clock, logger, {
      buckets: gaslessBuckets,
      minValueBaseUnits: config.minAmountBaseUnits,
    }),
    mandatePages: checkoutMandates(stores, chains, clock, gaslessBuckets),
    // Each payment is shown on its own chain: the live one, or the test one for test-mode payments.
    network: views.checkoutNetworks,
    modeNetworks,
  };
  return {
    api,
    checkout,
    close: async () => {
      await Promise.all([paymentChanges.close(), gaslessBuckets.close()]);
    },
  };
}

/** The API's limits on a payment, shared by the pipelines that make payments. */
function paymentLimits(
  config: Pick<Config, 'paymentTtlMs' | 'maxAmountBaseUnits' | 'minAmountBaseUnits' | 'webhookAllowPrivate'>,
) {
  const { paymentTtlMs, maxAmountBaseUnits, minAmountBaseUnits, webhookAllowPrivate } = config;
  return { paymentTtlMs, maxAmountBaseUnits, minAmountBaseUnits, webhookAllowPrivate };
}
