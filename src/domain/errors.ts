/**
 * One error base class for everything the service reports to a caller.
 *
 * `code` is stable and machine-readable, `message` is safe to show to the client, `cause` is internal and
 * only ever reaches the log. Anything that is not a PaylinkError becomes a 500 INTERNAL_ERROR at the edge.
 */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'MERCHANT_NOT_CONFIGURED'
  | 'MERCHANT_WALLET_BLOCKED'
  | 'TOKEN_PAUSED'
  | 'PAYMENT_EXPIRED'
  | 'GASLESS_UNAVAILABLE'
  | 'AUTHORIZATION_USED'
  | 'AUTHORIZATION_IN_FLIGHT'
  | 'PAYMENT_NOT_REFUNDABLE'
  | 'PAYMENT_NOT_OVERPAID'
  | 'REFUND_EXCEEDS_PAYMENT'
  | 'REFUND_NOT_CANCELABLE'
  | 'REFUND_ALREADY_CLAIMED'
  | 'REFUND_CLOSED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_UNAVAILABLE'
  | 'CONFLICT'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'RATE_LIMITED'
  | 'TEST_MODE_UNAVAILABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'BAD_REQUEST'
  | 'PAYLOAD_TOO_LARGE'
  | 'INTERNAL_ERROR';

const statusByCode: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  MERCHANT_NOT_CONFIGURED: 409,
  MERCHANT_WALLET_BLOCKED: 409,
  PAYMENT_EXPIRED: 409,
  GASLESS_UNAVAILABLE: 409,
  AUTHORIZATION_USED: 409,
  AUTHORIZATION_IN_FLIGHT: 409,
  CONFLICT: 409,
  PAYMENT_NOT_REFUNDABLE: 409,
  PAYMENT_NOT_OVERPAID: 409,
  REFUND_EXCEEDS_PAYMENT: 409,
  REFUND_NOT_CANCELABLE: 409,
  REFUND_ALREADY_CLAIMED: 409,
  REFUND_CLOSED: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  TEST_MODE_UNAVAILABLE: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  RATE_UNAVAILABLE: 503,
  TOKEN_PAUSED: 503,
  SERVICE_UNAVAILABLE: 503,
};

/** Every code a caller can receive, in one list: docs/api.md documents each (test/apiReference.test.ts). */
export const ERROR_CODES = Object.keys(statusByCode) as readonly ErrorCode[];

/** The HTTP status a code is answered with. */
export function statusOfCode(code: ErrorCode): number {
  return statusByCode[code];
}

/** The body of every error answer: `field` names the request field at fault, when there is one. */
export interface ErrorResponse {
  readonly error: string;
  readonly code: ErrorCode;
  readonly field?: string;
}

export class PaylinkError extends Error {
  override readonly name = 'PaylinkError';
  readonly code: ErrorCode;
  readonly status: number;
  /** The request field the error is about, when there is one. */
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = statusByCode[code];
    this.field = options.field;
  }
}

export class ValidationError extends PaylinkError {
  constructor(field: string, problem: string) {
    super('VALIDATION_ERROR', `${field}: ${problem}`, { field });
  }
}

export const UNAUTHORIZED_MESSAGE = 'Invalid or missing API key';
