import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { keyWorks } from '../../../app/merchants/merchantAdmin.ts';
import type { ApiKeyRecord } from '../../../app/merchants/ports.ts';
import {
  createRestrictedKey,
  listKeysOfMode,
  revokeRestrictedKey,
} from '../../../app/merchants/restrictedKeys.ts';
import { API_KEY_SCOPES, SECRET_KEY_ONLY } from '../../../domain/apiKeyScopes.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { ApiKeyResponse, CreatedKeyResponse, CreateKeyBody, KeyList, KeyParams } from '../keySchemas.ts';
import { merchantPlugin, merchantRoutes } from '../merchantRoutes.ts';
import { ErrorBody } from '../schemas.ts';

/** A key as the API shows it: never the key, nor its hash. */
export function keyResponse(key: ApiKeyRecord, now: Date) {
  return {
    id: key.id,
    name: key.name,
    kind: key.kind,
    scopes: key.kind === 'secret' ? [...API_KEY_SCOPES] : [...key.scopes],
    key_prefix: key.keyPrefix,
    livemode: key.mode === 'live',
    status:
      key.revokedAt !== null
        ? ('revoked' as const)
        : keyWorks(key, now)
          ? ('active' as const)
          : ('expired' as const),
    created_at: key.createdAt.toISOString(),
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * A merchant's API keys (decision 0056): listed, restricted ones made and revoked, each within the calling key's
 * mode, and only with the secret key: a key that could make keys could make itself a wider one.
 */
export function keyApi(deps: ApiDeps): FastifyPluginAsyncZod {
  return merchantPlugin(deps, (app) => {
    const keys = merchantRoutes(app, 'keys');
    keys.get(
      '/payments/api/keys/',
      SECRET_KEY_ONLY,
      'List API keys',
      { response: { 200: KeyList } },
      async (_request, { merchant, mode }) => {
        const now = deps.clock.now();
        return { keys: (await listKeysOfMode(deps, merchant.id, mode)).map((key) => keyResponse(key, now)) };
      },
    );
    keys.post(
      '/payments/api/keys/',
      SECRET_KEY_ONLY,
      'Create a restricted API key',
      {
        description:
          'The key is in the mode of the calling key (rk_live_… or rk_test_…) and is answered this once: only its hash is stored.',
        body: CreateKeyBody,
        response: { 201: CreatedKeyResponse, 409: ErrorBody, 415: ErrorBody },
      },
      async ({ body, log }, { merchant, mode }, reply) => {
        const { key, record } = await createRestrictedKey(deps, merchant.id, mode, {
          name: body.name ?? '',
          scopes: body.scopes ?? [],
          expiresAt: body.expires_at,
        });
        log.info({ key: record.id, scopes: record.scopes }, 'restricted API key created');
        return reply.status(201).send({ ...keyResponse(record, deps.clock.now()), key });
      },
    );
    keys.post(
      '/payments/api/keys/:key_id/revoke/',
      SECRET_KEY_ONLY,
      'Revoke a restricted API key',
      {
        description:
          'The key stops working at once. The secret key is rolled from the dashboard, not revoked (409).',
        params: KeyParams,
        response: { 200: ApiKeyResponse, 409: ErrorBody },
      },
      async ({ params, log }, { merchant, mode }) => {
        const revoked = await revokeRestrictedKey(deps, merchant.id, mode, params.key_id);
        log.info({ key: revoked.id }, 'restricted API key revoked');
        return keyResponse(revoked, deps.clock.now());
      },
    );
  });
}
