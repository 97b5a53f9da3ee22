import type { FastifyInstance } from 'fastify';
import { apiPlugin, apiServerOptions } from '../adapters/api/apiPlugin.ts';
import { checkoutPlugin } from '../adapters/checkout/checkoutPlugin.ts';
import { dashboardPlugin } from '../adapters/dashboard/dashboardPlugin.ts';
import { DEFAULT_CONNECTION_LIMITS } from '../adapters/web/connectionLimits.ts';
import { createWebServer } from '../adapters/web/webServer.ts';
import { type ApiServerInput, apiServices, type CheckoutServerInput } from './services.ts';

/**
 * The API port's server, not listening: the merchant and admin API, and the dashboard under `/dashboard/`.
 * `serve` starts it; tests inject into it. What it made itself (buckets, the test-webhook sender) closes with it.
 */
export async function buildApiServer(input: ApiServerInput): Promise<FastifyInstance> {
  const services = apiServices(input);
  const app = createWebServer({
    logger: input.logger,
    connectionLimits: input.config.connectionLimits,
    ...apiServerOptions(services.api),
  });
  app.addHook('onClose', services.close);
  await app.register(apiPlugin(services.api));
  if (services.dashboard) await app.register(dashboardPlugin(services.dashboard));
  return app;
}

/** The checkout port's server, not listening: the customer's payment and refund pages. */
export async function buildCheckoutServer(input: CheckoutServerInput): Promise<FastifyInstance> {
  const app = createWebServer({
    logger: input.logger,
    connectionLimits: input.connectionLimits ?? DEFAULT_CONNECTION_LIMITS,
  });
  await app.register(checkoutPlugin(input));
  return app;
}
