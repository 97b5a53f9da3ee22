import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import type { PageRequest } from '../../app/shared/keysetPage.ts';
import type { Clock } from '../../app/shared/ports.ts';
import { merchantSecurity, requireMerchant } from './merchantAuth.ts';
import { ErrorBody } from './schemas.ts';

/** A plugin's Fastify instance, with zod's type provider. */
export type ZodApp = Parameters<FastifyPluginAsyncZod>[0];

/** What any merchant route may answer besides its own: bad input, no valid key, not found, rate limited. */
export const merchantErrors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/** A merchant listing's page size when the query names none (at most 100, as each query's schema says). */
export const DEFAULT_PAGE_LIMIT = 20;

/** A listing query's page as the use cases take it: its size (default DEFAULT_PAGE_LIMIT) and its cursor. */
export function pageOf(query: {
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}): PageRequest {
  return { limit: query.limit ?? DEFAULT_PAGE_LIMIT, cursor: query.cursor };
}

/**
 * A merchant route's OpenAPI schema: its summary, its tag, the API key's security (what `requireMerchant`
 * enforces) and `merchantErrors` beside its own answers.
 */
export function merchantSchema<const S extends { readonly response: object }>(
  tag: string,
  summary: string,
  schema: S,
) {
  return {
    summary,
    tags: [tag],
    security: merchantSecurity,
    ...schema,
    response: { ...merchantErrors, ...schema.response },
  };
}

/** A plugin of merchant routes: every request is authenticated (`requireMerchant`) before any route runs. */
export function merchantPlugin<D extends { readonly merchants: MerchantStore; readonly clock: Clock }>(
  deps: D,
  ...routes: readonly ((app: ZodApp, deps: D) => void)[]
): FastifyPluginAsyncZod {
  return async (app) => {
    requireMerchant(app, deps);
    for (const route of routes) route(app, deps);
  };
}
