import { z } from 'zod';
import { API_KEY_SCOPES } from '../../domain/apiKeyScopes.ts';
import { optionalString } from './schemas.ts';

/** The API keys' request and response schemas (validated, serialized, and in /openapi.json). */

const timestamp = z.string().meta({ description: 'ISO 8601 UTC timestamp', format: 'date-time' });

export const CreateKeyBody = z.object(
  {
    name: optionalString('What the key is for, shown in lists (required, at most 100 characters)', 100),
    scopes: z
      .array(z.string({ error: 'must be an array of scopes' }), { error: 'must be an array of scopes' })
      .max(API_KEY_SCOPES.length * 2, { error: 'has too many scopes' })
      .optional()
      .meta({
        description: `What the key may do, at least one of: ${API_KEY_SCOPES.join(', ')}`,
        items: { type: 'string', enum: [...API_KEY_SCOPES] },
      }),
    expires_at: optionalString(
      'ISO 8601 date-time from which the key no longer works (at that moment itself it is refused); absent: until revoked',
      40,
    ),
  },
  { error: 'must be a JSON object' },
);

export const ApiKeyResponse = z.object({
  id: z.string().meta({ description: 'The key id (key_…), never the key itself' }),
  name: z.string().nullable().meta({ description: "A restricted key's name; null for the secret key" }),
  kind: z.enum(['secret', 'restricted']).meta({
    description: 'secret: every scope, and alone manages keys; restricted: only its scopes',
  }),
  scopes: z
    .array(z.enum(API_KEY_SCOPES))
    .meta({ description: 'What the key may do (all, for the secret key)' }),
  key_prefix: z
    .string()
    .meta({ description: 'The start of the key (sk_live_…, rk_test_…), to tell keys apart' }),
  livemode: z.boolean(),
  status: z.enum(['active', 'expired', 'revoked']).meta({ description: 'Whether the key works now' }),
  created_at: timestamp,
  expires_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
  last_used_at: timestamp
    .nullable()
    .meta({ description: 'When the key last authenticated a request, to the minute; null: never' }),
});

export const CreatedKeyResponse = ApiKeyResponse.extend({
  key: z.string().meta({ description: 'The key itself: shown this once, only its hash is stored' }),
}).meta({ id: 'CreatedApiKey' });

export const KeyList = z
  .object({
    keys: z.array(ApiKeyResponse).meta({ description: "The keys of the calling key's mode, oldest first" }),
  })
  .meta({ id: 'ApiKeyList' });

export const KeyParams = z.object({ key_id: z.string().max(64) });
