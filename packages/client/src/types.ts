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
/** A webhook event as the delivery log shows it, with every attempt (not the webhook body itself). */
export type WebhookEventLog = Schemas['WebhookEvent'];
export type WebhookEventLogList = Schemas['WebhookEventList'];
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type ApiErrorBody = Schemas['Error'];

/** The API also takes a JSON number; the SDK takes only a decimal string, so no amount passes through a float. */
export type CreatePaymentParams = Omit<JsonBody<paths['/payments/api/create/']['post']>, 'amount'> & {
  /** Decimal string in `currency`, with at most its decimals ("49.90" EUR, "5000" JPY). */
  readonly amount: string;
};
export type CreateRefundParams = Omit<JsonBody<paths['/payments/api/refunds/']['post']>, 'amount'> & {
  /** USDC as a decimal string, an amount in `currency`, or "overpaid". */
  readonly amount: string;
};
export type ConvertParams = Query<paths['/payments/api/convert/']['get']>;
export type ListPaymentsParams = WithNumericLimit<Query<paths['/payments/api/payments/']['get']>>;
export type ListRefundsParams = WithNumericLimit<Query<paths['/payments/api/refunds/']['get']>>;
export type ListWebhookEventsParams = WithNumericLimit<Query<paths['/payments/api/webhooks/']['get']>>;
/** `from` inclusive, `to` exclusive (ISO 8601 dates or date-times). */
export type ExportRange = Query<paths['/payments/api/payments/export/']['get']>;
