/**
 * Every failure the client reports is a `PaylinkError` with a stable `code`, so callers branch on the code,
 * never on message text. Messages never carry the API key or a webhook secret.
 */

/** Codes the API answers with (docs/merchant-guide.md, "Errors"); new ones may appear, so any string is allowed. */
export type ApiErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_REQUEST'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'TOO_MANY_CONNECTIONS'
  | 'INTERNAL_ERROR'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PAYLOAD_TOO_LARGE'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'MERCHANT_NOT_CONFIGURED'
  | 'MERCHANT_WALLET_BLOCKED'
  | 'RATE_UNAVAILABLE'
  | 'TOKEN_PAUSED'
  | 'TEST_MODE_UNAVAILABLE'
  | 'PAYMENT_NOT_REFUNDABLE'
  | 'PAYMENT_NOT_OVERPAID'
  | 'REFUND_EXCEEDS_PAYMENT'
  | 'REFUND_NOT_CANCELABLE'
  | (string & {});

/** No answer was had: the connection failed, or the request outlived `timeoutMs`. */
export type ConnectionErrorCode = 'CONNECTION_ERROR' | 'TIMEOUT';

/** Why `verifyWebhook` refused a request: answer it with 400 and do not act on it. */
export type WebhookErrorCode =
  | 'INVALID_HEADERS'
  | 'INVALID_SECRET'
  | 'TIMESTAMP_OUT_OF_TOLERANCE'
  | 'INVALID_SIGNATURE'
  | 'INVALID_PAYLOAD';

/** One bad request field, as a VALIDATION_ERROR's `details` lists it. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

export abstract class PaylinkError extends Error {
  abstract readonly code: string;
}

/** The API answered with an error: its HTTP status and its `{"error", "code", "field"}` body. */
export class PaylinkApiError extends PaylinkError {
  override readonly name = 'PaylinkApiError';
  readonly code: ApiErrorCode;
  readonly status: number;
  /** The request field at fault, when the API names one (the first, when several are). */
  readonly field: string | undefined;
  /** Every bad field of a VALIDATION_ERROR, each with what is wrong with it; empty otherwise. */
  readonly details: readonly FieldProblem[];
  /** The server's `x-request-id`, to quote when asking the operator. */
  readonly requestId: string | undefined;
  /** How many attempts were made before giving up (more than 1 after retries). */
  readonly attempts: number;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    field?: string | undefined;
    details?: readonly FieldProblem[] | undefined;
    requestId?: string | undefined;
    attempts: number;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.attempts = init.attempts;
  }
}

/** The request got no answer (after retries, where retrying was safe). */
export class PaylinkConnectionError extends PaylinkError {
  override readonly name = 'PaylinkConnectionError';
  readonly code: ConnectionErrorCode;
  readonly attempts: number;

  constructor(code: ConnectionErrorCode, message: string, attempts: number, cause: unknown) {
    super(message, { cause });
    this.code = code;
    this.attempts = attempts;
  }
}

export class WebhookVerificationError extends PaylinkError {
  override readonly name = 'WebhookVerificationError';
  readonly code: WebhookErrorCode;

  constructor(code: WebhookErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
