import type { PasswordHasher, SecondFactor, UserStore } from '../../app/dashboard/ports.ts';
import type { ServiceMeasurements } from '../../app/measureService.ts';
import type { MerchantAdminDeps } from '../../app/merchants/merchantAdmin.ts';
import type { Clock } from '../../app/ports/clock.ts';
import type { DepositPlanners } from '../../app/ports/deposits.ts';
import type { Ledger } from '../../app/ports/ledger.ts';
import type { MerchantStore } from '../../app/ports/merchants.ts';
import type { PaymentStore } from '../../app/ports/payments.ts';
import type { RateLimitStore } from '../../app/ports/rateLimit.ts';
import type { WebhookSender } from '../../app/ports/webhookSender.ts';
import type { WebhookStore } from '../../app/ports/webhooks.ts';
import type { RefundStore } from '../../app/refunds/ports.ts';
import type { SettlementStore } from '../../app/settlement/ports.ts';
import type { PayoutPolicy } from '../../domain/payout.ts';

export interface DashboardDeps {
  readonly users: UserStore;
  readonly merchants: MerchantStore;
  readonly payments: PaymentStore;
  readonly ledger: Ledger;
  readonly webhooks: WebhookStore;
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
  /** The figures /metrics reports, for the operator's health page; absent: no health page. */
  readonly measure?: (() => Promise<ServiceMeasurements>) | undefined;
  /** Sends "test webhook"s; absent: no such button. */
  readonly webhookSender?: WebhookSender | undefined;
  /** Each chain's block explorer (base URL), for links to transactions; a chain without one gets none. */
  readonly explorers?: ReadonlyMap<number, string> | undefined;
  /** PAYLINK_DASHBOARD_REQUIRE_2FA: an operator without a second factor is sent to enroll one first. */
  readonly requireOperatorSecondFactor: boolean;
  readonly buckets: RateLimitStore;
  readonly clock: Clock;
  readonly isCommonPassword: (password: string) => boolean;
  /** The API's public URL (PAYLINK_BASE_URL): the origin the dashboard's forms are posted from. */
  readonly baseUrl: string;
}
