/**
 * One error base class for everything the service reports to a caller.
 *
 * `code` is stable and machine-readable, `message` is safe to show to the client, `cause` is internal and
 * only ever reaches the log. Anything that is not a PaylinkError becomes a 500 INTERNAL_ERROR at the edge.
 */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
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
  | 'PAYMENT_NOT_PAID'
  | 'REFUND_NOT_CANCELABLE'
  | 'REFUND_ALREADY_CLAIMED'
  | 'REFUND_CLOSED'
  | 'LINK_UNAVAILABLE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_UNAVAILABLE'
  | 'CONFLICT'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'RATE_LIMITED'
  | 'TEST_MODE_UNAVAILABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'TOO_MANY_CONNECTIONS'
  | 'BAD_REQUEST'
  | 'PAYLOAD_TOO_LARGE'
  | 'INTERNAL_ERROR';

const statusByCode: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
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
  PAYMENT_NOT_PAID: 409,
  REFUND_EXCEEDS_PAYMENT: 409,
  REFUND_NOT_CANCELABLE: 409,
  REFUND_ALREADY_CLAIMED: 409,
  REFUND_CLOSED: 409,
  LINK_UNAVAILABLE: 409,
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
  TOO_MANY_CONNECTIONS: 503,
};

/** Every code a caller can receive, in one list: docs/api.md documents each (test/api/apiReference.test.ts). */
export const ERROR_CODES = Object.keys(statusByCode) as readonly ErrorCode[];

/** The HTTP status a code is answered with. */
export function statusOfCode(code: ErrorCode): number {
  return statusByCode[code];
}

/** One request field at fault and what is wrong with it: `{"field": "amount", "message": "is required"}`. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * The body of every error answer: `field` names the (first) request field at fault, when there is one;
 * `details` lists every field at fault, and is present on every VALIDATION_ERROR (empty when the problem is
 * not one field's), so a client can show each problem beside its field at once.
 */
export interface ErrorResponse {
  readonly error: string;
  readonly code: ErrorCode;
  readonly field?: string;
  readonly details?: readonly FieldProblem[];
}

export class PaylinkError extends Error {
  override readonly name = 'PaylinkError';
  readonly code: ErrorCode;
  readonly status: number;
  /** The request field the error is about, when there is one (the first, when there are several). */
  readonly field: string | undefined;
  /** Every request field at fault: for a single `field`, that one, its message without the field's prefix. */
  readonly details: readonly FieldProblem[];

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; details?: readonly FieldProblem[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = statusByCode[code];
    this.field = options.field ?? options.details?.[0]?.field;
    const field = options.field;
    this.details =
      options.details ??
      (field === undefined ? [] : [{ field, message: withoutPrefix(message, `${field}: `) }]);
  }
}

const withoutPrefix = (text: string, prefix: string) =>
  text.startsWith(prefix) ? text.slice(prefix.length) : text;

export class ValidationError extends PaylinkError {
  /** One field at fault, or several (at least one), each with its problem. */
  constructor(field: string, problem: string);
  constructor(problems: readonly FieldProblem[]);
  constructor(fieldOrProblems: string | readonly FieldProblem[], problem = '') {
    const details =
      typeof fieldOrProblems === 'string'
        ? [{ field: fieldOrProblems, message: problem }]
        : firstOfEach(fieldOrProblems);
    super('VALIDATION_ERROR', validationMessage(details), { details });
  }
}

/** Each field once, with its first problem: a field is fixed as a whole, whatever else is wrong with it. */
function firstOfEach(problems: readonly FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>();
  return problems.filter(({ field }) => !seen.has(field) && seen.add(field));
}

/** "amount: is required" for one field; "2 fields are invalid: amount, currency" for more. */
function validationMessage(details: readonly FieldProblem[]): string {
  const [first] = details;
  if (first === undefined) return 'The request is invalid';
  if (details.length === 1) return `${first.field}: ${first.message}`;
  return `${details.length} fields are invalid: ${details.map(({ field }) => field).join(', ')}`;
}

/**
 * Runs every check and answers their results, or throws one ValidationError naming every field the checks
 * refused (each check throws a ValidationError of its own): a client learns all its mistakes in one answer.
 */
export function checkEvery<T extends readonly unknown[]>(checks: { readonly [K in keyof T]: () => T[K] }): T {
  const problems: FieldProblem[] = [];
  const results = checks.map((check) => {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.details);
      return undefined;
    }
  });
  if (problems.length > 0) throw new ValidationError(problems);
  return results as unknown as T;
}

/**
 * The error for a person reading one line (a dashboard form, the CLI): each field at fault with its problem,
 * `name` translating a field to what that person typed (a form label, a flag).
 */
export function problemsText(
  error: PaylinkError,
  name: (field: string) => string = (field) => field,
): string {
  const named = error.details.map(({ field, message }) => `${name(field)}: ${message}`).join('; ');
  // A single problem keeps its own sentence unless it is the field's ("wallet_address: …" → "--wallet: …").
  if (error.details.length === 1 && !error.message.startsWith(`${error.field}: `)) return error.message;
  return named || error.message;
}

/** The answer body of an error: `details` on every VALIDATION_ERROR, `field` whenever one is at fault. */
export function errorResponseOf(error: PaylinkError): ErrorResponse {
  return {
    error: error.message,
    code: error.code,
    ...(error.field === undefined ? {} : { field: error.field }),
    ...(error.code === 'VALIDATION_ERROR' ? { details: error.details } : {}),
  };
}

export const UNAUTHORIZED_MESSAGE = 'Invalid or missing API key';
