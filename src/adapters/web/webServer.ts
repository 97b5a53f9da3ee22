import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { Logger } from 'pino';
import type { ConnectionLimits } from '../../config/index.ts';
import { capConnectionsPerClient, connectionLimitOptions } from './connectionLimits.ts';
import { OneLinePerRequest } from './requestLog.ts';
import { lazyChildLoggers } from './requestLogger.ts';

/** What every listening server of the edge is built with; a surface adds options of its own (`options`). */
export interface WebServerSettings {
  readonly logger: Logger;
  readonly connectionLimits: ConnectionLimits;
  /** Told of every completed response by the request log (the API's latency histogram). */
  readonly onCompletion?: ((request: FastifyRequest, reply: FastifyReply) => void) | undefined;
  readonly options?: Omit<FastifyServerOptions, 'loggerInstance' | 'logController'> | undefined;
}

/**
 * A Fastify instance, not listening, as both ports serve: one log line per request, connection limits (the
 * per-client cap first of all hooks), trailing slashes ignored. `main/` mounts the surfaces' plugins on it.
 */
export function createWebServer(settings: WebServerSettings): FastifyInstance {
  const app = Fastify({
    loggerInstance: settings.logger as FastifyBaseLogger,
    ...connectionLimitOptions(settings.connectionLimits),
    routerOptions: { ignoreTrailingSlash: true },
    ...settings.options,
    logController: new OneLinePerRequest(settings.onCompletion),
    childLoggerFactory: lazyChildLoggers,
  });
  capConnectionsPerClient(app, settings.connectionLimits.maxConnectionsPerClient);
  return app;
}

/**
 * Marks a surface's plugin as the owner of the port it is mounted on: its hooks, error and not-found handlers
 * and parsers apply to the whole server, not to a child context (what `fastify-plugin` does, through the
 * `skip-override` property Fastify documents). The API's error shape, rate limits and request ids so cover the
 * dashboard beside it, as they always have.
 */
export function ownsItsPort<T extends FastifyPluginAsync>(plugin: T, name: string): T {
  Object.assign(plugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: name });
  return plugin;
}
