import type { Insertable, Selectable } from 'kysely';
import type { ApiKeyRecord, MerchantStore } from '../../app/merchants/ports.ts';
import { type ApiKeyScope, isApiKeyScope } from '../../domain/apiKeyScopes.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Merchant } from '../../domain/merchant.ts';
import type { Db } from './database.ts';
import type { ApiKeysTable, MerchantsTable } from './schema.ts';
import { dateOrNull, flag } from './storedValues.ts';

function toMerchant(row: Selectable<MerchantsTable>): Merchant {
  return {
    id: row.id,
    name: row.name,
    walletAddress: row.wallet_address,
    webhookUrl: row.webhook_url,
    webhookSecret: row.webhook_secret,
    commissionBps: Number(row.commission_bps),
    underpaymentToleranceBps: Number(row.underpayment_tolerance_bps),
    sendReceipts: flag(row.send_receipts),
    status: row.status,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

// Insertable: the rotation columns (previous webhook secret) are written only by the webhook repository.
export function merchantRow(merchant: Merchant): Insertable<MerchantsTable> {
  return {
    id: merchant.id,
    name: merchant.name,
    wallet_address: merchant.walletAddress,
    webhook_url: merchant.webhookUrl,
    webhook_secret: merchant.webhookSecret,
    commission_bps: merchant.commissionBps,
    underpayment_tolerance_bps: merchant.underpaymentToleranceBps,
    send_receipts: merchant.sendReceipts ? 1 : 0,
    status: merchant.status,
    created_at: merchant.createdAt.toISOString(),
    updated_at: merchant.updatedAt.toISOString(),
  };
}

function toApiKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    keyHash: row.key_hash,
    keyPrefix: row.key_prefix,
    mode: row.mode,
    createdAt: new Date(row.created_at),
    expiresAt: dateOrNull(row.expires_at),
    kind: row.kind,
    scopes: row.scopes.split(' ').filter((scope): scope is ApiKeyScope => isApiKeyScope(scope)),
    name: row.name,
    revokedAt: dateOrNull(row.revoked_at),
    lastUsedAt: dateOrNull(row.last_used_at),
  };
}

function apiKeyRow(key: ApiKeyRecord): Selectable<ApiKeysTable> {
  return {
    id: key.id,
    merchant_id: key.merchantId,
    key_hash: key.keyHash,
    key_prefix: key.keyPrefix,
    mode: key.mode,
    created_at: key.createdAt.toISOString(),
    expires_at: key.expiresAt?.toISOString() ?? null,
    kind: key.kind,
    scopes: key.scopes.join(' '),
    name: key.name,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
  };
}

export function merchantRepository(db: Db): MerchantStore {
  return {
    insert: (merchant, key, moreKeys = []) => insertMerchant(db, merchant, [key, ...moreKeys]),
    find: (id) => findMerchant(db, id),
    list: (limit) => listMerchants(db, limit),
    save: (merchant) => saveMerchant(db, merchant),
    findByKeyHash: (keyHash, now) => findKeyByHash(db, keyHash, now),
    listKeys: (merchantId) => listKeys(db, merchantId),
    replaceKeys: (newKey, oldKeysExpireAt) => replaceKeys(db, newKey, oldKeysExpireAt),
    insertKey: (key) => insertKey(db, key),
    revokeKey: (merchantId, mode, keyId, now) => revokeKey(db, merchantId, mode, keyId, now),
    touchKey: (keyId, now, unlessSince) => touchKey(db, keyId, now, unlessSince),
  };
}

async function insertMerchant(db: Db, merchant: Merchant, keys: readonly ApiKeyRecord[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('merchants').values(merchantRow(merchant)).execute();
    await trx.insertInto('api_keys').values(keys.map(apiKeyRow)).execute();
  });
}

async function findMerchant(db: Db, id: string): Promise<Merchant | undefined> {
  const row = await db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toMerchant(row);
}

async function listMerchants(db: Db, limit: number): Promise<Merchant[]> {
  const rows = await db
    .selectFrom('merchants')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toMerchant);
}

/**
 * A merchant saved disabled has every session of its dashboard users ended in the same transaction (decision
 * 0014): a session checks the merchant on each request, but one left unused while the merchant was disabled
 * would otherwise come back when it is enabled again.
 */
async function saveMerchant(db: Db, merchant: Merchant): Promise<void> {
  const { id, created_at: _createdAt, ...changes } = merchantRow(merchant);
  if (merchant.status !== 'disabled') {
    await db.updateTable('merchants').set(changes).where('id', '=', id).execute();
    return;
  }
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('merchants').set(changes).where('id', '=', id).execute();
    await trx
      .deleteFrom('dashboard_sessions')
      .where('user_id', 'in', trx.selectFrom('dashboard_users').select('id').where('merchant_id', '=', id))
      .execute();
  });
}

async function findKeyByHash(
  db: Db,
  keyHash: string,
  now: Date,
): Promise<{ key: ApiKeyRecord; merchant: Merchant } | undefined> {
  const keyRow = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    // A key works while now is before its end: at `expires_at` itself it no longer does (decision 0056).
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())]))
    .executeTakeFirst();
  if (!keyRow) return undefined;
  const merchant = await findMerchant(db, keyRow.merchant_id);
  return merchant && { key: toApiKey(keyRow), merchant };
}

async function listKeys(db: Db, merchantId: string): Promise<ApiKeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toApiKey);
}

/**
 * A key already expiring sooner than `oldKeysExpireAt` keeps its earlier end. Only keys of the new key's mode
 * are replaced: rotating the live key never stops the test key, nor the other way round.
 */
async function replaceKeys(db: Db, newKey: ApiKeyRecord, oldKeysExpireAt: Date): Promise<void> {
  const expiresAt = oldKeysExpireAt.toISOString();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('api_keys')
      .set({ expires_at: expiresAt })
      .where('merchant_id', '=', newKey.merchantId)
      .where('mode', '=', newKey.mode)
      .where('kind', '=', 'secret')
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', expiresAt)]))
      .execute();
    await trx.insertInto('api_keys').values(apiKeyRow(newKey)).execute();
  });
}

async function insertKey(db: Db, key: ApiKeyRecord): Promise<void> {
  await db.insertInto('api_keys').values(apiKeyRow(key)).execute();
}

async function revokeKey(
  db: Db,
  merchantId: string,
  mode: KeyMode,
  keyId: string,
  now: Date,
): Promise<ApiKeyRecord | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now.toISOString())) }))
    .where('id', '=', keyId)
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .returningAll()
    .executeTakeFirst();
  return row && toApiKey(row);
}

/** One conditional update: however many processes see the key used, it is written once per interval. */
async function touchKey(db: Db, keyId: string, now: Date, unlessSince: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now.toISOString() })
    .where('id', '=', keyId)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', unlessSince.toISOString())]),
    )
    .execute();
}
