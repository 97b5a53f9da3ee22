import type { Selectable } from 'kysely';
import type { CatalogueStore } from '../../app/pos/ports.ts';
import { findCurrency } from '../../domain/currencies.ts';
import type { CatalogueItem } from '../../domain/posSale.ts';
import { isoTimestamp } from '../../domain/timestamp.ts';
import type { DatabaseHandle } from './database.ts';
import type { PosCatalogueItemsTable } from './posSchema.ts';

function toItem(row: Selectable<PosCatalogueItemsTable>): CatalogueItem {
  const currency = findCurrency(row.currency);
  if (!currency) throw new Error(`catalogue item ${row.id} has an unknown currency`);
  return {
    id: row.id,
    merchantId: row.merchant_id,
    name: row.name,
    unitPrice: { currency, minorUnits: BigInt(row.unit_price_minor_units) },
    createdAt: new Date(row.created_at),
  };
}

/** The point of sale's catalogue on either database (migration 0043). */
export function posCatalogueRepository({
  db,
  dialect,
}: Pick<DatabaseHandle, 'db' | 'dialect'>): CatalogueStore {
  return {
    async list(merchantId) {
      const rows = await db
        .selectFrom('pos_catalogue_items')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .orderBy('position')
        .execute();
      return rows.map(toItem);
    },
    async insertWithin(item, limit) {
      return db.transaction().execute(async (trx) => {
        // PostgreSQL: the merchant's row is the lock two forms of one merchant queue on. SQLite: one connection
        // of this process runs one transaction at a time.
        let lock = trx.selectFrom('merchants').select('id').where('id', '=', item.merchantId);
        if (dialect === 'postgres') lock = lock.forUpdate();
        await lock.execute();
        const { count, last } = await trx
          .selectFrom('pos_catalogue_items')
          .select((eb) => [eb.fn.countAll<string | number>().as('count'), eb.fn.max('position').as('last')])
          .where('merchant_id', '=', item.merchantId)
          .executeTakeFirstOrThrow();
        if (Number(count) >= limit) return false;
        await trx
          .insertInto('pos_catalogue_items')
          .values({
            id: item.id,
            merchant_id: item.merchantId,
            name: item.name,
            currency: item.unitPrice.currency.code,
            unit_price_minor_units: item.unitPrice.minorUnits.toString(),
            position: Number(last ?? 0) + 1,
            created_at: isoTimestamp(item.createdAt),
          })
          .execute();
        return true;
      });
    },
    async remove(merchantId, itemId) {
      const result = await db
        .deleteFrom('pos_catalogue_items')
        .where('id', '=', itemId)
        .where('merchant_id', '=', merchantId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
