import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateMerchant } from '../../app/authenticateMerchant.ts';
import type { Clock, MerchantStore } from '../../app/ports.ts';
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

/**
 * Authenticates every request of the plugin it is registered in, on `onRequest`: a request without a valid key
 * is refused before its body is even parsed, with the spec's exact 401.
 */
export function requireMerchant(
  app: FastifyInstance,
  deps: { merchants: MerchantStore; clock: Clock },
): void {
  app.addHook('onRequest', async (request) => {
    const { merchant, key } = await authenticateMerchant(deps, presentedApiKey(request));
    request.merchant = merchant;
    request.keyMode = key.mode;
    request.log = request.log.child({ merchant: merchant.id, mode: key.mode });
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
