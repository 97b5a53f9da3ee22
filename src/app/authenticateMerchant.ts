import { digestsEqual, hashApiKey } from '../domain/credentials.ts';
import { PaylinkError, UNAUTHORIZED_MESSAGE } from '../domain/errors.ts';
import type { Merchant } from '../domain/merchant.ts';
import type { Clock } from './ports/clock.ts';
import type { ApiKeyRecord, MerchantStore } from './ports/merchants.ts';

export class UnauthorizedError extends PaylinkError {
  constructor() {
    super('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  }
}

const MAX_KEY_LENGTH = 200;

/**
 * The merchant a presented API key belongs to. Missing, unknown, expired and disabled all give the same
 * error, so the answer tells an attacker nothing about which it was.
 */
export async function authenticateMerchant(
  deps: { merchants: MerchantStore; clock: Clock },
  presentedKey: string | undefined,
): Promise<{ merchant: Merchant; key: ApiKeyRecord }> {
  if (!presentedKey || presentedKey.length > MAX_KEY_LENGTH) throw new UnauthorizedError();
  const hash = hashApiKey(presentedKey);
  const found = await deps.merchants.findByKeyHash(hash, deps.clock.now());
  // The lookup is by hash; comparing again in constant time guards against a store that matched loosely.
  if (!found || !digestsEqual(found.key.keyHash, hash) || found.merchant.status !== 'active') {
    throw new UnauthorizedError();
  }
  return found;
}
