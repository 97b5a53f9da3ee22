import type { Logger } from 'pino';
import type { BrandStore } from '../../app/brand/ports.ts';
import type { Ledger } from '../../app/chain/ports.ts';
import type { TokenControlsByMode } from '../../app/chain/tokenControls.ts';
import type { UserStore } from '../../app/dashboard/ports.ts';
import type { LinkStore } from '../../app/links/ports.ts';
import type { KeyUsage } from '../../app/merchants/keyUsage.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import type {
  DepositPlanners,
  IdempotencyStore,
  PaymentChangeMarks,
  PaymentStore,
  RateProvider,
} from '../../app/payments/ports.ts';
import type { RefundStore } from '../../app/refunds/ports.ts';
import type { Clock, RateLimitStore } from '../../app/shared/ports.ts';
import type { SubscriptionStore } from '../../app/subscriptions/ports.ts';
import type { PullRenewal } from '../../app/subscriptions/pullCharges.ts';
import type { EventStore, WebhookEndpointStore } from '../../app/webhooks/endpointPorts.ts';
import type { HostResolver, WebhookStore } from '../../app/webhooks/ports.ts';
import type { X402SettleDeps } from '../../app/x402/settlePayment.ts';
import type { Config } from '../../config/index.ts';
import type { Payment } from '../../domain/payment.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { QuotedNetwork } from './presenters.ts';
import type { HealthApiDeps } from './routes/healthApi.ts';

/**
 * What the merchant and admin API's plugin (`apiPlugin`) is built from, every piece made by `main/`. Its own
 * module: every route plugin reads it, and importing it from apiPlugin.ts, which imports the routes, made each
 * route a cycle.
 */
export interface ApiDeps {
  /** Read on every authenticated request: `main/` gives a cached store (PAYLINK_AUTH_CACHE_TTL). */
  readonly merchants: MerchantStore;
  /** Where a key's use is recorded ("last used"); absent: the API plugin makes one writing to `merchants`. */
  readonly keyUsage?: KeyUsage | undefined;
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
  /** Plans and subscriptions; absent: their endpoints are not served. */
  readonly subscriptions?: SubscriptionStore | undefined;
  /**
   * Pull renewal (decision 0061), where a charger is configured: a look at a subscription made here (a create, a
   * cancel, a plan change) leaves a period with a mandate to be charged, as the worker's look does, not e-mailed.
   */
  readonly pull?: PullRenewal | undefined;
  /**
   * The networks a new payment may be paid on (home first, then CCTP source chains), stated in the create
   * response's quote; absent: the quote names none (one chain).
   */
  readonly networksOf?: ((deposit: NonNullable<Payment['deposit']>) => readonly QuotedNetwork[]) | undefined;
  /** Each chain's block explorer, for the transaction links in e-mails to customers. */
  readonly explorers?: ReadonlyMap<number, string> | undefined;
  /** The x402 facilitator (decision 0059); absent: its endpoints are not served. */
  readonly x402?: X402SettleDeps | undefined;
  /** Dashboard users, for the admin API's user endpoints; absent: those are not served. */
  readonly users?: UserStore | undefined;
  /** Merchants' branding, for the admin API's receipt details (decision 0057); absent: that route is not served. */
  readonly brands?: BrandStore | undefined;
  readonly rates: RateProvider;
  readonly webhooks: WebhookStore;
  /** Merchants' webhook endpoints (decision 0058); absent: their endpoints are not served. */
  readonly webhookEndpoints?: WebhookEndpointStore | undefined;
  /** The outbox read as merchants' event history; absent: the events API is not served. */
  readonly events?: EventStore | undefined;
  /** Resolves webhook host names when they are saved, to refuse internal ones; without it only IP literals are. */
  readonly hostResolver?: HostResolver | undefined;
  /** Each mode's token controls (blacklist, pause), checked before a link is sold or a wallet set. */
  readonly tokenControls?: TokenControlsByMode | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** What /healthz, /readyz and /metrics read: the database, each chain's probe, the registry. */
  readonly health: HealthApiDeps;
  /** This process's registry, shared with its background jobs. */
  readonly metrics: Metrics;
  /** The rate limit's buckets; absent: requests are not rate limited. */
  readonly rateLimitStore?: RateLimitStore | undefined;
  readonly config: Pick<
    Config,
    | 'checkoutUrl'
    | 'baseUrl'
    | 'paymentTtlMs'
    | 'refundClaimTtlMs'
    | 'payoutPolicy'
    | 'maxAmountBaseUnits'
    | 'minAmountBaseUnits'
    | 'webhookAllowPrivate'
    | 'adminToken'
    | 'rateLimit'
    | 'trustProxy'
    | 'statusCacheEntries'
    | 'defaultToleranceBps'
    | 'webhooks'
  > & { readonly mail?: Config['mail'] };
}
