import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * Times a response into the latency histogram, labelled by the route's pattern (`/payments/api/status/
 * :payment_id/`), never the raw URL, so label values stay few whatever clients send; unknown paths are one label.
 *
 * Called on each response's completion by the request log (requestLog.ts), which Fastify calls anyway: an
 * `onResponse` hook of its own would cost another hook pass per request.
 */
export function requestDurationObserver(
  metrics: Metrics,
): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  };
}
