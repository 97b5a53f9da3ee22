import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  checkReadiness,
  type HealthDeps,
  type ReadinessOptions,
} from '../../../app/operations/checkReadiness.ts';
import { measureService } from '../../../app/operations/measureService.ts';
import type { MonitoringStore } from '../../../app/operations/ports.ts';
import type { PayoutPolicy } from '../../../domain/payout.ts';
import type { Metrics } from '../../metrics/metrics.ts';

export interface HealthApiDeps extends Omit<HealthDeps, 'monitoring' | 'payoutPolicy'> {
  readonly monitoring: MonitoringStore;
  readonly payoutPolicy: PayoutPolicy;
  readonly metrics: Metrics;
  readonly readiness: Omit<ReadinessOptions, 'timeoutMs'>;
}

/** Each dependency gets this long to answer a probe: a load balancer's check usually times out at 5 s. */
export const PROBE_TIMEOUT_MS = 2_000;

const Check = z.object({
  status: z.enum(['ok', 'failing', 'skipped']),
  reason: z.string().optional(),
  details: z.record(z.string(), z.union([z.number(), z.string()])).optional(),
});
const Checks = z.object({
  database: Check,
  rpc: Check,
  watcher: Check,
  test_rpc: Check.optional(),
  test_watcher: Check.optional(),
  payouts: Check.optional(),
});

/**
 * `/healthz` (the process is alive: no I/O), `/readyz` (it can serve: database, RPC, watcher) and `/metrics`
 * (Prometheus). On the API port, outside the OpenAPI document and outside authentication and rate limits:
 * they are for the platform, not for merchants, and reveal no merchant data. Put the API port behind a proxy
 * that does not route these paths from the internet if the figures are not for everyone's eyes.
 */
export function healthApi(deps: HealthApiDeps): FastifyPluginAsyncZod {
  const readinessOptions = { ...deps.readiness, timeoutMs: PROBE_TIMEOUT_MS };
  return async (app) => {
    app.get(
      '/healthz',
      { schema: { hide: true, response: { 200: z.object({ status: z.literal('ok') }) } } },
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/readyz',
      {
        schema: {
          hide: true,
          response: {
            200: z.object({ status: z.literal('ready'), checks: Checks }),
            503: z.object({ error: z.string(), code: z.string(), checks: Checks }),
          },
        },
      },
      async (_request, reply) => {
        const report = await checkReadiness(deps, readinessOptions);
        if (report.ready) return reply.status(200).send({ status: 'ready' as const, checks: report.checks });
        // The reasons that made it unready: the test chain's never do.
        const { database, rpc, watcher } = report.checks;
        const reasons = [database, rpc, watcher].flatMap((check) =>
          check.status === 'failing' ? [check.reason] : [],
        );
        return reply.status(503).send({
          error: `Not ready: ${reasons.join('; ')}`,
          code: 'SERVICE_UNAVAILABLE',
          checks: report.checks,
        });
      },
    );

    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      deps.metrics.record(await measureService(deps, PROBE_TIMEOUT_MS));
      return reply.type(deps.metrics.contentType).send(await deps.metrics.registry.metrics());
    });
  };
}
