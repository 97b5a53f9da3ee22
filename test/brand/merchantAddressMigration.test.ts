import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandRepository } from '../../src/adapters/db/brandRepository.ts';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, merchantRow } from '../helpers/migrationRows.ts';

/**
 * Migration 0045 on a branding row written before it (decision 0057): the row keeps its name, colour and logo,
 * and reads with no address and no tax id; one written after it keeps both; and the step goes down again.
 */
const NOW = '2026-12-05T06:00:00.000Z';
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

describe.each(dialects)('migration 0045 (merchant address) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let migrator: Awaited<ReturnType<typeof databaseMigratedTo>>['migrator'];

  beforeAll(async () => {
    ({ handle, drop, migrator } = await databaseMigratedTo(dialect, '0044_restricted_keys'));
    await handle.db.insertInto('merchants').values(merchantRow('mch_1', NOW)).execute();
    // The row as 0041 wrote it: no address, no tax id.
    await handle.db
      .insertInto('merchant_brands')
      .values({
        merchant_id: 'mch_1',
        display_name: 'Corner Shop',
        colour: '#0b5f3a',
        logo: Buffer.from(LOGO),
        logo_extension: 'png',
        logo_width: 1,
        logo_height: 1,
        logo_hash: 'a'.repeat(64),
        updated_at: NOW,
      } as never)
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  it('keeps an earlier row whole, without an address or tax id, and stores both after it', async () => {
    const brands = brandRepository(handle.db);
    const before = await brands.find('mch_1');
    expect(before).toMatchObject({
      displayName: 'Corner Shop',
      colour: '#0b5f3a',
      address: null,
      taxId: null,
    });
    expect(before?.logo?.bytes).toEqual(LOGO);
    await brands.save({ ...before!, address: 'Oranienstraße 12\n10999 Berlin', taxId: 'DE123456789' });
    expect(await brands.find('mch_1')).toMatchObject({
      address: 'Oranienstraße 12\n10999 Berlin',
      taxId: 'DE123456789',
    });
  });

  it('goes down to 0044 and keeps the rest of the row', async () => {
    expect((await migrator.migrateTo('0044_restricted_keys')).error).toBeUndefined();
    const row = await handle.db.selectFrom('merchant_brands').selectAll().executeTakeFirstOrThrow();
    expect(row).not.toHaveProperty('address');
    expect(row).not.toHaveProperty('tax_id');
    expect(row.display_name).toBe('Corner Shop');
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
});
