import { describe, expect, it } from 'vitest';
import { API_KEY_SCOPES, assertKeyAllows, isApiKeyScope, SECRET_KEY_ONLY } from './apiKeyScopes.ts';

describe('assertKeyAllows', () => {
  it('lets the secret key do everything, key management included', () => {
    for (const access of [...API_KEY_SCOPES, SECRET_KEY_ONLY] as const) {
      expect(() => assertKeyAllows({ kind: 'secret', scopes: [] }, access)).not.toThrow();
    }
  });

  it('lets a restricted key do its scopes only, a write not implying the read', () => {
    const key = { kind: 'restricted', scopes: ['payments:write'] } as const;
    expect(() => assertKeyAllows(key, 'payments:write')).not.toThrow();
    expect(() => assertKeyAllows(key, 'payments:read')).toThrow(
      expect.objectContaining({
        code: 'FORBIDDEN',
        status: 403,
        message: 'This restricted API key lacks the scope payments:read',
      }),
    );
  });

  it('never lets a restricted key manage keys, whatever its scopes', () => {
    expect(() => assertKeyAllows({ kind: 'restricted', scopes: API_KEY_SCOPES }, SECRET_KEY_ONLY)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
    expect(isApiKeyScope(SECRET_KEY_ONLY)).toBe(false);
  });
});
