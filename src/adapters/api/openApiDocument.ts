import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/**
 * How /openapi.json (and /docs/json, the same document) and the /docs page are made. The document is the
 * machine-readable truth of the merchant and admin APIs; docs/api.md says the same in prose.
 */

/** What the pruning below reads of an OpenAPI 3 document. */
interface OpenApiDocument {
  readonly paths?: unknown;
  readonly components?: { readonly schemas?: Record<string, unknown> };
}

const SECURITY_SCHEMES = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: "The merchant's API key (sk_live_… or sk_test_…)",
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: "The merchant's API key as `Authorization: Bearer sk_…`, the other accepted form",
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'Admin API only: `Authorization: Bearer <PAYLINK_ADMIN_TOKEN>`',
  },
} as const;

const TAGS = [
  { name: 'payments', description: 'Payment links: create, read, list, export, convert' },
  { name: 'refunds', description: 'Refunds of payments' },
  { name: 'webhooks', description: "The merchant's webhook log" },
  {
    name: 'admin',
    description:
      'Administration (merchants, dashboard users, webhooks, refunds), with the admin token; served only when PAYLINK_ADMIN_TOKEN is set',
  },
];

export function openApiOptions(baseUrl: string, version: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Paylink API',
        version,
        description: 'USDC payment links on Polygon. See docs/api.md and docs/merchant-guide.md.',
      },
      servers: [{ url: baseUrl }],
      tags: TAGS,
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: jsonSchemaTransform,
    transformObject: (input) => withReferencedSchemasOnly(jsonSchemaTransformObject(input)),
  };
}

/**
 * The /docs page: the document at <base URL>/docs/json (pointExplorerAtBaseUrl), without Swagger UI's top bar, whose box showing that URL invites
 * exploring other documents (BaseLayout is the layout without it).
 */
export const SWAGGER_UI_OPTIONS: FastifySwaggerUiOptions = {
  routePrefix: '/docs',
  uiConfig: { docExpansion: 'list', layout: 'BaseLayout' },
};

/** What Swagger UI's start-up script loads the document from: the page's own address, resolved in the browser. */
const EXPLORER_DOCUMENT = "url: resolveUrl('./json')";

/**
 * Points the /docs explorer at the document under the configured base URL (`PAYLINK_BASE_URL`), the address the
 * document's `servers` names too, rather than at whatever address the page was reached by (127.0.0.1:3000 behind
 * a proxy). Swagger UI's plugin fixes that URL after any configuration, so its start-up script is rewritten as it
 * is sent; the hook belongs in the scope the plugin is registered in. Fails loudly if the script changed shape.
 */
export function pointExplorerAtBaseUrl(docs: FastifyInstance, baseUrl: string): void {
  const documentUrl = `${baseUrl.replace(/\/+$/, '')}/docs/json`;
  docs.addHook('onSend', (request, _reply, payload, done) => {
    if (request.routeOptions.url !== `${SWAGGER_UI_OPTIONS.routePrefix}/static/swagger-initializer.js`)
      return done(null, payload);
    if (typeof payload !== 'string' || !payload.includes(EXPLORER_DOCUMENT))
      return done(new Error('swagger-initializer.js no longer loads the document from ./json'));
    done(null, payload.replace(EXPLORER_DOCUMENT, `url: ${JSON.stringify(documentUrl)}`));
  });
}

/**
 * The provider turns every zod schema with an id into two components, `X` for responses and `XInput` for
 * requests, whether the routes use both or not. Ours are all response schemas, so /docs listed each type twice:
 * only the components the paths reach, directly or through other components, are kept.
 */
function withReferencedSchemasOnly<T extends OpenApiDocument>(document: T): T {
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const reached = new Set<string>();
  const pending = referencedSchemaNames(document.paths);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reached.has(name) || !(name in schemas)) continue;
    reached.add(name);
    pending.push(...referencedSchemaNames(schemas[name]));
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name)));
  return { ...document, components: { ...document.components, schemas: kept } };
}

const SCHEMA_REF = /"#\/components\/schemas\/([^"]+)"/g;

function referencedSchemaNames(value: unknown): string[] {
  return [...JSON.stringify(value ?? null).matchAll(SCHEMA_REF)].map((match) =>
    decodeURIComponent(match[1] ?? ''),
  );
}
