import type { Selectable } from 'kysely';
import type { BrandStore } from '../../app/brand/ports.ts';
import { type Brand, LOGO_TYPES, type LogoExtension } from '../../domain/brand.ts';
import type { Db } from './database.ts';
import type { MerchantBrandsTable } from './posSchema.ts';

function extensionOf(text: string | null): LogoExtension {
  if (text === null || !(text in LOGO_TYPES)) throw new Error(`a logo of unknown kind ${text}`);
  return text as LogoExtension;
}

function toBrand(row: Selectable<MerchantBrandsTable>): Brand {
  const logo =
    row.logo === null
      ? null
      : {
          // pg gives a Buffer, SQLite a Uint8Array (or a Buffer): one kind for the rest of the service.
          bytes: new Uint8Array(row.logo),
          extension: extensionOf(row.logo_extension),
          width: Number(row.logo_width),
          height: Number(row.logo_height),
          hash: String(row.logo_hash),
        };
  return {
    merchantId: row.merchant_id,
    displayName: row.display_name,
    colour: row.colour,
    logo,
    address: row.address,
    taxId: row.tax_id,
    updatedAt: new Date(row.updated_at),
  };
}

function brandRow(brand: Brand): Selectable<MerchantBrandsTable> {
  return {
    merchant_id: brand.merchantId,
    display_name: brand.displayName,
    colour: brand.colour,
    logo: brand.logo === null ? null : Buffer.from(brand.logo.bytes),
    logo_extension: brand.logo?.extension ?? null,
    logo_width: brand.logo?.width ?? null,
    logo_height: brand.logo?.height ?? null,
    logo_hash: brand.logo?.hash ?? null,
    address: brand.address,
    tax_id: brand.taxId,
    updated_at: brand.updatedAt.toISOString(),
  };
}

/** Merchants' branding on either database (migrations 0041 and 0045): one row per merchant, replaced whole. */
export function brandRepository(db: Db): BrandStore {
  return {
    async find(merchantId) {
      const row = await db
        .selectFrom('merchant_brands')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .executeTakeFirst();
      return row && toBrand(row);
    },
    async save(brand) {
      const { merchant_id: _id, ...changes } = brandRow(brand);
      await db
        .insertInto('merchant_brands')
        .values(brandRow(brand))
        .onConflict((oc) => oc.column('merchant_id').doUpdateSet(changes))
        .execute();
    },
    async findLogo(merchantId, hash) {
      const row = await db
        .selectFrom('merchant_brands')
        .select(['logo', 'logo_extension'])
        .where('merchant_id', '=', merchantId)
        .where('logo_hash', '=', hash)
        .executeTakeFirst();
      if (!row || row.logo === null) return undefined;
      return { bytes: new Uint8Array(row.logo), extension: extensionOf(row.logo_extension) };
    },
  };
}
