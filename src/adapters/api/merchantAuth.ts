import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Authenticated, authenticateMerchant } from '../../app/merchants/authenticateMerchant.ts';
import type { KeyUsage } from '../../app/merchants/keyUsage.ts';
import type { ApiKeyRecord, MerchantStore } from '../../app/merchants/ports.ts';
import type { Clock } from '../../app/shared/ports.ts';
import { mapValueOrPromise, mustWait, type ValueOrPromise } from '../../app/shared/valueOrPromise.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Merchant } from '../../domain/merchant.ts';

declare module 'fastify' {
  interface FastifyRequest {
    merchant?: Merchant;
    /** The mode of the key the request came with: every merchant route works within it (test mode). */
    keyMode?: KeyMode;
    /** The key the request came with: its kind and scopes decide what the route allows (`merchantRoutes`). */
    apiKey?: ApiKeyRecord;
    /** The lookup of the request's API key, made by whoever asked first (`authenticateRequest`). */
    authentication?: ValueOrPromise<Authenticated>;
  }
}

/**
 * Declares the fields authentication sets on a request, so that every request is built with them (Fastify's
 * `decorateRequest`). Set on an undeclared object, each field would give the request a new hidden class, and
 * Fastify's own code, which reads every request, would meet requests of several shapes.
 */
export function declareAuthenticationFields(app: FastifyInstance): void {
  app.decorateRequest('merchant', undefined);
  app.decorateRequest('keyMode', undefined);
  app.decorateRequest('apiKey', undefined);
  app.decorateRequest('authentication', undefined);
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

/** What authenticating a request reads: the keys, the clock, and where a key's use is recorded (if anywhere). */
export interface AuthenticationDeps {
  readonly merchants: MerchantStore;
  readonly clock: Clock;
  readonly keyUsage?: KeyUsage | undefined;
}

/**
 * The merchant of the request's API key, looked up once per request whoever asks first (the rate limit, which
 * counts per merchant, then the route), and kept on the request once found: the request's log line names them,
 * and a route's hook finding them there has nothing left to wait for. The key's use is recorded then, once.
 */
export function authenticateRequest(
  request: FastifyRequest,
  deps: AuthenticationDeps,
): ValueOrPromise<Authenticated> {
  request.authentication ??= mapValueOrPromise(
    authenticateMerchant(deps, presentedApiKey(request)),
    (found) => {
      request.merchant = found.merchant;
      request.keyMode = found.key.mode;
      request.apiKey = found.key;
      deps.keyUsage?.(found.key);
      return found;
    },
  );
  return request.authentication;
}

/**
 * Authenticates every request of the plugin it is registered in, on `onRequest`: a request without a valid key
 * is refused before its body is even parsed, with the spec's exact 401.
 */
export function requireMerchant(app: FastifyInstance, deps: AuthenticationDeps): void {
  // Callback-style: when the key is already known (the rate limit asked, or the store remembers it), nothing is
  // awaited (an async hook would still cost a promise per request).
  app.addHook('onRequest', (request, _reply, done) => {
    const authentication = request.merchant ? undefined : authenticateRequest(request, deps);
    if (mustWait(authentication)) authentication.then(() => done(), done);
    else done();
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

/** The key `requireMerchant` authenticated. */
export function apiKeyOf(request: FastifyRequest): ApiKeyRecord {
  if (!request.apiKey) throw new Error('route reached without authentication');
  return request.apiKey;
}
