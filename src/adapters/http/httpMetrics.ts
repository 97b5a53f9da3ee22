import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * Times every response into the latency histogram, labelled by the route's pattern (`/payments/api/status/
 * :payment_id/`), never the raw URL, so label values stay few whatever clients send; unknown paths are one label.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
