import type { Insertable, Selectable } from 'kysely';
import type { ApiKeyRecord, MerchantStore } from '../../app/merchants/ports.ts';
import type { Merchant } from '../../domain/merchant.ts';
import type { Db } from './database.ts';
import type { ApiKeysTable, MerchantsTable } from './schema.ts';

function toMerchant(row: Selectable<MerchantsTable>): Merchant {
  return {
    id: row.id,
    name: row.name,
    walletAddress: row.wallet_address,
    webhookUrl: row.webhook_url,
    webhookSecret: row.webhook_secret,
    commissionBps: Number(row.commission_bps),
    underpaymentToleranceBps: Number(row.underpayment_tolerance_bps),
    sendReceipts: Number(row.send_receipts) === 1,
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
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
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
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', expiresAt)]))
      .execute();
    await trx.insertInto('api_keys').values(apiKeyRow(newKey)).execute();
  });
}
