import type { components, paths } from './generated/openapi.ts';

/**
 * The API's requests and answers by name, taken from the generated OpenAPI types so they follow the server.
 * Amounts are decimal strings everywhere: parse them with a decimal library, never as floating-point numbers.
 */

type Schemas = components['schemas'];
type JsonBody<Operation> = Operation extends {
  requestBody: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;
type Query<Operation> = Operation extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** Page sizes are numbers to the caller; the query string carries text. */
type WithNumericLimit<Q> = Omit<Q, 'limit'> & { readonly limit?: number };

/** A payment as `GET /payments/api/status/{id}/` and the list show it. */
export type Payment = Schemas['PaymentStatusResponse'];
export type PaymentStatus = Payment['status'];
export type CreatedPayment = Schemas['CreatePaymentResponse'];
export type PaymentPage = Schemas['PaymentList'];
export type Conversion = Schemas['ConvertResponse'];
export type Refund = Schemas['Refund'];
export type RefundStatus = Refund['status'];
export type RefundPage = Schemas['RefundList'];
/** A reusable link ("payment page"); `payments_paid` and `amount_paid` only from `getLink`. */
export type PaymentLink = Schemas['PaymentLink'];
export type PaymentLinkPage = Schemas['PaymentLinkList'];
/** A webhook event as the delivery log shows it, with every attempt (not the webhook body itself). */
export type WebhookEventLog = Schemas['WebhookEvent'];
export type WebhookEventLogList = Schemas['WebhookEventList'];
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type ApiErrorBody = Schemas['Error'];
/** An API key as listed: never the key itself. */
export type ApiKey = Schemas['ApiKeyList']['keys'][number];
export type ApiKeyScope = ApiKey['scopes'][number];
/** A restricted key just made: `key` is shown this once. */
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type ApiKeyList = Schemas['ApiKeyList'];
/** A restricted key's name, scopes and optional end (ISO 8601). */
export type CreateKeyParams = {
  readonly name: string;
  readonly scopes: readonly ApiKeyScope[];
  readonly expires_at?: string;
};

/** A webhook endpoint as listed: never its secret. */
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
/** An endpoint just made or its secret just rotated: `secret` (whsec_…) is shown this once. */
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookEndpointList = Schemas['WebhookEndpointList'];
export type CreateWebhookEndpointParams = JsonBody<paths['/payments/api/webhook_endpoints/']['post']> & {
  readonly url: string;
};
export type UpdateWebhookEndpointParams = JsonBody<
  paths['/payments/api/webhook_endpoints/{endpoint_id}/']['patch']
>;
/** An event as the events API shows it: `data` is the webhook body exactly as delivered. */
export type PaylinkEvent = Schemas['Event'];
export type PaylinkEventPage = Schemas['EventList'];
export type ListEventsParams = WithNumericLimit<Query<paths['/payments/api/events/']['get']>>;

/** The API also takes a JSON number; the SDK takes only a decimal string, so no amount passes through a float. */
export type CreatePaymentParams = Omit<JsonBody<paths['/payments/api/create/']['post']>, 'amount'> & {
  /** Decimal string in `currency`, with at most its decimals ("49.90" EUR, "5000" JPY). */
  readonly amount: string;
};
export type CreateRefundParams = Omit<JsonBody<paths['/payments/api/refunds/']['post']>, 'amount'> & {
  /** USDC as a decimal string, an amount in `currency`, or "overpaid". */
  readonly amount: string;
};
/** Amounts and counts as strings: no amount passes through a float. */
export type CreateLinkParams = Omit<
  JsonBody<paths['/payments/api/links/']['post']>,
  'amount' | 'min_amount' | 'max_amount' | 'suggested_amounts' | 'max_quantity' | 'max_uses'
> & {
  readonly amount?: string;
  readonly min_amount?: string;
  readonly max_amount?: string;
  readonly suggested_amounts?: readonly string[];
  readonly max_quantity?: number;
  readonly max_uses?: number;
};
/** What the payer chose: `quantity` for a fixed price, `amount` (decimal string) for an open one. */
export interface PayLinkParams {
  readonly quantity?: number;
  readonly amount?: string;
  readonly customer_email?: string;
}
export type ListLinksParams = WithNumericLimit<Query<paths['/payments/api/links/']['get']>>;
/** A subscription plan: each period's price, its calendar, trial and grace. */
export type SubscriptionPlan = Schemas['SubscriptionPlan'];
export type SubscriptionPlanPage = Schemas['SubscriptionPlanList'];
/** A subscription with its status (derived when read) and each billed period's payment. */
export type Subscription = Schemas['Subscription'];
export type SubscriptionPage = Schemas['SubscriptionList'];
/** The price as a decimal string, counts as numbers: no amount passes through a float. */
export type CreatePlanParams = Omit<
  JsonBody<paths['/payments/api/plans/']['post']>,
  'amount' | 'interval_count' | 'trial_days' | 'grace_days' | 'periods'
> & {
  readonly amount: string;
  readonly interval_count?: number;
  readonly trial_days?: number;
  readonly grace_days?: number;
  readonly periods?: number;
};
export type CreateSubscriptionParams = JsonBody<paths['/payments/api/subscriptions/']['post']>;
export type ListPlansParams = WithNumericLimit<Query<paths['/payments/api/plans/']['get']>>;
export type ListSubscriptionsParams = WithNumericLimit<Query<paths['/payments/api/subscriptions/']['get']>>;
export type ConvertParams = Query<paths['/payments/api/convert/']['get']>;
export type ListPaymentsParams = WithNumericLimit<Query<paths['/payments/api/payments/']['get']>>;
export type ListRefundsParams = WithNumericLimit<Query<paths['/payments/api/refunds/']['get']>>;
export type ListWebhookEventsParams = WithNumericLimit<Query<paths['/payments/api/webhooks/']['get']>>;
/** `from` inclusive, `to` exclusive (ISO 8601 dates or date-times). */
export type ExportRange = Query<paths['/payments/api/payments/export/']['get']>;

type JsonAnswer<Operation> = Operation extends {
  responses: { 200: { content: { 'application/json': infer Answer } } };
}
  ? Answer
  : never;
type X402VerifyBody = JsonBody<paths['/payments/api/x402/verify']['post']>;
/** What the facilitator settles: each kind's `extra` holds the merchant's `payTo` and the token's EIP-712 domain. */
export type X402Supported = JsonAnswer<paths['/payments/api/x402/supported']['get']>;
/** The x402 `PaymentPayload` a client sent in its `PAYMENT-SIGNATURE` header, decoded. */
export type X402PaymentPayload = X402VerifyBody['paymentPayload'];
/** The route's `PaymentRequirements` the payload answers. */
export type X402PaymentRequirements = X402VerifyBody['paymentRequirements'];
/** x402 `VerifyResponse`: `isValid`, else `invalidReason` (x402's code) and `invalidMessage`. */
export type X402Verification = JsonAnswer<paths['/payments/api/x402/verify']['post']>;
/** x402 `SettleResponse`: `success`, the `transaction` hash and `payer`, else `errorReason`. */
export type X402Settlement = JsonAnswer<paths['/payments/api/x402/settle']['post']>;
