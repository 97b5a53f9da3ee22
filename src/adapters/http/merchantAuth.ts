import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateMerchant } from '../../app/authenticateMerchant.ts';
import type { Clock } from '../../app/ports/clock.ts';
import type { MerchantStore } from '../../app/ports/merchants.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Merchant } from '../../domain/merchant.ts';

declare module 'fastify' {
  interface FastifyRequest {
    merchant?: Merchant;
    /** The mode of the key the request came with: every merchant route works within it (test mode). */
    keyMode?: KeyMode;
  }
}

/** OpenAPI security of every merchant route: either header form of the spec. */
export const merchantSecurity = [{ apiKey: [] }, { bearer: [] }];

/** The API key from `X-API-Key`, else from `Authorization: Bearer` (both forms are in the spec). */
export function presentedApiKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const authorization = request.headers.authorization;
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

const authentications = new WeakMap<FastifyRequest, ReturnType<typeof authenticateMerchant>>();

/**
 * The merchant of the request's API key, looked up once per request whoever asks first: the rate limit (which
 * counts per key) and then the route both need it.
 */
export function authenticateRequest(
  request: FastifyRequest,
  deps: { merchants: MerchantStore; clock: Clock },
): ReturnType<typeof authenticateMerchant> {
  let authentication = authentications.get(request);
  if (!authentication) {
    authentication = authenticateMerchant(deps, presentedApiKey(request));
    authentications.set(request, authentication);
  }
  return authentication;
}

/**
 * Authenticates every request of the plugin it is registered in, on `onRequest`: a request without a valid key
 * is refused before its body is even parsed, with the spec's exact 401.
 */
export function requireMerchant(
  app: FastifyInstance,
  deps: { merchants: MerchantStore; clock: Clock },
): void {
  app.addHook('onRequest', async (request) => {
    const { merchant, key } = await authenticateRequest(request, deps);
    // The request's log line names them (buildApp.ts); a child logger per request would cost more than the line.
    request.merchant = merchant;
    request.keyMode = key.mode;
  });
}

/** The merchant `requireMerchant` authenticated; reaching a route without one is a programming error. */
export function authenticated(request: FastifyRequest): Merchant {
  if (!request.merchant) throw new Error('route reached without authentication');
  return request.merchant;
}

/** The mode of the key `requireMerchant` authenticated. */
export function keyModeOf(request: FastifyRequest): KeyMode {
  if (!request.keyMode) throw new Error('route reached without authentication');
  return request.keyMode;
}
