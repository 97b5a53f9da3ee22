import { digestsEqual, hashApiKey } from '../../domain/credentials.ts';
import { PaylinkError, UNAUTHORIZED_MESSAGE } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import type { Clock } from '../shared/ports.ts';
import { mapValueOrPromise, type ValueOrPromise } from '../shared/valueOrPromise.ts';
import type { ApiKeyRecord, MerchantStore } from './ports.ts';

export class UnauthorizedError extends PaylinkError {
  constructor() {
    super('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  }
}

const MAX_KEY_LENGTH = 200;

export interface Authenticated {
  readonly merchant: Merchant;
  readonly key: ApiKeyRecord;
}

/**
 * The merchant a presented API key belongs to: at once when the store remembers the key, else when the store
 * answers. Missing, unknown, expired and disabled all give the same error, so the answer tells an attacker
 * nothing about which it was; that error, like any failure, is always a rejection, never a throw.
 */
export function authenticateMerchant(
  deps: { merchants: MerchantStore; clock: Clock },
  presentedKey: string | undefined,
): ValueOrPromise<Authenticated> {
  if (!presentedKey || presentedKey.length > MAX_KEY_LENGTH) return Promise.reject(new UnauthorizedError());
  const hash = hashApiKey(presentedKey);
  return mapValueOrPromise(deps.merchants.findByKeyHash(hash, deps.clock.now()), (found) => {
    // The lookup is by hash; comparing again in constant time guards against a store that matched loosely.
    if (!found || !digestsEqual(found.key.keyHash, hash) || found.merchant.status !== 'active') {
      throw new UnauthorizedError();
    }
    return found;
  });
}
