import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';

/**
 * Random requests against the real app (real database, real parsers, rate limiter on): whatever comes in, the
 * answer is never a 5xx, a 4xx is always `{"error": string, "code": string}` (plus `field`), and nothing of
 * the implementation (stack frames, file names) leaks. Runs are bounded so the suite stays quick; a failure
 * prints the seed and the shrunk request to replay it.
 */
const RUNS = Number(process.env.PAYLINK_FUZZ_RUNS ?? 300); // raise it for a deeper search
const STACK_TRACE = /\n\s+at\s|\.(?:ts|js|mjs|cjs):\d+|node_modules|\/src\//;

function expectWellFormed(response: LightMyRequestResponse): void {
  // The one 5xx the API may give: a real currency code no rate source prices (the harness knows six).
  const unpriced = response.statusCode === 503 && response.json().code === 'RATE_UNAVAILABLE';
  if (!unpriced) expect(response.statusCode, response.body).toBeLessThan(500);
  expect(response.body).not.toMatch(STACK_TRACE);
  if (response.statusCode < 400) return;
  const body: unknown = JSON.parse(response.body);
  expect(body).toBeTypeOf('object');
  const { error, code, field, details, ...rest } = body as Record<string, unknown>;
  expect(error).toBeTypeOf('string');
  expect(code).toBeTypeOf('string');
  expect(code).toMatch(/^[A-Z_]+$/);
  if (field !== undefined) expect(field).toBeTypeOf('string');
  // Every validation error lists each field at fault, the first of them being `field`; no other error has them.
  if (code === 'VALIDATION_ERROR') {
    expect(details).toBeInstanceOf(Array);
    for (const detail of details as unknown[])
      expect(detail).toStrictEqual({ field: expect.any(String), message: expect.any(String) });
    expect((details as { field: string }[])[0]?.field).toBe(field);
  } else {
    expect(details).toBeUndefined();
  }
  expect(rest).toStrictEqual({});
}

/** Text a real client could put in a header value: visible ASCII, space, tab and obs-text (latin-1). */
const headerText = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      fc.constantFrom('\t', 'é', 'ÿ', '\u0080'),
    ),
    maxLength,
  });

/** Strings a fuzzer should try anywhere text goes: unicode of every plane, controls, huge, empty, look-alikes. */
const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u202e',
    '𝟙𝟘𝟘',
    '١٠٠',
    'USD\u0000',
    'x'.repeat(5_000),
    '../../etc/passwd',
  ),
);

/** Decimal text, valid or not, of any size: JSON numbers are read losslessly, so their text is what matters. */
const numberText = fc.oneof(
  fc.stringMatching(/^-?\d{1,40}(\.\d{1,40})?([eE][+-]?\d{1,6})?$/),
  fc.constantFrom('0', '-0', '1e999999', '1e-999999', '9'.repeat(400), '0.000000000000000000001', '100.10'),
);

describe.each(dialects)('fuzzing the merchant API on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      // Rate limits on, with buckets no run can drain: the limiter's paths are exercised, never the 429.
      env: {
        PAYLINK_RATE_LIMIT: '1000/s',
        PAYLINK_RATE_LIMIT_BURST: '1000000',
        PAYLINK_RATE_LIMIT_IP: '1000/s',
        PAYLINK_RATE_LIMIT_IP_BURST: '1000000',
      },
    });
    apiKey = (await h.merchant()).apiKey;
  });
  afterAll(() => h.close());

  /** Credentials: mostly the right key (so requests get past authentication), sometimes anything at all. */
  const credentials = () =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant({ 'x-api-key': apiKey }) },
      { weight: 2, arbitrary: fc.constant({ authorization: `Bearer ${apiKey}` }) },
      { weight: 1, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: headerText(300).map((v) => ({ 'x-api-key': v })) },
      { weight: 1, arbitrary: headerText(300).map((v) => ({ authorization: v })) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(headerText(300), headerText(300))
          .map(([key, auth]) => ({ 'x-api-key': key, authorization: `Bearer ${auth}` })),
      },
    );

  const extraHeaders = fc.dictionary(
    fc.constantFrom(
      'idempotency-key',
      'x-request-id',
      'accept',
      'accept-language',
      'content-encoding',
      'x-forwarded-for',
    ),
    headerText(300),
    { maxKeys: 3 },
  );

  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'application/json; charset=latin1',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonx',
        '*/*',
        '',
      ),
    },
    { weight: 1, arbitrary: headerText(60) },
  );

  /** A create body: field by field with raw number text, any JSON value at all, or no JSON. */
  const createBody = fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .record(
          {
            amount: fc.oneof(
              numberText,
              fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
            ),
            currency: fc
              .oneof(fc.constantFrom('USD', 'eur', 'USDC', 'JPY', 'KWD', 'CHF', 'XXX'), anyText)
              .map((v) => JSON.stringify(v)),
            order_id: fc.oneof(
              anyText.map((v) => JSON.stringify(v)),
              fc.constant('12'),
              fc.constant('null'),
            ),
            customer_email: fc.oneof(fc.emailAddress(), anyText).map((v) => JSON.stringify(v)),
            webhook_url: fc.oneof(fc.webUrl(), anyText).map((v) => JSON.stringify(v)),
            return_url: fc
              .oneof(fc.webUrl({ validSchemes: ['https'] }), anyText)
              .map((v) => JSON.stringify(v)),
            nested: fc.jsonValue({ maxDepth: 8 }).map((v) => JSON.stringify(v) ?? 'null'),
          },
          { requiredKeys: [] },
        )
        .map(
          (fields) =>
            `{${Object.entries(fields)
              .map(([k, v]) => `${JSON.stringify(k)}: ${v}`)
              .join(', ')}}`,
        ),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? '') },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{"amount": 1, "amount": 2}', '[]', '{', '"', `${'['.repeat(5_000)}`),
    },
  );

  /** A query string: known and unknown keys, repeated keys, encoded and broken percent-escapes. */
  const queryString = (keys: readonly string[]) =>
    fc
      .array(
        fc.tuple(
          fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 10 })),
          fc.oneof(
            numberText,
            anyText.map((v) => encodeURIComponent(v)),
            fc.constantFrom('%', '%zz', '%E0%A4%A', '&&', '==', '+', '%00', 'USD', 'pending'),
          ),
        ),
        { maxLength: 6 },
      )
      .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&'));

  it('create: any body, content type and credentials → never a 5xx, always the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        createBody,
        contentType,
        credentials(),
        extraHeaders,
        async (payload, type, auth, extra) => {
          const response = await h.app.inject({
            method: 'POST',
            url: '/payments/api/create/',
            headers: { ...extra, ...auth, ...(type === '' ? {} : { 'content-type': type }) },
            payload,
          });
          expectWellFormed(response);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('convert: any query string and credentials → never a 5xx, always the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(queryString(['amount', 'currency']), credentials(), async (query, auth) => {
        const response = await h.app.inject({
          method: 'GET',
          url: `/payments/api/convert/?${query}`,
          headers: auth,
        });
        expectWellFormed(response);
      }),
      { numRuns: RUNS },
    );
  });

  it('listing and status: any query string and path → never a 5xx, always the error shape', async () => {
    const keys = ['status', 'order_id', 'created_after', 'limit', 'cursor'];
    await fc.assert(
      fc.asyncProperty(
        queryString(keys),
        fc.oneof(
          fc.uuid(),
          anyText.map((v) => encodeURIComponent(v)),
          fc.constantFrom('%', '..', '%2F'),
        ),
        credentials(),
        async (query, id, auth) => {
          expectWellFormed(
            await h.app.inject({ method: 'GET', url: `/payments/api/payments/?${query}`, headers: auth }),
          );
          expectWellFormed(
            await h.app.inject({ method: 'GET', url: `/payments/api/status/${id}/`, headers: auth }),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('keeps the regressions it found: NUL in stored text, broken percent-encoding in the path', async () => {
    const create = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: { amount: 1, currency: 'USD', order_id: 'a\u0000b' },
    });
    expect(create.statusCode).toBe(400);
    expect(create.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'order_id' });
    // Bad text in several fields: each is named, not only the first.
    const several = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: { amount: 1, currency: 'USD\u0000', order_id: 'a\u0000b', metadata: { note: '\u0007' } },
    });
    expect(several.statusCode).toBe(400);
    expect(several.json().details.map(({ field }: { field: string }) => field)).toEqual([
      'currency',
      'order_id',
      'metadata.note',
    ]);
    const list = await h.app.inject({
      method: 'GET',
      url: '/payments/api/payments/?order_id=%00',
      headers: { 'x-api-key': apiKey },
    });
    expect(list.statusCode).toBe(400);
    expect(list.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'order_id' });
    const path = await h.app.inject({
      method: 'GET',
      url: '/payments/api/status/%/',
      headers: { 'x-api-key': apiKey },
    });
    expect(path.statusCode).toBe(400);
    expect(path.json()).toStrictEqual({
      error: 'The URL is not valid percent-encoding',
      code: 'BAD_REQUEST',
    });
  });

  it('any method on any API path → never a 5xx, always the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
        fc.constantFrom(
          '/payments/api/create/',
          '/payments/api/convert/',
          '/payments/api/payments/',
          '/payments/api/x',
        ),
        credentials(),
        contentType,
        fc.option(createBody, { nil: undefined }),
        async (method, url, auth, type, payload) => {
          const response = await h.app.inject({
            method,
            url,
            headers: { ...auth, ...(type === '' ? {} : { 'content-type': type }) },
            ...(payload === undefined || method === 'GET' || method === 'HEAD' ? {} : { payload }),
          });
          if (method !== 'HEAD') expectWellFormed(response);
          else expect(response.statusCode).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
