import type { KeyMode } from '../../domain/credentials.ts';
import type { Merchant } from '../../domain/merchant.ts';
import type { ValueOrPromise } from '../shared/valueOrPromise.ts';

export interface ApiKeyRecord {
  readonly id: string;
  readonly merchantId: string;
  readonly keyHash: string;
  readonly keyPrefix: string;
  readonly mode: KeyMode;
  readonly createdAt: Date;
  /** Null while current; set when rotated out (end of the grace period) or revoked. */
  readonly expiresAt: Date | null;
}

export interface MerchantStore {
  /** Inserts a merchant with its first API key (and any further ones, e.g. a test key), all or nothing. */
  insert(merchant: Merchant, key: ApiKeyRecord, moreKeys?: readonly ApiKeyRecord[]): Promise<void>;
  find(id: string): Promise<Merchant | undefined>;
  list(limit: number): Promise<Merchant[]>;
  /** Saved disabled, its dashboard users' sessions end in the same transaction. */
  save(merchant: Merchant): Promise<void>;
  /** The unexpired key with this hash, and its merchant; at once when remembered (adapters/cache). */
  findByKeyHash(
    keyHash: string,
    now: Date,
  ): ValueOrPromise<{ key: ApiKeyRecord; merchant: Merchant } | undefined>;
  listKeys(merchantId: string): Promise<ApiKeyRecord[]>;
  /**
   * Old keys of the new key's mode stop working at `oldKeysExpireAt` and the new key is inserted, atomically;
   * keys of the other mode are untouched.
   */
  replaceKeys(newKey: ApiKeyRecord, oldKeysExpireAt: Date): Promise<void>;
}
