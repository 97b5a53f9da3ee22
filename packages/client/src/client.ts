import { DEFAULT_RETRY_POLICY, type RetryOptions } from './retry.ts';
import { type ApiRequest, send, type TransportConfig } from './transport.ts';
import type {
  ApiKey,
  ApiKeyList,
  Conversion,
  ConvertParams,
  CreatedApiKey,
  CreatedPayment,
  CreateKeyParams,
  CreateLinkParams,
  CreatePaymentParams,
  CreatePlanParams,
  CreateRefundParams,
  CreateSubscriptionParams,
  CreateWebhookEndpointParams,
  ExportRange,
  ListEventsParams,
  ListLinksParams,
  ListPaymentsParams,
  ListPlansParams,
  ListRefundsParams,
  ListSubscriptionsParams,
  ListWebhookEventsParams,
  PayLinkParams,
  PaylinkEvent,
  PaylinkEventPage,
  Payment,
  PaymentLink,
  PaymentLinkPage,
  PaymentPage,
  Refund,
  RefundPage,
  Subscription,
  SubscriptionPage,
  SubscriptionPlan,
  SubscriptionPlanPage,
  UpdateWebhookEndpointParams,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookEventLogList,
  X402PaymentPayload,
  X402PaymentRequirements,
  X402Settlement,
  X402Supported,
  X402Verification,
} from './types.ts';

export interface PaylinkClientOptions {
  /**
   * `sk_live_…` or `sk_test_…` (the secret key), or a restricted key `rk_live_…` / `rk_test_…` holding the
   * scopes of the calls you make. Keep it on your server.
   */
  readonly apiKey: string;
  /** The API's address, e.g. `https://api.example.com`. */
  readonly baseUrl: string;
  /** Per attempt (default 30 s). */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  /** Another `fetch` (a proxy agent, a test double); the global one by default. */
  readonly fetch?: typeof fetch;
  /** How to wait between attempts (default `setTimeout`); tests pass a clock of their own. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface CreateOptions {
  /**
   * Same key and body within 24 h: the same payment or refund, never a second one. A random key is made when
   * none is given, so the client's own retries are safe; pass your order id to be safe across processes too.
   * `null` sends none; such a create is retried only after a 429 (refused before it was read) or a
   * `503 TOO_MANY_CONNECTIONS` (read but not handled).
   */
  readonly idempotencyKey?: string | null;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const ENDPOINTS = '/payments/api/webhook_endpoints/';
/** The x402 facilitator's routes, without trailing slashes as x402's clients call them. */
const X402 = '/payments/api/x402/';

/** The Paylink merchant API: one method per endpoint, typed from the server's OpenAPI document. */
export class PaylinkClient {
  readonly #transport: TransportConfig;

  constructor(options: PaylinkClientOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required');
    const fetchFunction = options.fetch ?? globalThis.fetch;
    this.#transport = {
      apiKey: options.apiKey,
      baseUrl: new URL(options.baseUrl).toString().replace(/\/+$/, ''),
      // Called unbound, a browser's fetch throws "Illegal invocation".
      fetch: (input, init) => fetchFunction(input, init),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry: { ...DEFAULT_RETRY_POLICY, ...definedOnly(options.retry ?? {}) },
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    };
  }

  /** `POST /payments/api/create/`: a payment link; redirect the customer to `payment_url`. */
  createPayment(params: CreatePaymentParams, options: CreateOptions = {}): Promise<CreatedPayment> {
    return this.#json({
      method: 'POST',
      path: '/payments/api/create/',
      body: params,
      ...idempotency(options),
    });
  }

  /** `GET /payments/api/status/{payment_id}/`: the payment's status now, with its refunds. */
  getPayment(paymentId: string): Promise<Payment> {
    return this.#json({
      method: 'GET',
      path: `/payments/api/status/${segment(paymentId)}/`,
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/payments/`: newest first; pass `next_cursor` back as `cursor` for the next page. */
  listPayments(params: ListPaymentsParams = {}): Promise<PaymentPage> {
    return this.#json({
      method: 'GET',
      path: '/payments/api/payments/',
      query: params,
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/payments/export/`: RFC 4180 CSV text. */
  exportPayments(range: ExportRange = {}): Promise<string> {
    return this.#text({
      method: 'GET',
      path: '/payments/api/payments/export/',
      query: range,
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/convert/`: what an amount would cost in USDC now, without creating a payment. */
  convert(params: ConvertParams): Promise<Conversion> {
    return this.#json({
      method: 'GET',
      path: '/payments/api/convert/',
      query: params,
      repeatability: 'repeatable',
    });
  }

  /** `POST /payments/api/refunds/`: refund a payment, fully or in part. */
  createRefund(params: CreateRefundParams, options: CreateOptions = {}): Promise<Refund> {
    return this.#json({
      method: 'POST',
      path: '/payments/api/refunds/',
      body: params,
      ...idempotency(options),
    });
  }

  /** `GET /payments/api/refunds/{refund_id}/`. */
  getRefund(refundId: string): Promise<Refund> {
    return this.#json({
      method: 'GET',
      path: `/payments/api/refunds/${segment(refundId)}/`,
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/refunds/`: newest first, optionally one payment's. */
  listRefunds(params: ListRefundsParams = {}): Promise<RefundPage> {
    return this.#json({
      method: 'GET',
      path: '/payments/api/refunds/',
      query: params,
      repeatability: 'repeatable',
    });
  }

  /** `POST /payments/api/refunds/{refund_id}/cancel/`: only before it is funded. */
  cancelRefund(refundId: string): Promise<Refund> {
    return this.#json({
      method: 'POST',
      path: `/payments/api/refunds/${segment(refundId)}/cancel/`,
      // Canceling twice cancels once; a retry after a lost answer may see 409 REFUND_NOT_CANCELABLE.
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/refunds/export/`: RFC 4180 CSV text. */
  exportRefunds(range: ExportRange = {}): Promise<string> {
    return this.#text({
      method: 'GET',
      path: '/payments/api/refunds/export/',
      query: range,
      repeatability: 'repeatable',
    });
  }

  /** `POST /payments/api/links/`: a reusable link many payers pay through; it creates no payment itself. */
  createLink(params: CreateLinkParams): Promise<PaymentLink> {
    return this.#json({
      method: 'POST',
      path: '/payments/api/links/',
      body: {
        ...params,
        ...(params.max_quantity === undefined ? {} : { max_quantity: String(params.max_quantity) }),
        ...(params.max_uses === undefined ? {} : { max_uses: String(params.max_uses) }),
      },
      // No idempotency key on links: a retry after a lost answer may make a second link.
      repeatability: 'once',
    });
  }

  /** `GET /payments/api/links/{link_id}/`: with how many payments paid through it and the USDC they brought. */
  getLink(linkId: string): Promise<PaymentLink> {
    return this.#json({
      method: 'GET',
      path: `/payments/api/links/${segment(linkId)}/`,
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/links/`: newest first. */
  listLinks(params: ListLinksParams = {}): Promise<PaymentLinkPage> {
    return this.#json({
      method: 'GET',
      path: '/payments/api/links/',
      query: params,
      repeatability: 'repeatable',
    });
  }

  /** `POST /payments/api/links/{link_id}/deactivate/`: for good; payments already made go on. */
  deactivateLink(linkId: string): Promise<PaymentLink> {
    return this.#json({
      method: 'POST',
      path: `/payments/api/links/${segment(linkId)}/deactivate/`,
      repeatability: 'repeatable',
    });
  }

  /** `POST /payments/api/links/{link_id}/payments/`: a payment from the link for what the payer chose. */
  payLink(linkId: string, params: PayLinkParams = {}): Promise<CreatedPayment> {
    return this.#json({
      method: 'POST',
      path: `/payments/api/links/${segment(linkId)}/payments/`,
      body: { ...params, ...(params.quantity === undefined ? {} : { quantity: String(params.quantity) }) },
      repeatability: 'once',
    });
  }

  /** `POST /payments/api/plans/`: a subscription plan; with `idempotencyKey`, safe to retry. */
  createPlan(params: CreatePlanParams, options: CreateOptions = {}): Promise<SubscriptionPlan> {
    const counts = (['interval_count', 'trial_days', 'grace_days', 'periods'] as const).flatMap((field) =>
      params[field] === undefined ? [] : [[field, String(params[field])]],
    );
    return this.#json({
      method: 'POST',
      path: '/payments/api/plans/',
      body: { ...params, ...Object.fromEntries(counts) },
      ...idempotency(options),
    });
  }

  /** `GET /payments/api/plans/`: newest first. */
  listPlans(params: ListPlansParams = {}): Promise<SubscriptionPlanPage> {
    return this.#json({
      method: 'GET',
      path: '/payments/api/plans/',
      query: params,
      repeatability: 'repeatable',
    });
  }

  /** `POST /payments/api/plans/{plan_id}/archive/`: no new subscriptions; running ones keep its terms. */
  archivePlan(planId: string): Promise<SubscriptionPlan> {
    return this.#json({
      method: 'POST',
      path: `/payments/api/plans/${segment(planId)}/archive/`,
      repeatability: 'repeatable',
    });
  }

  /** `POST /payments/api/subscriptions/`: subscribes a customer; with `idempotencyKey`, safe to retry. */
  createSubscription(params: CreateSubscriptionParams, options: CreateOptions = {}): Promise<Subscription> {
    return this.#json({
      method: 'POST',
      path: '/payments/api/subscriptions/',
      body: params,
      ...idempotency(options),
    });
  }

  /** `GET /payments/api/subscriptions/{subscription_id}/`: its status now and each period's payment. */
  getSubscription(subscriptionId: string): Promise<Subscription> {
    return this.#json({
      method: 'GET',
      path: `/payments/api/subscriptions/${segment(subscriptionId)}/`,
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/subscriptions/`: newest first. */
  listSubscriptions(params: ListSubscriptionsParams = {}): Promise<SubscriptionPage> {
    return this.#json({
      method: 'GET',
      path: '/payments/api/subscriptions/',
      query: params,
      repeatability: 'repeatable',
    });
  }

  /** `POST /payments/api/subscriptions/{subscription_id}/cancel/`: at the period's end (default) or at once. */
  cancelSubscription(
    subscriptionId: string,
    options: { readonly atPeriodEnd?: boolean } = {},
  ): Promise<Subscription> {
    return this.#json({
      method: 'POST',
      path: `/payments/api/subscriptions/${segment(subscriptionId)}/cancel/`,
      body: { at_period_end: options.atPeriodEnd ?? true },
      // Canceling twice keeps the sooner moment: a retry changes nothing.
      repeatability: 'repeatable',
    });
  }

  /**
   * `POST /payments/api/subscriptions/{subscription_id}/change-plan/`: the subscription is billed with `planId`
   * from its next period not yet billed (`pending_plan_from_period`); its own plan withdraws a pending change.
   */
  changeSubscriptionPlan(subscriptionId: string, planId: string): Promise<Subscription> {
    return this.#json({
      method: 'POST',
      path: `/payments/api/subscriptions/${segment(subscriptionId)}/change-plan/`,
      body: { plan_id: planId },
      // The same change asked twice records the same pending plan: a retry changes nothing.
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/webhooks/`: recent webhook events and each delivery attempt, to debug your endpoint. */
  listWebhookEvents(params: ListWebhookEventsParams = {}): Promise<WebhookEventLogList> {
    return this.#json({
      method: 'GET',
      path: '/payments/api/webhooks/',
      query: params,
      repeatability: 'repeatable',
    });
  }

  /**
   * `POST /payments/api/keys/`: a restricted key of the calling key's mode, holding only `scopes`; `key` is in
   * this answer only. Needs the secret key.
   */
  createKey(params: CreateKeyParams): Promise<CreatedApiKey> {
    // No idempotency key: a retry after a lost answer may make a second key (the first, never shown, is revoked).
    return this.#json({ method: 'POST', path: '/payments/api/keys/', body: params, repeatability: 'once' });
  }

  /** `GET /payments/api/keys/`: the keys of the calling key's mode, with when each was last used. */
  listKeys(): Promise<ApiKeyList> {
    return this.#json({ method: 'GET', path: '/payments/api/keys/', repeatability: 'repeatable' });
  }

  /** `POST /payments/api/keys/{key_id}/revoke/`: the restricted key stops working at once. */
  revokeKey(keyId: string): Promise<ApiKey> {
    return this.#json({
      method: 'POST',
      path: `/payments/api/keys/${segment(keyId)}/revoke/`,
      repeatability: 'repeatable',
    });
  }

  /**
   * `POST /payments/api/webhook_endpoints/`: an endpoint of the calling key's mode; `secret` (whsec_…) is in this
   * answer only. Scope `webhooks:manage`.
   */
  createWebhookEndpoint(params: CreateWebhookEndpointParams): Promise<WebhookEndpointWithSecret> {
    // Not retried after a lost answer: a retry could make a second endpoint, and each would get every event.
    return this.#json({ method: 'POST', path: ENDPOINTS, body: params, repeatability: 'once' });
  }

  /** `GET /payments/api/webhook_endpoints/`: the endpoints of the calling key's mode, oldest first. */
  listWebhookEndpoints(): Promise<WebhookEndpointList> {
    return this.#json({ method: 'GET', path: ENDPOINTS, repeatability: 'repeatable' });
  }

  /** `GET /payments/api/webhook_endpoints/{endpoint_id}/` */
  getWebhookEndpoint(endpointId: string): Promise<WebhookEndpoint> {
    return this.#json({
      method: 'GET',
      path: `${ENDPOINTS}${segment(endpointId)}/`,
      repeatability: 'repeatable',
    });
  }

  /** `PATCH /payments/api/webhook_endpoints/{endpoint_id}/`: only the fields given change. */
  updateWebhookEndpoint(endpointId: string, params: UpdateWebhookEndpointParams): Promise<WebhookEndpoint> {
    return this.#json({
      method: 'PATCH',
      path: `${ENDPOINTS}${segment(endpointId)}/`,
      body: params,
      repeatability: 'repeatable',
    });
  }

  /**
   * `POST /payments/api/webhook_endpoints/{endpoint_id}/rotate-secret/`: a new `secret`, shown this once; the old
   * one signs too for `overlap` (default "24h").
   */
  rotateWebhookEndpointSecret(
    endpointId: string,
    params: { readonly overlap?: string } = {},
  ): Promise<WebhookEndpointWithSecret> {
    return this.#json({
      method: 'POST',
      path: `${ENDPOINTS}${segment(endpointId)}/rotate-secret/`,
      body: params,
      repeatability: 'once',
    });
  }

  /** `DELETE /payments/api/webhook_endpoints/{endpoint_id}/`: nothing more is sent to it. */
  deleteWebhookEndpoint(endpointId: string): Promise<{ id: string; deleted: true }> {
    return this.#json({
      method: 'DELETE',
      path: `${ENDPOINTS}${segment(endpointId)}/`,
      repeatability: 'once',
    });
  }

  /** `GET /payments/api/events/`: events newest first, by type and time, to reconcile what a receiver missed. */
  listEvents(params: ListEventsParams = {}): Promise<PaylinkEventPage> {
    return this.#json({
      method: 'GET',
      path: '/payments/api/events/',
      query: params,
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/events/{event_id}/`: the event whose id a webhook carried as `webhook-id`. */
  getEvent(eventId: string): Promise<PaylinkEvent> {
    return this.#json({
      method: 'GET',
      path: `/payments/api/events/${segment(eventId)}/`,
      repeatability: 'repeatable',
    });
  }

  /** `GET /payments/api/x402/supported`: the kinds this facilitator settles, with the merchant's `payTo`. */
  x402Supported(): Promise<X402Supported> {
    return this.#json({ method: 'GET', path: `${X402}supported`, repeatability: 'repeatable' });
  }

  /** `POST /payments/api/x402/verify`: whether the payment would settle; nothing is sent on chain. */
  x402Verify(payload: X402PaymentPayload, requirements: X402PaymentRequirements): Promise<X402Verification> {
    return this.#json({
      method: 'POST',
      path: `${X402}verify`,
      body: { x402Version: payload.x402Version, paymentPayload: payload, paymentRequirements: requirements },
      // Verifying changes nothing.
      repeatability: 'repeatable',
    });
  }

  /**
   * `POST /payments/api/x402/settle`: settles the payment once and records the call as a paid payment. A retry
   * of the same payload answers the first settle's outcome (the token's nonce is used once), so it is safe.
   */
  x402Settle(payload: X402PaymentPayload, requirements: X402PaymentRequirements): Promise<X402Settlement> {
    return this.#json({
      method: 'POST',
      path: `${X402}settle`,
      body: { x402Version: payload.x402Version, paymentPayload: payload, paymentRequirements: requirements },
      repeatability: 'repeatable',
    });
  }

  async #json<T>(request: ApiRequest): Promise<T> {
    // Amounts are strings in every answer, so plain JSON.parse loses no precision.
    return JSON.parse(await send(this.#transport, request)) as T;
  }

  #text(request: ApiRequest): Promise<string> {
    return send(this.#transport, request);
  }
}

function idempotency(options: CreateOptions): Pick<ApiRequest, 'headers' | 'repeatability'> {
  const key = options.idempotencyKey === undefined ? globalThis.crypto.randomUUID() : options.idempotencyKey;
  return key === null
    ? { repeatability: 'once' }
    : { headers: { 'idempotency-key': key }, repeatability: 'repeatable' };
}

/** An id as one path segment: an id holding `/` or `?` must not reach another route. */
function segment(id: string): string {
  return encodeURIComponent(id);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
