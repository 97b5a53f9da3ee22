import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type ErrorCode,
  type ErrorResponse,
  errorResponseOf,
  type FieldProblem,
  PaylinkError,
  ValidationError,
} from '../../domain/errors.ts';

/**
 * Every error leaves in the spec's shape `{"error", "code"}`. PaylinkErrors carry their own status and public
 * message; framework errors are mapped here; anything else is a 500 whose details go to the log only.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | PaylinkError, request, reply) => {
    if (error instanceof PaylinkError) {
      const body = errorResponseOf(error);
      if (error.status >= 500) request.log.warn({ err: error.cause ?? error }, error.message);
      // A paused token is the issuer's decision, usually lifted within minutes: a client may ask again then.
      if (error.code === 'TOKEN_PAUSED') reply.header('retry-after', '60');
      return reply.status(error.status).send(body);
    }
    if (error.validation) {
      const problems = fieldProblems(error.validation, error.validationContext ?? 'request');
      return reply.status(400).send(errorResponseOf(new ValidationError(problems)));
    }
    if (clientAborted(error, request)) {
      // The client went away while sending its body: nothing failed here, and there is nobody left to answer.
      request.log.info({ code: error.code }, 'client aborted the request before its body was complete');
      return reply.status(400).send(errorResponse('BAD_REQUEST', 'Request aborted by the client'));
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply
          .status(415)
          .send(errorResponse('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.status(413).send(errorResponse('PAYLOAD_TOO_LARGE', 'Request body is too large'));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.status(400).send(errorResponseOf(new ValidationError('body', 'must be a JSON object')));
    }
    if (isDatabaseUnavailable(error)) {
      // Transient: the pool replaces the lost connection, so the client's retry will most likely succeed.
      request.log.warn({ err: error }, 'database unavailable');
      return reply
        .status(503)
        .header('retry-after', '1')
        .send(errorResponse('SERVICE_UNAVAILABLE', 'Service temporarily unavailable; retry shortly'));
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send(errorResponse('BAD_REQUEST', 'Bad request'));
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.status(500).send(errorResponse('INTERNAL_ERROR', 'Internal error'));
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send(errorResponse('NOT_FOUND', 'Route not found'));
  });
}

/** One schema issue as reported by the validator (fastify-type-provider-zod maps each zod issue to one). */
interface SchemaIssue {
  readonly instancePath?: string;
  readonly message?: string;
  readonly params?: Record<string, unknown>;
}

/**
 * Every field the schema refused, named as the client sent it (`order_id`, nested `metadata.foo`); an issue of
 * the whole body or query (an unknown key, a body that is no object) names each key, or the part. (A field
 * with several issues is named once: ValidationError keeps the first.)
 */
function fieldProblems(issues: readonly SchemaIssue[], part: string): FieldProblem[] {
  const problems = issues.flatMap((issue) => {
    const path = issue.instancePath?.replace(/^\//, '').replaceAll('/', '.') ?? '';
    const keys = issue.params?.keys;
    const fields = path === '' && Array.isArray(keys) && keys.length > 0 ? keys.map(String) : [path || part];
    return fields.map((field) => ({ field, message: issue.message ?? 'is invalid' }));
  });
  return problems.length > 0 ? problems : [{ field: part, message: 'is invalid' }];
}

/**
 * Node's error for a request body cut off by the client closing the connection ("aborted", ECONNRESET): not a
 * fault of the service, and not the database's ECONNRESET either (that one carries another message).
 */
function clientAborted(error: { code?: unknown; message?: unknown }, request: FastifyRequest): boolean {
  return error.code === 'ECONNRESET' && error.message === 'aborted' && request.raw.readableAborted;
}

/**
 * PostgreSQL went away or refused us (admin shutdown, crash recovery, network), or SQLite stayed locked past its
 * busy timeout: the request failed through no fault of the client and may be retried.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000', // connection_exception
  '08003', // connection_does_not_exist
  '08006', // connection_failure
  '53300', // too_many_connections
  'SQLITE_BUSY',
]);

function isDatabaseUnavailable(error: { code?: unknown; message?: unknown }): boolean {
  if (typeof error.code === 'string' && UNAVAILABLE_CODES.has(error.code)) return true;
  return (
    typeof error.message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect/.test(error.message)
  );
}

/**
 * Errors Fastify raises before routing (a path that is not valid percent-encoding, `/status/%/`), which skip
 * the error handler: Fastify's own answer would echo the URL in another shape. Passed as `frameworkErrors`.
 */
export function frameworkErrorHandler(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error.code === 'FST_ERR_BAD_URL') {
    reply.code(400).send(errorResponse('BAD_REQUEST', 'The URL is not valid percent-encoding'));
    return;
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    reply.code(status).send(errorResponse('BAD_REQUEST', 'Bad request'));
    return;
  }
  reply.code(500).send(errorResponse('INTERNAL_ERROR', 'Internal error'));
}

/** An error body; its code is one of ErrorCode, so every code a caller sees is listed in domain/errors.ts. */
function errorResponse(code: ErrorCode, error: string): ErrorResponse {
  return { error, code };
}
