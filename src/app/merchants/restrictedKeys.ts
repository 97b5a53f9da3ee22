import { API_KEY_SCOPES, type ApiKeyScope, isApiKeyScope } from '../../domain/apiKeyScopes.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import { checkEvery, PaylinkError, ValidationError } from '../../domain/errors.ts';
import { parseFutureMoment } from '../../domain/futureMoment.ts';
import type { Clock } from '../shared/ports.ts';
import { issueKey, keyWorks } from './merchantAdmin.ts';
import type { ApiKeyRecord, MerchantStore } from './ports.ts';

/**
 * Restricted API keys (decision 0056), made and revoked by the merchant with its secret key, from the API or
 * the dashboard: both call these, so they accept and refuse the same input.
 */
export interface RestrictedKeyDeps {
  readonly merchants: MerchantStore;
  readonly clock: Clock;
}

/** A restricted key as asked for: its name, its scopes, and when it ends (none: until revoked). */
export interface RestrictedKeyInput {
  readonly name: string;
  readonly scopes: readonly string[];
  /** ISO 8601, with its offset; absent or empty: the key works until revoked. */
  readonly expiresAt?: string | undefined;
}

/** Working restricted keys a merchant may hold per mode: enough for every integration, not for a leak's worth. */
export const MAX_RESTRICTED_KEYS = 100;
const MAX_NAME_LENGTH = 100;

export class KeyNotFoundError extends PaylinkError {
  constructor() {
    super('NOT_FOUND', 'API key not found');
  }
}

function parseName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new ValidationError('name', 'is required');
  if (trimmed.length > MAX_NAME_LENGTH) {
    throw new ValidationError('name', `must be at most ${MAX_NAME_LENGTH} characters`);
  }
  return trimmed;
}

/** The scopes asked for, each once, in the order of API_KEY_SCOPES. */
function parseScopes(scopes: readonly string[]): ApiKeyScope[] {
  const unknown = scopes.find((scope) => !isApiKeyScope(scope));
  if (unknown !== undefined) {
    throw new ValidationError(
      'scopes',
      `has an unknown scope "${unknown}": use ${API_KEY_SCOPES.join(', ')}`,
    );
  }
  if (scopes.length === 0) throw new ValidationError('scopes', 'must name at least one scope');
  return API_KEY_SCOPES.filter((scope) => scopes.includes(scope));
}

/** A new restricted key of `mode`: the key, shown once, and its record (its hash only is stored). */
export async function createRestrictedKey(
  deps: RestrictedKeyDeps,
  merchantId: string,
  mode: KeyMode,
  input: RestrictedKeyInput,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const now = deps.clock.now();
  const [name, scopes, expiresAt] = checkEvery<[string, ApiKeyScope[], Date | null]>([
    () => parseName(input.name),
    () => parseScopes(input.scopes),
    () => parseFutureMoment('expires_at', input.expiresAt, now),
  ]);
  const working = (await listKeysOfMode(deps, merchantId, mode)).filter(
    (key) => key.kind === 'restricted' && keyWorks(key, now),
  );
  if (working.length >= MAX_RESTRICTED_KEYS) {
    throw new PaylinkError(
      'CONFLICT',
      `At most ${MAX_RESTRICTED_KEYS} restricted keys may work at once per mode: revoke one first`,
    );
  }
  const issued = issueKey(merchantId, mode, now, { name, scopes, expiresAt });
  await deps.merchants.insertKey(issued.record);
  return issued;
}

/** Every key of the merchant in `mode`, working or not, oldest first: a key of one mode never sees the other's. */
export async function listKeysOfMode(
  deps: Pick<RestrictedKeyDeps, 'merchants'>,
  merchantId: string,
  mode: KeyMode,
): Promise<ApiKeyRecord[]> {
  return (await deps.merchants.listKeys(merchantId)).filter((key) => key.mode === mode);
}

/**
 * Revokes a restricted key of `mode` at once (within the auth cache's lifetime in other processes). The secret
 * key is rolled instead (dashboard, admin), never revoked: revoking it would leave the merchant no key that can
 * make keys.
 */
export async function revokeRestrictedKey(
  deps: RestrictedKeyDeps,
  merchantId: string,
  mode: KeyMode,
  keyId: string,
): Promise<ApiKeyRecord> {
  const key = (await listKeysOfMode(deps, merchantId, mode)).find((candidate) => candidate.id === keyId);
  if (!key) throw new KeyNotFoundError();
  if (key.kind === 'secret') {
    throw new PaylinkError('CONFLICT', 'The secret key is not revoked but rolled, from the dashboard');
  }
  const revoked = await deps.merchants.revokeKey(merchantId, mode, keyId, deps.clock.now());
  if (!revoked) throw new KeyNotFoundError();
  return revoked;
}
