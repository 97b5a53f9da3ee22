import { PaylinkError } from './errors.ts';

/**
 * What a restricted API key may do (decision 0056). A scope is `resource:access`, each granted on its own: a
 * write does not imply the read of the same resource, so a key's list says all it can do. The secret key (kind
 * `secret`) holds every scope and, alone, manages keys.
 */
export const API_KEY_SCOPES = [
  'payments:read',
  'payments:write',
  'links:read',
  'links:write',
  'refunds:read',
  'refunds:write',
  'subscriptions:read',
  'subscriptions:write',
  'webhooks:manage',
  'events:read',
  'x402:settle',
] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** The secret key: every scope and key management. A restricted key: only its scopes, never key management. */
export type ApiKeyKind = 'secret' | 'restricted';

/** What a merchant route requires of the key it is called with: a scope, or the secret key itself. */
export type RouteAccess = ApiKeyScope | typeof SECRET_KEY_ONLY;

/** Key management: a key that could make keys could make itself a wider one, so no scope grants it. */
export const SECRET_KEY_ONLY = 'secret_key';

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}

export class ForbiddenError extends PaylinkError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

/** Throws FORBIDDEN, naming what is missing, unless a key of `kind` with `scopes` may do what `access` says. */
export function assertKeyAllows(
  key: { readonly kind: ApiKeyKind; readonly scopes: readonly ApiKeyScope[] },
  access: RouteAccess,
): void {
  if (key.kind === 'secret') return;
  if (access === SECRET_KEY_ONLY) {
    throw new ForbiddenError(
      'Only the secret API key can do this; a restricted key cannot, whatever its scopes',
    );
  }
  if (!key.scopes.includes(access)) {
    throw new ForbiddenError(`This restricted API key lacks the scope ${access}`);
  }
}
