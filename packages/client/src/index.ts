/** @paylink/client: the Paylink merchant API for TypeScript, on `fetch` and WebCrypto only. */

export { type CreateOptions, PaylinkClient, type PaylinkClientOptions } from './client.ts';
export {
  type ApiErrorCode,
  type ConnectionErrorCode,
  type FieldProblem,
  PaylinkApiError,
  PaylinkConnectionError,
  PaylinkError,
  type WebhookErrorCode,
  WebhookVerificationError,
} from './errors.ts';
export type { components, paths } from './generated/openapi.ts';
export type { RetryOptions } from './retry.ts';
export type * from './types.ts';
export type * from './webhookEvents.ts';
export { type VerifyWebhookOptions, verifyWebhook, type WebhookHeaders } from './webhooks.ts';
