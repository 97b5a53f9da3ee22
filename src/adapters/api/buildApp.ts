import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { cachedMerchantStore } from '../cache/cachedMerchantStore.ts';
import { isCommonPassword } from '../crypto/commonPasswords.ts';
import { scryptPasswords } from '../crypto/scryptPasswords.ts';
import { totpSecondFactor } from '../crypto/totp.ts';
import { dashboardRoutes } from '../dashboard/dashboardRoutes.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { createWebhookSender } from '../outbound/webhookSender.ts';
import { memoryBucketStore } from '../rateLimit/memoryBucketStore.ts';
import { capConnectionsPerClient, connectionLimitOptions } from '../web/connectionLimits.ts';
import { registerInputTextCheck } from '../web/inputText.ts';
import { OneLinePerRequest } from '../web/requestLog.ts';
import { lazyChildLoggers } from '../web/requestLogger.ts';
import type { ApiDeps } from './apiDeps.ts';
import { frameworkErrorHandler, registerErrorHandling } from './errorHandler.ts';
import { requestDurationObserver } from './httpMetrics.ts';
import { registerLosslessJsonParser } from './losslessJson.ts';
import { declareAuthenticationFields } from './merchantAuth.ts';
import { openApiOptions, pointExplorerAtBaseUrl, SWAGGER_UI_OPTIONS } from './openApiDocument.ts';
import { fastifyTrustProxy, registerPlatform } from './platform.ts';
import { adminApi } from './routes/adminApi.ts';
import { adminRefundsApi } from './routes/adminRefundsApi.ts';
import { adminUsersApi } from './routes/adminUsersApi.ts';
import { adminWebhooksApi } from './routes/adminWebhooksApi.ts';
import { linkApi } from './routes/linkApi.ts';
import { merchantApi } from './routes/merchantApi.ts';
import { merchantWebhooksApi } from './routes/merchantWebhooksApi.ts';
import { paymentListApi } from './routes/paymentListApi.ts';
import { refundApi } from './routes/refundApi.ts';

const REQUEST_ID_PATTERN = /^[\w.:-]{1,64}$/;
const VERSION = '0.1.0';

/** The merchant + admin API as a Fastify instance, not listening: `main/` starts it, tests inject into it. */
export async function buildApp(appDeps: ApiDeps): Promise<FastifyInstance> {
  // Every authenticated request looks its key up (rate limit, then route): remembered for a few seconds.
  const deps = {
    ...appDeps,
    merchants: cachedMerchantStore(appDeps.merchants, appDeps.config.authCacheTtlMs),
    metrics: appDeps.metrics ?? createMetrics(),
  };
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    ...connectionLimitOptions(deps.config.connectionLimits),
    bodyLimit: 64 * 1024,
    // A caller's X-Request-Id is kept when it is a plain token, so its logs and ours can be joined.
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
    },
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
    // Behind a load balancer, the client address (per-IP rate limit) comes from X-Forwarded-For of trusted hops.
    trustProxy: fastifyTrustProxy(deps.config.trustProxy),
    frameworkErrors: frameworkErrorHandler,
    logController: new OneLinePerRequest(requestDurationObserver(deps.metrics)),
    childLoggerFactory: lazyChildLoggers,
  }).withTypeProvider<ZodTypeProvider>();

  capConnectionsPerClient(app, deps.config.connectionLimits.maxConnectionsPerClient);
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
  const { buckets, measure } = await registerPlatform(app, deps);

  await app.register(swagger, openApiOptions(deps.config.baseUrl, VERSION));
  await app.register(async (docs) => {
    pointExplorerAtBaseUrl(docs, deps.config.baseUrl);
    await docs.register(swaggerUi, SWAGGER_UI_OPTIONS);
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(merchantApi(deps));
  await app.register(merchantWebhooksApi(deps));
  await app.register(paymentListApi(deps));
  if (deps.refunds) await app.register(refundApi({ ...deps, refunds: deps.refunds }));
  if (deps.links) await app.register(linkApi({ ...deps, links: deps.links }));
  if (deps.users) {
    // Sign-in attempts are always limited, rate limiting of the API on or off.
    let signInBuckets = buckets;
    if (!signInBuckets) {
      const owned = memoryBucketStore();
      app.addHook('onClose', async () => owned.close());
      signInBuckets = owned;
    }
    // "Send test webhook": the same guarded sender as the worker's, so the same addresses are refused.
    const webhookSender = createWebhookSender({
      allowPrivate: deps.config.webhookAllowPrivate,
      timeoutMs: deps.config.webhooks.timeoutMs,
    });
    app.addHook('onClose', async () => webhookSender.close());
    await app.register(
      dashboardRoutes({
        ...deps,
        // Uncached: a merchant disabled is signed out at its next request, not after the auth cache's TTL.
        merchants: appDeps.merchants,
        users: deps.users,
        merchantAdmin: {
          ...deps,
          webhookAllowPrivate: deps.config.webhookAllowPrivate,
          tokenControls: deps.tokenControls?.live,
          defaultToleranceBps: deps.config.defaultToleranceBps,
          depositAddresses: deps.refunds,
        },
        refunds: deps.refunds && {
          store: deps.refunds,
          claimTtlMs: deps.config.refundClaimTtlMs,
          checkoutUrl: deps.config.checkoutUrl,
        },
        paymentCreation: {
          deps: {
            ...deps,
            paymentTtlMs: deps.config.paymentTtlMs,
            maxAmountBaseUnits: deps.config.maxAmountBaseUnits,
            minAmountBaseUnits: deps.config.minAmountBaseUnits,
            webhookAllowPrivate: deps.config.webhookAllowPrivate,
          },
          checkoutUrl: deps.config.checkoutUrl,
        },
        paymentLinks: deps.links && {
          store: deps.links,
          checkoutUrl: deps.config.checkoutUrl,
          webhookAllowPrivate: deps.config.webhookAllowPrivate,
        },
        measure,
        webhookSender,
        passwords: deps.passwords ?? scryptPasswords(),
        secondFactor: totpSecondFactor,
        requireOperatorSecondFactor: deps.config.dashboardRequire2fa,
        payouts: deps.settlements && { settlements: deps.settlements, policy: deps.config.payoutPolicy },
        buckets: signInBuckets,
        isCommonPassword,
        baseUrl: deps.config.baseUrl,
      }),
    );
  }
  if (deps.config.adminToken) {
    await app.register(adminApi(deps, deps.config.adminToken));
    await app.register(adminWebhooksApi(deps, deps.config.adminToken));
    if (deps.refunds)
      await app.register(adminRefundsApi({ ...deps, refunds: deps.refunds }, deps.config.adminToken));
    if (deps.users) await app.register(adminUsersApi({ ...deps, users: deps.users }, deps.config.adminToken));
  }
  return app;
}
