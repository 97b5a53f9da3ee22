import type { FastifyError, FastifyInstance } from 'fastify';
import { PaylinkError } from '../../domain/errors.ts';

/**
 * Every error leaves in the spec's shape `{"error", "code"}`. PaylinkErrors carry their own status and public
 * message; framework errors are mapped here; anything else is a 500 whose details go to the log only.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | PaylinkError, request, reply) => {
    if (error instanceof PaylinkError) {
      const body: Record<string, string> = { error: error.message, code: error.code };
      if (error.field) body.field = error.field;
      if (error.status >= 500) request.log.warn({ err: error.cause ?? error }, error.message);
      return reply.status(error.status).send(body);
    }
    if (error.validation) {
      const first = error.validation[0];
      const path = first?.instancePath?.replace(/^\//, '').replaceAll('/', '.');
      const field = path || error.validationContext || 'request';
      const problem = first?.message ?? 'is invalid';
      return reply.status(400).send({ error: `${field}: ${problem}`, code: 'VALIDATION_ERROR', field });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply
          .status(415)
          .send({ error: 'Content-Type must be application/json', code: 'UNSUPPORTED_MEDIA_TYPE' });
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.status(413).send({ error: 'Request body is too large', code: 'PAYLOAD_TOO_LARGE' });
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply
          .status(400)
          .send({ error: 'body: must be a JSON object', code: 'VALIDATION_ERROR', field: 'body' });
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send({ error: 'Bad request', code: 'BAD_REQUEST' });
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.status(500).send({ error: 'Internal error', code: 'INTERNAL_ERROR' });
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send({ error: 'Route not found', code: 'NOT_FOUND' });
  });
}
