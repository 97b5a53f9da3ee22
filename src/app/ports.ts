import type { KeyMode } from '../domain/credentials.ts';
import type { Merchant } from '../domain/merchant.ts';
import type { Payment } from '../domain/payment.ts';
import type { AgreedRate } from '../domain/rates.ts';

/**
 * What the use cases need from the outside world. Adapters implement these (adapters/db for the stores,
 * adapters/rates for rates); use cases receive them as their first argument.
 */

/** Time, passed in so that tests and the expirer can drive it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * The agreed market rate for a currency: USDC per one unit. Throws PaylinkError RATE_UNAVAILABLE when no
 * trustworthy rate can be had right now.
 */
export interface RateProvider {
  usdcPerUnit(currencyCode: string): Promise<AgreedRate>;
}

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
  /** Inserts a merchant with its first API key, both or neither. */
  insert(merchant: Merchant, key: ApiKeyRecord): Promise<void>;
  find(id: string): Promise<Merchant | undefined>;
  list(limit: number): Promise<Merchant[]>;
  save(merchant: Merchant): Promise<void>;
  /** The unexpired key with this hash, and its merchant. */
  findByKeyHash(keyHash: string, now: Date): Promise<{ key: ApiKeyRecord; merchant: Merchant } | undefined>;
  listKeys(merchantId: string): Promise<ApiKeyRecord[]>;
  /** Old keys stop working at `oldKeysExpireAt` and the new key is inserted, atomically. */
  replaceKeys(newKey: ApiKeyRecord, oldKeysExpireAt: Date): Promise<void>;
}

export interface PaymentStore {
  insert(payment: Payment): Promise<void>;
  /** A payment as its merchant may see it: another merchant's payment is simply not found. */
  findForMerchant(merchantId: string, paymentId: string): Promise<Payment | undefined>;
}
