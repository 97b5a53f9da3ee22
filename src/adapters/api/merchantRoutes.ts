import type {
  ContextConfigDefault,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PageRequest } from '../../app/shared/keysetPage.ts';
import { assertKeyAllows, type RouteAccess, SECRET_KEY_ONLY } from '../../domain/apiKeyScopes.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Merchant } from '../../domain/merchant.ts';
import {
  type AuthenticationDeps,
  apiKeyOf,
  authenticated,
  keyModeOf,
  merchantSecurity,
  requireMerchant,
} from './merchantAuth.ts';
import { ErrorBody } from './schemas.ts';

/** A plugin's Fastify instance, with zod's type provider. */
export type ZodApp = Parameters<FastifyPluginAsyncZod>[0];

/**
 * What any merchant route may answer besides its own: bad input, no valid key, a key without the route's scope,
 * not found, rate limited.
 */
export const merchantErrors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
};

/** The OpenAPI extension naming what a merchant route requires of its key (a scope, or `secret_key`). */
export const SCOPE_EXTENSION = 'x-paylink-scope';

/** A merchant listing's page size when the query names none (at most 100, as each query's schema says). */
export const DEFAULT_PAGE_LIMIT = 20;

/** How every paged listing of a merchant's records answers: said once, in each listing's API reference. */
export const PAGED_LISTING =
  "Newest first, in the calling key's mode, a page at a time: the answer's `next_cursor` is the `cursor` of " +
  'the next page, null on the last.';

/** A listing query's page as the use cases take it: its size (default DEFAULT_PAGE_LIMIT) and its cursor. */
export function pageOf(query: {
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}): PageRequest {
  return { limit: query.limit ?? DEFAULT_PAGE_LIMIT, cursor: query.cursor };
}

/**
 * A merchant route's OpenAPI schema: its summary, its tag, the API key's security (what `requireMerchant`
 * enforces), what it requires of the key (`x-paylink-scope`, said in its description too) and `merchantErrors`
 * beside its own answers.
 */
export function merchantSchema<const S extends { readonly response: object; readonly description?: string }>(
  tag: string,
  summary: string,
  access: RouteAccess,
  schema: S,
) {
  const requirement =
    access === SECRET_KEY_ONLY
      ? 'Requires the secret API key: no restricted key may call it.'
      : `Requires the scope \`${access}\` of a restricted API key (the secret key holds every scope).`;
  return {
    summary,
    tags: [tag],
    security: merchantSecurity,
    ...schema,
    description: schema.description === undefined ? requirement : `${schema.description}\n\n${requirement}`,
    [SCOPE_EXTENSION]: access,
    response: { ...merchantErrors, ...schema.response },
  };
}

/** A plugin of merchant routes: every request is authenticated (`requireMerchant`) before any route runs. */
export function merchantPlugin<D extends AuthenticationDeps>(
  deps: D,
  ...routes: readonly ((app: ZodApp, deps: D) => void)[]
): FastifyPluginAsyncZod {
  return async (app) => {
    requireMerchant(app, deps);
    for (const route of routes) route(app, deps);
  };
}

/** Who called a merchant route: the merchant `requireMerchant` authenticated, and its key's mode. */
export interface MerchantCaller {
  readonly merchant: Merchant;
  readonly mode: KeyMode;
}

type RouteSchema<S extends { readonly response: object; readonly description?: string }> = ReturnType<
  typeof merchantSchema<S>
>;
/** Fastify's handler of a route of this schema, under zod's type provider. */
type RouteMethod<S extends FastifySchema> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  ZodTypeProvider
>;

/**
 * A merchant route's answer to its request, given who called: Fastify's handler of its schema with the caller
 * inserted, its request, reply and answer typed by the schema as any route's.
 */
export type MerchantHandler<S extends { readonly response: object; readonly description?: string }> = (
  request: Parameters<RouteMethod<RouteSchema<S>>>[0],
  caller: MerchantCaller,
  reply: Parameters<RouteMethod<RouteSchema<S>>>[1],
) => ReturnType<RouteMethod<RouteSchema<S>>>;

/**
 * The routes of one tag of a plugin made by `merchantPlugin`: `get`, `post`, `patch` and `delete` each declare a route by its
 * path, what it requires of the key (a scope, or the secret key: there is no route without one), summary and
 * schema (`merchantSchema`: the tag, the key's security and `merchantErrors` added), and hand its handler the
 * caller. A key without the route's scope is refused with 403 before its input is even read.
 */
export function merchantRoutes(app: ZodApp, tag: string) {
  const route =
    (method: 'GET' | 'POST' | 'PATCH' | 'DELETE') =>
    <const S extends { readonly response: object; readonly description?: string }>(
      url: string,
      access: RouteAccess,
      summary: string,
      schema: S,
      handler: MerchantHandler<S>,
    ): void => {
      app.route({
        method,
        url,
        schema: merchantSchema(tag, summary, access, schema),
        // After the plugin's authentication (route hooks run after their plugin's), before the body is parsed.
        onRequest: (request, _reply, done) => {
          try {
            assertKeyAllows(apiKeyOf(request), access);
            done();
          } catch (error) {
            done(error as Error);
          }
        },
        handler: (request, reply) =>
          handler(request, { merchant: authenticated(request), mode: keyModeOf(request) }, reply),
      });
    };
  return { get: route('GET'), post: route('POST'), patch: route('PATCH'), delete: route('DELETE') };
}
