import type { BrandStore } from '../../app/brand/ports.ts';
import type { Ledger } from '../../app/chain/ports.ts';
import type {
  MerchantOverviewStore,
  PasswordHasher,
  SecondFactor,
  UserStore,
} from '../../app/dashboard/ports.ts';
import type { PaymentRequestSettings } from '../../app/email/paymentRequests.ts';
import type { EmailStore } from '../../app/email/ports.ts';
import type { LinkStore } from '../../app/links/ports.ts';
import type { MerchantAdminDeps } from '../../app/merchants/merchantAdmin.ts';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import type { ServiceMeasurements } from '../../app/operations/measureService.ts';
import type { CreatePaymentOnceDeps } from '../../app/payments/createPaymentOnce.ts';
import type { DepositPlanners, PaymentStore } from '../../app/payments/ports.ts';
import type { CatalogueStore, ReceiptTokenStore } from '../../app/pos/ports.ts';
import type { RefundStore } from '../../app/refunds/ports.ts';
import type { SettlementStore } from '../../app/settlement/ports.ts';
import type { Clock, RateLimitStore } from '../../app/shared/ports.ts';
import type { MandateStore } from '../../app/subscriptions/mandatePorts.ts';
import type { RenewalDeps } from '../../app/subscriptions/renewal.ts';
import type { WebhookEndpointStore } from '../../app/webhooks/endpointPorts.ts';
import type { WebhookSender, WebhookStore } from '../../app/webhooks/ports.ts';
import type { LogoRules } from '../../domain/brand.ts';
import type { PayoutPolicy } from '../../domain/payout.ts';

/** What the subscription pages need: the renewal pipeline (the API's create and cancel) and the checkout's URL. */
export interface DashboardSubscriptions {
  readonly renewal: RenewalDeps;
  /** The checkout's public URL, where each plan's subscribe page is. */
  readonly checkoutUrl: string;
  /** Each subscription's mandate (pull renewal, decision 0061), shown on its page; absent: none shown. */
  readonly mandates?: Pick<MandateStore, 'findMandate'> | undefined;
}

export interface DashboardDeps {
  readonly users: UserStore;
  readonly merchants: MerchantStore;
  readonly payments: PaymentStore;
  readonly ledger: Ledger;
  readonly webhooks: WebhookStore;
  /** Merchants' webhook endpoints (decision 0058); absent: no webhook endpoints page. */
  readonly webhookEndpoints?: WebhookEndpointStore | undefined;
  readonly deposits: DepositPlanners;
  readonly passwords: PasswordHasher;
  readonly secondFactor: SecondFactor;
  /** What operators' merchant edits are checked with: the same rules as the CLI and the admin API. */
  readonly merchantAdmin: MerchantAdminDeps;
  /** Payouts owed and why they wait, for operators; absent: no payouts page. */
  readonly payouts?: { readonly settlements: SettlementStore; readonly policy: PayoutPolicy } | undefined;
  /** Refunds; absent: the payment page neither lists nor starts them. */
  readonly refunds?:
    | { readonly store: RefundStore; readonly claimTtlMs: number; readonly checkoutUrl: string }
    | undefined;
  /**
   * "New payment": the API's create (same checks, idempotency) and the checkout's public URL its links are on;
   * absent: no such page.
   */
  readonly paymentCreation?:
    | { readonly deps: CreatePaymentOnceDeps; readonly checkoutUrl: string }
    | undefined;
  /**
   * Payment requests by e-mail: the payment page's "send the request again"; absent where e-mail is not
   * configured (then neither it nor the New payment form's checkbox is offered).
   */
  readonly paymentRequests?:
    | { readonly emails: Pick<EmailStore, 'enqueue' | 'list'>; readonly settings: PaymentRequestSettings }
    | undefined;
  /** Reusable links ("payment pages"), their public pages on the checkout; absent: no links pages. */
  readonly paymentLinks?:
    | { readonly store: LinkStore; readonly checkoutUrl: string; readonly webhookAllowPrivate: boolean }
    | undefined;
  /**
   * The point of sale's catalogue (decision 0054); absent, or without `paymentCreation`: no point of sale.
   */
  readonly posCatalogue?: CatalogueStore | undefined;
  /** Subscriptions' pages and the operator's console of them (decision 0062); absent: not served. */
  readonly subscriptions?: DashboardSubscriptions | undefined;
  /** The merchant's brand page (decision 0052); absent: not served. */
  readonly branding?: { readonly store: BrandStore; readonly logoRules: LogoRules } | undefined;
  /** The receipt pages of paid sales, shown as a QR code at the counter; absent: not offered. */
  readonly receiptTokens?: ReceiptTokenStore | undefined;
  /** A merchant's home page (today's and the month's totals, what waits); absent: the home is the payments list. */
  readonly overview?: MerchantOverviewStore | undefined;
  /** The figures /metrics reports, for the operator's health page; absent: no health page. */
  readonly measure?: (() => Promise<ServiceMeasurements>) | undefined;
  /** Sends "test webhook"s; absent: no such button. */
  readonly webhookSender?: WebhookSender | undefined;
  /** Each chain's block explorer (base URL), for links to transactions; a chain without one gets none. */
  readonly explorers?: ReadonlyMap<number, string> | undefined;
  /** Each configured chain's native token (ETH, POL, AVAX), which the health page states relayer balances in. */
  readonly nativeSymbols?: ReadonlyMap<number, string> | undefined;
  /** Each chain's name ("Polygon"), which the point of sale writes under its QR code; absent: the chain id. */
  readonly networkNames?: ReadonlyMap<number, string> | undefined;
  /** PAYLINK_DASHBOARD_REQUIRE_2FA: an operator without a second factor is sent to enroll one first. */
  readonly requireOperatorSecondFactor: boolean;
  readonly buckets: RateLimitStore;
  readonly clock: Clock;
  readonly isCommonPassword: (password: string) => boolean;
  /** The API's public URL (PAYLINK_BASE_URL): the origin the dashboard's forms are posted from. */
  readonly baseUrl: string;
}
