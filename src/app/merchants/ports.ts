import type { ApiKeyKind, ApiKeyScope } from '../../domain/apiKeyScopes.ts';
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
  /** Null while current; set when rotated out (end of the grace period), or chosen at creation. */
  readonly expiresAt: Date | null;
  /** The secret key holds every scope and manages keys; a restricted key holds `scopes` only. */
  readonly kind: ApiKeyKind;
  /** A restricted key's scopes; empty for a secret key. */
  readonly scopes: readonly ApiKeyScope[];
  /** A restricted key's name, chosen by the merchant; null for a secret key. */
  readonly name: string | null;
  readonly revokedAt: Date | null;
  /** When it last authenticated a request, to the minute (decision 0056); null: never. */
  readonly lastUsedAt: Date | null;
}

export interface MerchantStore {
  /** Inserts a merchant with its first API key (and any further ones, e.g. a test key), all or nothing. */
  insert(merchant: Merchant, key: ApiKeyRecord, moreKeys?: readonly ApiKeyRecord[]): Promise<void>;
  find(id: string): Promise<Merchant | undefined>;
  list(limit: number): Promise<Merchant[]>;
  /** Saved disabled, its dashboard users' sessions end in the same transaction. */
  save(merchant: Merchant): Promise<void>;
  /** The unexpired, unrevoked key with this hash, and its merchant; at once when remembered (adapters/cache). */
  findByKeyHash(
    keyHash: string,
    now: Date,
  ): ValueOrPromise<{ key: ApiKeyRecord; merchant: Merchant } | undefined>;
  listKeys(merchantId: string): Promise<ApiKeyRecord[]>;
  /**
   * Old secret keys of the new key's mode stop working at `oldKeysExpireAt` and the new key is inserted,
   * atomically; keys of the other mode, and restricted keys, are untouched.
   */
  replaceKeys(newKey: ApiKeyRecord, oldKeysExpireAt: Date): Promise<void>;
  /** Adds a restricted key. */
  insertKey(key: ApiKeyRecord): Promise<void>;
  /**
   * Revokes the merchant's key `keyId` of `mode` at `now`: the key as it is then, or undefined when there is no
   * such key. A key already revoked keeps its first revocation.
   */
  revokeKey(merchantId: string, mode: KeyMode, keyId: string, now: Date): Promise<ApiKeyRecord | undefined>;
  /** Records a use of the key at `now`, unless one after `unlessSince` is recorded already. */
  touchKey(keyId: string, now: Date, unlessSince: Date): Promise<void>;
}
