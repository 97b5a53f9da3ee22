import type { Logger } from 'pino';
import type { Ledger } from '../../app/chain/ports.ts';
import type { TokenControlsByMode } from '../../app/chain/tokenControls.ts';
import type { PasswordHasher, UserStore } from '../../app/dashboard/ports.ts';
import type { LinkStore } from '../../app/links/ports.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import type { ChainProbe } from '../../app/operations/checkReadiness.ts';
import type { MonitoringStore } from '../../app/operations/ports.ts';
import type {
  DepositPlanners,
  IdempotencyStore,
  PaymentChangeMarks,
  PaymentStore,
  RateProvider,
} from '../../app/payments/ports.ts';
import type { RefundStore } from '../../app/refunds/ports.ts';
import type { SettlementStore } from '../../app/settlement/ports.ts';
import type { Clock, RateLimitStore } from '../../app/shared/ports.ts';
import type { HostResolver, WebhookStore } from '../../app/webhooks/ports.ts';
import type { Config } from '../../config/index.ts';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * What the HTTP API is built from (`buildApp`). Its own module: every route plugin reads it, and importing it
 * from buildApp.ts, which imports the routes, made each route a cycle.
 */
export interface ApiDeps {
  readonly merchants: MerchantStore;
  readonly payments: PaymentStore;
  /** Deposit planning on each mode's chain; without `test`, test keys get 409 TEST_MODE_UNAVAILABLE on create. */
  readonly deposits: DepositPlanners;
  readonly ledger: Ledger;
  /** Tells the status read cache when payments change; absent: status is read from the database every time. */
  readonly paymentChanges?: PaymentChangeMarks | undefined;
  readonly idempotency: IdempotencyStore;
  /** Refunds and their deposit rows; absent: the refund endpoints are not served. */
  readonly refunds?: RefundStore | undefined;
  /** Reusable payment links; absent: the link endpoints are not served. */
  readonly links?: LinkStore | undefined;
  /** Each chain's block explorer, for the dashboard's links to transactions. */
  readonly explorers?: ReadonlyMap<number, string> | undefined;
  /** Payouts owed, for the operator's console; absent: the console has no payouts page. */
  readonly settlements?: SettlementStore | undefined;
  /** Dashboard users and sessions; absent: the dashboard is not served. */
  readonly users?: UserStore | undefined;
  /** Password hashing for the dashboard (default scrypt at full cost; tests may pass a cheaper one). */
  readonly passwords?: PasswordHasher | undefined;
  readonly rates: RateProvider;
  readonly webhooks: WebhookStore;
  /** Resolves webhook host names when they are saved, to refuse internal ones; without it only IP literals are. */
  readonly hostResolver?: HostResolver | undefined;
  /** Each mode's token controls (blacklist, pause), checked before a link is sold or a wallet set. */
  readonly tokenControls?: TokenControlsByMode | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Aggregate reads for /metrics and /readyz (adapters/db/monitoringRepository.ts). */
  readonly monitoring?: MonitoringStore | undefined;
  /** The chain /readyz and /metrics probe; absent: RPC and watcher are reported as not checked. */
  readonly chainProbe?: ChainProbe | undefined;
  /** The test-mode chain when it is another chain: probed and reported too, never gating readiness. */
  readonly testChainProbe?: ChainProbe | undefined;
  /** This process's registry, shared with its background jobs; absent: the app makes its own. */
  readonly metrics?: Metrics | undefined;
  /** Rate-limit buckets; absent: Redis when PAYLINK_REDIS_URL is set, else memory (closed with the app). */
  readonly rateLimitStore?: RateLimitStore | undefined;
  readonly config: Pick<
    Config,
    | 'checkoutUrl'
    | 'baseUrl'
    | 'paymentTtlMs'
    | 'refundClaimTtlMs'
    | 'dashboardRequire2fa'
    | 'payoutPolicy'
    | 'maxAmountBaseUnits'
    | 'minAmountBaseUnits'
    | 'webhookAllowPrivate'
    | 'adminToken'
    | 'rateLimit'
    | 'trustProxy'
    | 'readiness'
    | 'authCacheTtlMs'
    | 'statusCacheEntries'
    | 'connectionLimits'
    | 'defaultToleranceBps'
    | 'webhooks'
  > & { readonly mail?: Config['mail'] };
}
