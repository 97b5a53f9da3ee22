import { MedusaError } from '@medusajs/framework/utils';

/** What the SDK's errors look like here (its classes live in an ES module, so they are matched by shape). */
interface SdkError {
  readonly name: string;
  readonly code: string;
  readonly status?: number;
  readonly field?: string;
  readonly requestId?: string;
  readonly message: string;
}

function isSdkError(error: unknown): error is SdkError {
  return (
    error instanceof Error &&
    typeof (error as { code?: unknown }).code === 'string' &&
    error.name.startsWith('Paylink')
  );
}

/** What the plugin calls on Paylink: payments created and read, refunds created and read (README). */
export const MEDUSA_SCOPES = ['payments:read', 'payments:write', 'refunds:read', 'refunds:write'] as const;

/**
 * A Paylink failure in words a shop owner acts on: what happened and what to do. Never the API key. The cart
 * and its session are left as they were, so the shopper can try again once it is fixed.
 */
export function shopOwnerError(error: unknown, apiUrl: string, doing: string): MedusaError {
  if (!isSdkError(error)) {
    return new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `Paylink: ${doing} failed: ${String(error)}`);
  }
  if (error.name === 'PaylinkConnectionError') {
    return new MedusaError(
      MedusaError.Types.UNEXPECTED_STATE,
      `Paylink at ${apiUrl} did not answer (${error.code}) while ${doing}. Check the provider's apiUrl option ` +
        'and that Paylink is running; nothing was charged, the shopper can try again.',
    );
  }
  const reference = error.requestId ? ` (Paylink request ${error.requestId})` : '';
  if (error.status === 401 || error.code === 'UNAUTHORIZED') {
    return new MedusaError(
      MedusaError.Types.UNAUTHORIZED,
      `Paylink refused the API key while ${doing}: set the provider's apiKey to a current key from the ` +
        `Paylink dashboard (a restricted key rk_live_… or, in test mode, rk_test_…)${reference}.`,
    );
  }
  if (error.status === 403 || error.code === 'FORBIDDEN') {
    return new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `Paylink refused the API key while ${doing}: ${error.message}. Make a restricted key with the scopes ` +
        `${MEDUSA_SCOPES.join(', ')} on the Paylink dashboard and set it as the provider's apiKey${reference}.`,
    );
  }
  if (error.field === 'currency' || error.code === 'RATE_UNAVAILABLE') {
    return new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `Paylink cannot take this currency now while ${doing}: ${error.message}. Offer Paylink only in regions ` +
        `whose currency Paylink converts (see GET /payments/api/convert/), or try again later${reference}.`,
    );
  }
  if (error.code === 'TEST_MODE_UNAVAILABLE' || error.code === 'MERCHANT_NOT_CONFIGURED') {
    return new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `Paylink cannot take payments for this account while ${doing}: ${error.message}${reference}.`,
    );
  }
  const type = error.status !== undefined && error.status < 500 ? 'INVALID_DATA' : 'UNEXPECTED_STATE';
  return new MedusaError(
    MedusaError.Types[type],
    `Paylink answered ${error.code} while ${doing}: ${error.message}${reference}.`,
  );
}

export function sdkErrorCode(error: unknown): string | undefined {
  return isSdkError(error) ? error.code : undefined;
}
