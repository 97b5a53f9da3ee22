import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode, statusOfCode } from '../../src/domain/errors.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';

/**
 * docs/api.md against the code: the same endpoints as the OpenAPI document the app serves (and the routes of
 * the endpoints outside it), and exactly the error codes the code base can answer with, at their statuses.
 */

const ROOT = join(import.meta.dirname, '../..');
const reference = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Endpoint {
  readonly method: string;
  readonly path: string;
}
const key = ({ method, path }: Endpoint) => `${method.toUpperCase()} ${path}`;

/** Each endpoint is a heading of its own: ### `GET /payments/api/status/{payment_id}/`. */
function documentedEndpoints(markdown: string): Endpoint[] {
  return [...markdown.matchAll(/^### `([A-Z]+) (\/\S*)`$/gm)].map(([, method = '', path = '']) => ({
    method,
    path,
  }));
}

function openApiEndpoints(document: { paths: Record<string, Record<string, unknown>> }): Endpoint[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    METHODS.filter((method) => method in operations).map((method) => ({
      method: method.toUpperCase(),
      path,
    })),
  );
}

const isApiPath = (path: string) => path.startsWith('/payments/api/') || path.startsWith('/admin/api/');
const isCheckoutPath = (path: string) =>
  path.startsWith('/pay/') || path.startsWith('/refunds/') || path.startsWith('/receipts/');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The error codes in the table of the Errors section, with the status written beside each. */
function errorTable(markdown: string): Map<string, number> {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Errors\n')) ?? '';
  return new Map(
    [...section.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map(([, code = '', status = '']) => [
      code,
      Number(status),
    ]),
  );
}

const isErrorCode = (code: string): code is ErrorCode => (ERROR_CODES as readonly string[]).includes(code);

describe('docs/api.md', () => {
  let h: ApiHarness;
  let openApi: { paths: Record<string, Record<string, unknown>> };
  beforeAll(async () => {
    h = await startApiHarness('sqlite');
    openApi = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  afterAll(async () => h.close());

  it('documents every operation of the OpenAPI document, and no API endpoint it lacks', () => {
    const inOpenApi = openApiEndpoints(openApi).map(key);
    const documented = documentedEndpoints(reference);
    // The admin API is part of the document (the harness sets an admin token), and so of this check.
    expect(inOpenApi.some((endpoint) => endpoint.includes(' /admin/api/'))).toBe(true);
    expect(
      documented
        .filter((endpoint) => isApiPath(endpoint.path))
        .map(key)
        .sort(),
    ).toEqual([...inOpenApi].sort());
  });

  it('documents outside the OpenAPI document only endpoints the API serves there', async () => {
    const platform = documentedEndpoints(reference).filter(
      (endpoint) => !isApiPath(endpoint.path) && !isCheckoutPath(endpoint.path),
    );
    expect(platform.length).toBeGreaterThan(0);
    for (const endpoint of platform) {
      expect(openApi.paths[endpoint.path], endpoint.path).toBeUndefined();
      const answer = await h.app.inject({ method: endpoint.method as 'GET', url: endpoint.path });
      expect(answer.statusCode, key(endpoint)).not.toBe(404);
    }
  });

  it('documents only checkout endpoints the checkout app has a route for', () => {
    const checkoutSource = sourceFiles(join(ROOT, 'src/adapters/checkout'))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const checkout = documentedEndpoints(reference).filter((endpoint) => isCheckoutPath(endpoint.path));
    expect(checkout.length).toBeGreaterThan(0);
    for (const endpoint of checkout) {
      const route = endpoint.path.replaceAll(/\{(\w+)\}/g, ':$1');
      const declaration = new RegExp(
        `app\\.${endpoint.method.toLowerCase()}(?:<\\w+>)?\\(\\s*'${route.replaceAll('.', '\\.')}'`,
      );
      expect(checkoutSource, key(endpoint)).toMatch(declaration);
    }
  });

  it('lists every error code with its status, and no other', () => {
    const table = errorTable(reference);
    expect([...table.keys()].sort()).toEqual([...ERROR_CODES].sort());
    for (const [code, status] of table) expect(status, code).toBe(statusOfCode(code as ErrorCode));
  });

  it('names no code that does not exist, and gives each the status the code answers with', () => {
    for (const [mention, status = '', code = ''] of reference.matchAll(
      /\b([1-5]\d\d) ([A-Z][A-Z_]{2,})\b/g,
    )) {
      expect(isErrorCode(code), mention).toBe(true);
      expect(Number(status), mention).toBe(statusOfCode(code as ErrorCode));
    }
    for (const [mention, code = ''] of reference.matchAll(/"code": ?"([^"]*)"/g))
      expect(isErrorCode(code), mention).toBe(true);
    // Anything in backticks shaped like a code (configuration variables aside) must be one.
    for (const [mention, code = ''] of reference.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g))
      if (!code.startsWith('PAYLINK_')) expect(isErrorCode(code), mention).toBe(true);
  });

  it('has every code the source answers with in ErrorCode, the list the table is checked against', () => {
    const literals = new Set<string>();
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      // A PaylinkError's or errorResponse's code, or that of an error body written out (`{ error: …, code: '…' }`).
      for (const [, code = ''] of text.matchAll(/(?:PaylinkError|errorResponse)\(\s*'([A-Z][A-Z_]+)'/g))
        literals.add(code);
      for (const [, code = ''] of text.matchAll(/\berror: [\s\S]{0,120}?\bcode: '([A-Z][A-Z_]+)'/g))
        literals.add(code);
    }
    // The scan finds the codes answered outside PaylinkError (error handlers, /readyz, checkout) too.
    expect(literals).toContain('PAYLOAD_TOO_LARGE');
    expect(literals).toContain('SERVICE_UNAVAILABLE');
    expect([...literals].filter((code) => !isErrorCode(code))).toEqual([]);
  });
});

describe('the OpenAPI document and /docs', () => {
  let h: ApiHarness;
  let openApi: {
    paths: Record<string, Record<string, { tags?: string[]; security?: Record<string, string[]>[] }>>;
    tags: { name: string }[];
    servers: { url: string }[];
    components: { schemas: Record<string, unknown>; securitySchemes: Record<string, Record<string, string>> };
  };
  beforeAll(async () => {
    h = await startApiHarness('sqlite');
    openApi = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  afterAll(async () => h.close());

  it('is the same document at /docs/json, the one the page renders', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/docs/json' })).json()).toEqual(openApi);
  });

  it('lists each schema once: no request twin ("…Input") of a response schema, none unreferenced', () => {
    const names = Object.keys(openApi.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['Error', 'PaymentStatusResponse', 'Merchant']));
    expect(names.filter((name) => name.endsWith('Input') && names.includes(name.slice(0, -5)))).toEqual([]);
    const text = JSON.stringify({ paths: openApi.paths, schemas: openApi.components.schemas });
    for (const name of names) expect(text, name).toContain(`"#/components/schemas/${name}"`);
  });

  it('documents the admin API under its tag and the admin token, the merchant API under the API key', () => {
    const { securitySchemes } = openApi.components;
    expect(securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(openApi.tags.map((tag) => tag.name)).toContain('admin');
    const operations = Object.entries(openApi.paths).flatMap(([path, methods]) =>
      Object.values(methods).map((operation) => ({ path, operation })),
    );
    const admin = operations.filter(({ path }) => path.startsWith('/admin/api/'));
    expect(admin.length).toBeGreaterThan(10);
    for (const { path, operation } of admin) {
      expect(operation.tags, path).toEqual(['admin']);
      expect(operation.security, path).toEqual([{ adminToken: [] }]);
    }
    for (const { path, operation } of operations.filter(({ path }) => path.startsWith('/payments/api/'))) {
      expect(operation.tags, path).not.toContain('admin');
      expect(operation.security, path).toEqual([{ apiKey: [] }, { bearer: [] }]);
    }
  });

  it('points the /docs explorer at the document under the configured base URL, not the address it was reached by', async () => {
    // The harness's PAYLINK_BASE_URL is https://api.example.test; inject reaches the app as localhost.
    const initializer = await h.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.body).toContain('url: "https://api.example.test/docs/json"');
    expect(initializer.body).not.toContain("resolveUrl('./json')");
    expect(openApi).toMatchObject({ servers: [{ url: 'https://api.example.test' }] });

    const prefixed = await startApiHarness('sqlite', {
      env: { PAYLINK_BASE_URL: 'https://shop.example/paylink/' },
    });
    try {
      const script = await prefixed.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
      expect(script.body).toContain('url: "https://shop.example/paylink/docs/json"');
    } finally {
      await prefixed.close();
    }
  });

  it('renders /docs without the top bar whose box shows the document URL', async () => {
    const initializer = await h.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
    const config = /const config = (\{.*\})/.exec(initializer.body)?.[1];
    expect(config).toBeDefined();
    // The top bar (with the URL box) belongs to StandaloneLayout, the default; BaseLayout has none.
    expect(JSON.parse(config ?? '{}')).toMatchObject({ layout: 'BaseLayout' });
  });
});
