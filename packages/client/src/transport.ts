import { PaylinkApiError, PaylinkConnectionError } from './errors.ts';
import {
  backoffDelayMs,
  isRetryableFailure,
  isRetryableStatus,
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
  readonly method: 'GET' | 'POST';
  /** Starting with `/`; path parameters already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>> | undefined;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly repeatability: Repeatability;
}

/** The successful (2xx) response; anything else is thrown after the retries the policy allows. */
export async function send(config: TransportConfig, request: ApiRequest): Promise<Response> {
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
    try {
      response = await config.fetch(url, {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(config.timeoutMs),
      });
    } catch (error) {
      if (canRetry && isRetryableFailure(request.repeatability)) {
        await config.sleep(backoffDelayMs(attempt, config.retry));
        continue;
      }
      throw connectionError(error, request, attempt);
    }
    if (response.ok) return response;

    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), new Date());
    const waitMs = retryAfterMs ?? backoffDelayMs(attempt, config.retry);
    if (
      canRetry &&
      isRetryableStatus(response.status, request.repeatability) &&
      (retryAfterMs === undefined || retryAfterMs <= config.retry.maxRetryAfterMs)
    ) {
      // The body is not needed: read it anyway so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      await config.sleep(waitMs);
      continue;
    }
    throw await apiError(response, attempt);
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

/** The API's `{"error", "code", "field"}` body; a body in another shape (a proxy's page) keeps the status. */
async function apiError(response: Response, attempts: number): Promise<PaylinkApiError> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await response.text());
  } catch {
    parsed = undefined;
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const text = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : undefined);
  return new PaylinkApiError({
    status: response.status,
    code: text('code') ?? `HTTP_${response.status}`,
    message: text('error') ?? `The API answered ${response.status}`,
    field: text('field'),
    requestId: response.headers.get('x-request-id') ?? undefined,
    attempts,
  });
}
