import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_EXTENSION } from '../../src/adapters/api/merchantRoutes.ts';
import { rotateApiKey } from '../../src/app/merchants/merchantAdmin.ts';
import { API_KEY_SCOPES, SECRET_KEY_ONLY } from '../../src/domain/apiKeyScopes.ts';
import { hashApiKey } from '../../src/domain/credentials.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { until } from '../helpers/net.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

/** The spec's 401, byte for byte: an expired or revoked key gets exactly this. */
const UNAUTHORIZED = '{"error":"Invalid or missing API key","code":"UNAUTHORIZED"}';

/**
 * What each merchant route requires of its key (decision 0056). The test reads the same from the served OpenAPI
 * document, so a route added without a scope, or with another than this table says, fails it.
 */
const EXPECTED_ACCESS: Record<string, string> = {
  'POST /payments/api/create/': 'payments:write',
  'GET /payments/api/status/{payment_id}/': 'payments:read',
  'GET /payments/api/convert/': 'payments:read',
  'GET /payments/api/payments/': 'payments:read',
  'GET /payments/api/payments/export/': 'payments:read',
  'GET /payments/api/webhooks/': 'events:read',
  'POST /payments/api/refunds/': 'refunds:write',
  'GET /payments/api/refunds/': 'refunds:read',
  'GET /payments/api/refunds/export/': 'refunds:read',
  'GET /payments/api/refunds/{refund_id}/': 'refunds:read',
  'POST /payments/api/refunds/{refund_id}/cancel/': 'refunds:write',
  'POST /payments/api/links/': 'links:write',
  'GET /payments/api/links/': 'links:read',
  'GET /payments/api/links/{link_id}/': 'links:read',
  'POST /payments/api/links/{link_id}/deactivate/': 'links:write',
  'POST /payments/api/links/{link_id}/payments/': 'payments:write',
  'POST /payments/api/plans/': 'subscriptions:write',
  'GET /payments/api/plans/': 'subscriptions:read',
  'GET /payments/api/plans/{plan_id}/': 'subscriptions:read',
  'POST /payments/api/plans/{plan_id}/archive/': 'subscriptions:write',
  'POST /payments/api/subscriptions/': 'subscriptions:write',
  'GET /payments/api/subscriptions/': 'subscriptions:read',
  'GET /payments/api/subscriptions/{subscription_id}/': 'subscriptions:read',
  'POST /payments/api/subscriptions/{subscription_id}/cancel/': 'subscriptions:write',
  'POST /payments/api/subscriptions/{subscription_id}/change-plan/': 'subscriptions:write',
  'GET /payments/api/x402/supported': 'x402:settle',
  'POST /payments/api/x402/verify': 'x402:settle',
  'POST /payments/api/x402/settle': 'x402:settle',
  'POST /payments/api/webhook_endpoints/': 'webhooks:manage',
  'GET /payments/api/webhook_endpoints/': 'webhooks:manage',
  'GET /payments/api/webhook_endpoints/{endpoint_id}/': 'webhooks:manage',
  'PATCH /payments/api/webhook_endpoints/{endpoint_id}/': 'webhooks:manage',
  'DELETE /payments/api/webhook_endpoints/{endpoint_id}/': 'webhooks:manage',
  'POST /payments/api/webhook_endpoints/{endpoint_id}/rotate-secret/': 'webhooks:manage',
  'GET /payments/api/events/': 'events:read',
  'GET /payments/api/events/{event_id}/': 'events:read',
  'GET /payments/api/keys/': SECRET_KEY_ONLY,
  'POST /payments/api/keys/': SECRET_KEY_ONLY,
  'POST /payments/api/keys/{key_id}/revoke/': SECRET_KEY_ONLY,
};

describe.each(dialects)('restricted API keys on %s', (dialect) => {
  let h: ApiHarness;
  let base: string;
  let secretKey: string;
  let testSecretKey: string;
  let merchantId: string;
  let otherSecretKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    ({ apiKey: secretKey, id: merchantId } = await h.merchant({ name: 'Corner Shop' }));
    otherSecretKey = (await h.merchant({ name: 'Other Shop' })).apiKey;
    const admin = { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false };
    testSecretKey = (await rotateApiKey(admin, merchantId, 0, 'test')).apiKey;
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => h.close());

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Body };
  };
  const createKey = async (fields: Body, key = secretKey) => {
    const created = await call('POST', '/payments/api/keys/', key, { name: 'Shop plugin', ...fields });
    expect(created.status, created.text).toBe(201);
    return created.body;
  };
  const keyWith = async (scopes: readonly string[], key = secretKey) =>
    (await createKey({ scopes }, key)).key as string;
  const listKeys = async (key = secretKey) =>
    (await call('GET', '/payments/api/keys/', key)).body.keys as Body[];

  it('declares for every merchant route what it requires of the key, as the table says', async () => {
    const document = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const declared: Record<string, unknown> = {};
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, Body>>)) {
      if (!path.startsWith('/payments/api/')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        declared[`${method.toUpperCase()} ${path}`] = operation[SCOPE_EXTENSION];
        expect(operation.security, `${method} ${path}`).toStrictEqual([{ apiKey: [] }, { bearer: [] }]);
        expect(Object.keys(operation.responses)).toContain('403');
      }
    }
    expect(declared).toStrictEqual(EXPECTED_ACCESS);
  });

  it.each(Object.entries(EXPECTED_ACCESS))(
    '%s refuses a key without %s with 403 naming it, and takes one with it',
    async (route, access) => {
      const [method = '', template = ''] = route.split(' ');
      const path = template.replace(/\{[a-z_]+\}/g, 'unknown_id');
      const body = method === 'POST' || method === 'PATCH' ? {} : undefined;
      if (access === SECRET_KEY_ONLY) {
        // Every scope there is, and still no key management.
        const refused = await call(method, path, await keyWith(API_KEY_SCOPES), body);
        expect(refused.status).toBe(403);
        expect(refused.body).toStrictEqual({
          error: 'Only the secret API key can do this; a restricted key cannot, whatever its scopes',
          code: 'FORBIDDEN',
        });
        expect((await call(method, path, secretKey, body)).status).not.toBe(403);
        return;
      }
      const refused = await call(
        method,
        path,
        await keyWith(API_KEY_SCOPES.filter((scope) => scope !== access)),
        body,
      );
      expect(refused.status).toBe(403);
      expect(refused.body).toStrictEqual({
        error: `This restricted API key lacks the scope ${access}`,
        code: 'FORBIDDEN',
      });
      // The scope alone is enough: whatever the route answers to this input (200, 400, 404 …), it is not a refusal.
      const taken = await call(method, path, await keyWith([access]), body);
      expect([401, 403]).not.toContain(taken.status);
    },
  );

  it('serves a restricted key its scope: a payment made with payments:write, read with payments:read', async () => {
    const writer = await keyWith(['payments:write']);
    const reader = await keyWith(['payments:read']);
    const created = await call('POST', '/payments/api/create/', writer, {
      amount: '10.00',
      currency: 'USDC',
    });
    expect(created.status).toBe(201);
    const status = await call('GET', `/payments/api/status/${created.body.payment_id}/`, reader);
    expect(status.status).toBe(200);
    expect(status.body.payment_id).toBe(created.body.payment_id);
    // Write does not imply read.
    expect((await call('GET', `/payments/api/status/${created.body.payment_id}/`, writer)).status).toBe(403);
  });

  it('shows a new key once and stores only its hash', async () => {
    const created = await createKey({
      name: '  Bookkeeping sync ',
      scopes: ['refunds:read', 'payments:read'],
    });
    expect(created.key).toMatch(/^rk_live_[0-9A-Za-z]{43}$/);
    expect(created).toMatchObject({
      name: 'Bookkeeping sync',
      kind: 'restricted',
      scopes: ['payments:read', 'refunds:read'],
      key_prefix: created.key.slice(0, 12),
      livemode: true,
      status: 'active',
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
    });
    const listed = (await listKeys()).find((key) => key.id === created.id);
    const { key: _shownOnce, ...described } = created;
    expect(listed).toStrictEqual(described);
    const row = await h.database.handle.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashApiKey(created.key));
    expect(Object.values(row)).not.toContain(created.key);
  });

  it('lists the secret key, there before restricted keys, as holding every scope', async () => {
    const secrets = (await listKeys()).filter((key) => key.kind === 'secret');
    expect(secrets).toHaveLength(1);
    const [first] = secrets;
    expect(first).toMatchObject({
      kind: 'secret',
      name: null,
      scopes: [...API_KEY_SCOPES],
      status: 'active',
    });
    expect(secretKey.startsWith(first?.key_prefix)).toBe(true);
  });

  it('refuses a key asked for wrongly, naming each field', async () => {
    const now = h.clock.now().toISOString();
    const refused = await call('POST', '/payments/api/keys/', secretKey, {
      name: ' ',
      scopes: ['payments:read', 'payments:delete'],
      expires_at: now,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('VALIDATION_ERROR');
    expect(refused.body.details.map((detail: Body) => detail.field)).toStrictEqual([
      'name',
      'scopes',
      'expires_at',
    ]);
    expect(refused.body.details[1].message).toContain('payments:delete');
    const noScopes = await call('POST', '/payments/api/keys/', secretKey, { name: 'x', scopes: [] });
    expect(noScopes.body.details).toStrictEqual([
      { field: 'scopes', message: 'must name at least one scope' },
    ]);
    const badDate = await call('POST', '/payments/api/keys/', secretKey, {
      name: 'x',
      scopes: ['payments:read'],
      expires_at: 'tomorrow',
    });
    expect(badDate.body.field).toBe('expires_at');
  });

  it('refuses an expired key from the moment it expires, with the spec 401', async () => {
    const expiresAt = new Date(h.clock.now().getTime() + 60_000);
    const created = await createKey({ scopes: ['payments:read'], expires_at: expiresAt.toISOString() });
    expect(created.expires_at).toBe(expiresAt.toISOString());
    h.clock.set(new Date(expiresAt.getTime() - 1));
    expect((await call('GET', '/payments/api/payments/', created.key)).status).toBe(200);
    h.clock.set(expiresAt);
    const refused = await call('GET', '/payments/api/payments/', created.key);
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(UNAUTHORIZED);
    expect((await listKeys()).find((key) => key.id === created.id)?.status).toBe('expired');
  });

  it('refuses a revoked key with the spec 401; the secret key is rolled, never revoked', async () => {
    const created = await createKey({ scopes: ['links:read'] });
    expect((await call('GET', '/payments/api/links/', created.key)).status).toBe(200);
    const revoked = await call('POST', `/payments/api/keys/${created.id}/revoke/`, secretKey, {});
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({
      id: created.id,
      status: 'revoked',
      revoked_at: h.clock.now().toISOString(),
    });
    const refused = await call('GET', '/payments/api/links/', created.key);
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(UNAUTHORIZED);
    // Revoking again changes nothing; another merchant's key and an unknown one are not found.
    h.clock.advance(1000);
    const again = await call('POST', `/payments/api/keys/${created.id}/revoke/`, secretKey, {});
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    expect((await call('POST', `/payments/api/keys/${created.id}/revoke/`, otherSecretKey, {})).status).toBe(
      404,
    );
    const secret = (await listKeys()).find((key) => key.kind === 'secret');
    const notRevoked = await call('POST', `/payments/api/keys/${secret?.id}/revoke/`, secretKey, {});
    expect(notRevoked.status).toBe(409);
    expect(notRevoked.body.code).toBe('CONFLICT');
    expect((await call('GET', '/payments/api/keys/', secretKey)).status).toBe(200);
  });

  it('keeps test and live keys apart', async () => {
    const testKey = await createKey({ name: 'Staging', scopes: ['payments:read'] }, testSecretKey);
    expect(testKey.key).toMatch(/^rk_test_/);
    expect(testKey.livemode).toBe(false);
    expect((await listKeys(testSecretKey)).map((key) => key.livemode)).not.toContain(true);
    expect((await listKeys()).map((key) => key.id)).not.toContain(testKey.id);
    expect((await call('POST', `/payments/api/keys/${testKey.id}/revoke/`, secretKey, {})).status).toBe(404);
    const livePayment = await call('POST', '/payments/api/create/', secretKey, {
      amount: '5.00',
      currency: 'USDC',
    });
    expect(
      (await call('GET', `/payments/api/status/${livePayment.body.payment_id}/`, testKey.key)).status,
    ).toBe(404);
    const liveReader = await keyWith(['payments:read']);
    expect(
      (await call('GET', `/payments/api/status/${livePayment.body.payment_id}/`, liveReader)).status,
    ).toBe(200);
  });

  it('rolling the secret key leaves restricted keys working', async () => {
    const reader = await keyWith(['payments:read']);
    const admin = { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false };
    const rolled = await rotateApiKey(admin, merchantId, 0);
    expect((await call('GET', '/payments/api/payments/', secretKey)).text).toBe(UNAUTHORIZED);
    secretKey = rolled.apiKey;
    expect((await call('GET', '/payments/api/payments/', reader)).status).toBe(200);
  });

  it('shows when a key was last used, written at most once a minute', async () => {
    const created = await createKey({ scopes: ['payments:read'] });
    const lastUsed = async () => (await listKeys()).find((key) => key.id === created.id)?.last_used_at;
    const firstUse = h.clock.now().toISOString();
    expect((await call('GET', '/payments/api/payments/', created.key)).status).toBe(200);
    await until('the first use recorded', lastUsed, (value) => value === firstUse);
    h.clock.advance(30_000);
    await call('GET', '/payments/api/payments/', created.key);
    h.clock.advance(30_000);
    const aMinuteLater = h.clock.now().toISOString();
    await call('GET', '/payments/api/payments/', created.key);
    await until('the use a minute later recorded', lastUsed, (value) => value === aMinuteLater);
    const row = await h.database.handle.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).toBe(aMinuteLater);
  });
});
