import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type {
  Clock,
  DepositPlanner,
  Ledger,
  MerchantStore,
  PaymentStore,
  RateProvider,
} from '../../app/ports.ts';
import type { Config } from '../../config.ts';
import { registerErrorHandling } from './errorHandler.ts';
import { registerLosslessJsonParser } from './losslessJson.ts';
import { adminApi } from './routes/adminApi.ts';
import { merchantApi } from './routes/merchantApi.ts';

export interface ApiDeps {
  readonly merchants: MerchantStore;
  readonly payments: PaymentStore;
  readonly deposits: DepositPlanner;
  readonly ledger: Ledger;
  readonly rates: RateProvider;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: Pick<
    Config,
    'checkoutUrl' | 'baseUrl' | 'paymentTtlMs' | 'maxAmountBaseUnits' | 'webhookAllowPrivate' | 'adminToken'
  >;
}

const REQUEST_ID_PATTERN = /^[\w.:-]{1,64}$/;
const VERSION = '0.1.0';

/** The merchant + admin API as a Fastify instance, not listening: `main/` starts it, tests inject into it. */
export async function buildApp(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: 64 * 1024,
    // A caller's X-Request-Id is kept when it is a plain token, so its logs and ours can be joined.
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
    },
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerLosslessJsonParser(app);
  registerErrorHandling(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Paylink API',
        version: VERSION,
        description: 'USDC payment links on Polygon. See docs/merchant-guide.md.',
      },
      servers: [{ url: deps.config.baseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearer: { type: 'http', scheme: 'bearer' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'PAYLINK_ADMIN_TOKEN' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(merchantApi(deps));
  if (deps.config.adminToken) await app.register(adminApi(deps, deps.config.adminToken));
  return app;
}
