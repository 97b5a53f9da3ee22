import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { keyUsageRecorder } from '../../app/merchants/keyUsage.ts';
import { registerInputTextCheck } from '../web/inputText.ts';
import { ownsItsPort } from '../web/webServer.ts';
import type { ApiDeps } from './apiDeps.ts';
import { frameworkErrorHandler, registerErrorHandling } from './errorHandler.ts';
import { requestDurationObserver } from './httpMetrics.ts';
import { registerLosslessJsonParser } from './losslessJson.ts';
import { declareAuthenticationFields } from './merchantAuth.ts';
import { openApiOptions, pointExplorerAtBaseUrl, SWAGGER_UI_OPTIONS } from './openApiDocument.ts';
import { fastifyTrustProxy, registerPlatform } from './platform.ts';
import { adminApi } from './routes/adminApi.ts';
import { adminReceiptDetailsApi } from './routes/adminReceiptDetailsApi.ts';
import { adminRefundsApi } from './routes/adminRefundsApi.ts';
import { adminUsersApi } from './routes/adminUsersApi.ts';
import { adminWebhooksApi } from './routes/adminWebhooksApi.ts';
import { eventsApi } from './routes/eventsApi.ts';
import { keyApi } from './routes/keyApi.ts';
import { linkApi } from './routes/linkApi.ts';
import { merchantApi } from './routes/merchantApi.ts';
import { merchantWebhooksApi } from './routes/merchantWebhooksApi.ts';
import { paymentListApi } from './routes/paymentListApi.ts';
import { refundApi } from './routes/refundApi.ts';
import { subscriptionApi } from './routes/subscriptionApi.ts';
import { webhookEndpointApi } from './routes/webhookEndpointApi.ts';
import { x402Api } from './routes/x402Api.ts';

const REQUEST_ID_PATTERN = /^[\w.:-]{1,64}$/;
const VERSION = '0.1.0';

/** What the API port's server is created with besides the shared settings (web/webServer.ts). */
export function apiServerOptions(deps: Pick<ApiDeps, 'config' | 'metrics'>) {
  return {
    options: {
      bodyLimit: 64 * 1024,
      // A caller's X-Request-Id is kept when it is a plain token, so its logs and ours can be joined.
      genReqId: (request) => {
        const incoming = request.headers['x-request-id'];
        return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
      },
      requestIdHeader: false,
      // Behind a load balancer, the client address (per-IP rate limit) comes from X-Forwarded-For of trusted hops.
      trustProxy: fastifyTrustProxy(deps.config.trustProxy),
      frameworkErrors: frameworkErrorHandler,
    } satisfies FastifyServerOptions,
    onCompletion: requestDurationObserver(deps.metrics),
  };
}

/**
 * The merchant and admin API, with what its port does for every route on it (the dashboard's too): JSON read
 * losslessly, input text checked, the error shape, request ids, rate limits, /healthz, /readyz, /metrics and the
 * OpenAPI document. Mounted by `main/` on a server made with `apiServerOptions`.
 */
export function apiPlugin(apiDeps: ApiDeps) {
  // One recorder for the port: it remembers which keys it wrote lately, whichever plugin authenticated them.
  const deps: ApiDeps = {
    ...apiDeps,
    keyUsage:
      apiDeps.keyUsage ??
      keyUsageRecorder(apiDeps.merchants, apiDeps.clock, (error) =>
        apiDeps.logger.warn({ err: error }, 'could not record an API key as used'),
      ),
  };
  return ownsItsPort(async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<ZodTypeProvider>();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    declareAuthenticationFields(app);
    registerLosslessJsonParser(app);
    registerInputTextCheck(app);
    registerErrorHandling(app);
    // Callback-style hooks where nothing is awaited: an async hook costs a promise per request.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
    await registerPlatform(app, deps);

    await app.register(swagger, openApiOptions(deps.config.baseUrl, VERSION));
    await app.register(async (docs) => {
      pointExplorerAtBaseUrl(docs, deps.config.baseUrl);
      await docs.register(swaggerUi, SWAGGER_UI_OPTIONS);
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

    await app.register(merchantApi(deps));
    await app.register(merchantWebhooksApi(deps));
    await app.register(paymentListApi(deps));
    await app.register(keyApi(deps));
    if (deps.refunds) await app.register(refundApi({ ...deps, refunds: deps.refunds }));
    if (deps.links) await app.register(linkApi({ ...deps, links: deps.links }));
    if (deps.subscriptions)
      await app.register(subscriptionApi({ ...deps, subscriptions: deps.subscriptions }));
    await app.register(x402Api(deps));
    if (deps.webhookEndpoints)
      await app.register(webhookEndpointApi({ ...deps, webhookEndpoints: deps.webhookEndpoints }));
    if (deps.events) await app.register(eventsApi({ ...deps, events: deps.events }));
    await registerAdminApi(app, deps);
  }, 'paylink-api');
}

/** `/admin/api/`, served only where PAYLINK_ADMIN_TOKEN is set. */
async function registerAdminApi(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const token = deps.config.adminToken;
  if (!token) return;
  await app.register(adminApi(deps, token));
  await app.register(adminWebhooksApi(deps, token));
  if (deps.refunds) await app.register(adminRefundsApi({ ...deps, refunds: deps.refunds }, token));
  if (deps.users) await app.register(adminUsersApi({ ...deps, users: deps.users }, token));
  if (deps.brands) await app.register(adminReceiptDetailsApi({ ...deps, brands: deps.brands }, token));
}
