import { type FieldProblem, PaylinkApiError, PaylinkConnectionError } from './errors.ts';
import {
  backoffDelayMs,
  isRetryableAnswer,
  isRetryableFailure,
  parseRetryAfter,
  type Repeatability,
  type RetryPolicy,
} from './retry.ts';

/** One HTTP exchange with the API, retried where that is safe; errors become typed `PaylinkError`s. */

export interface TransportConfig {
  readonly apiKey: string;
  /** Without a trailing slash. */
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly sleep: (ms: number) => Promise<void>;
}

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Starting with `/`; path parameters already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>> | undefined;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly repeatability: Repeatability;
}

/** The body of the successful (2xx) answer; anything else is thrown after the retries the policy allows. */
export async function send(config: TransportConfig, request: ApiRequest): Promise<string> {
  const url = requestUrl(config.baseUrl, request);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-api-key': config.apiKey,
    ...request.headers,
  };
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  if (body !== undefined) headers['content-type'] = 'application/json';

  for (let attempt = 1; ; attempt++) {
    const canRetry = attempt < config.retry.maxAttempts;
    let response: Response;
    let text: string;
    try {
      response = await config.fetch(url, {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(config.timeoutMs),
      });
      // Read within the same timeout: an answer cut off half-way is no answer.
      text = await response.text();
    } catch (error) {
      if (canRetry && isRetryableFailure(request.repeatability)) {
        await config.sleep(backoffDelayMs(attempt, config.retry));
        continue;
      }
      throw connectionError(error, request, attempt);
    }
    if (response.ok) return text;

    const failure = apiError(response, text, attempt);
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), new Date());
    if (
      canRetry &&
      isRetryableAnswer(failure.status, failure.code, request.repeatability) &&
      (retryAfterMs === undefined || retryAfterMs <= config.retry.maxRetryAfterMs)
    ) {
      await config.sleep(retryAfterMs ?? backoffDelayMs(attempt, config.retry));
      continue;
    }
    throw failure;
  }
}

function requestUrl(baseUrl: string, request: ApiRequest): string {
  const url = new URL(baseUrl + request.path);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

function connectionError(error: unknown, request: ApiRequest, attempts: number): PaylinkConnectionError {
  const timedOut = error instanceof Error && error.name === 'TimeoutError';
  const what = `${request.method} ${request.path}`;
  return timedOut
    ? new PaylinkConnectionError('TIMEOUT', `${what} got no answer in time`, attempts, error)
    : new PaylinkConnectionError(
        'CONNECTION_ERROR',
        `${what} failed: no answer from the API`,
        attempts,
        error,
      );
}

/** A VALIDATION_ERROR's `details`, keeping only well-formed entries. */
function fieldProblems(details: unknown): FieldProblem[] {
  if (!Array.isArray(details)) return [];
  return details.filter(
    (entry): entry is FieldProblem =>
      typeof entry === 'object' &&
      entry !== null &&
      typeof (entry as Record<string, unknown>).field === 'string' &&
      typeof (entry as Record<string, unknown>).message === 'string',
  );
}

/** The API's `{"error", "code", "field", "details"}` body; a body in another shape (a proxy's page) keeps the status. */
function apiError(response: Response, text: string, attempts: number): PaylinkApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const field = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : undefined);
  return new PaylinkApiError({
    status: response.status,
    code: field('code') ?? `HTTP_${response.status}`,
    message: field('error') ?? `The API answered ${response.status}`,
    field: field('field'),
    details: fieldProblems(fields.details),
    requestId: response.headers.get('x-request-id') ?? undefined,
    attempts,
  });
}
