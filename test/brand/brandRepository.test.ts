import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brand } from '../../src/domain/brand.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { solidPng } from '../helpers/images.ts';

describe.each(dialects)('merchant branding on %s', (dialect) => {
  let h: ApiHarness;
  let merchantId: string;
  beforeAll(async () => {
    h = await startApiHarness(dialect);
    merchantId = (await h.merchant({ name: 'Corner Roastery' })).id;
  });
  afterAll(async () => h?.close());

  it('keeps the logo byte for byte, finds it by hash, and replaces the whole row', async () => {
    const bytes = new Uint8Array(solidPng(3, 2, [0x1d, 0x4e, 0xd8]));
    const brand: Brand = {
      merchantId,
      displayName: 'Corner Roastery — Kreuzberg',
      colour: '#1d4ed8',
      logo: { bytes, extension: 'png', width: 3, height: 2, hash: 'a'.repeat(64) },
      address: 'Oranienstraße 12\n10999 Berlin\nGermany',
      taxId: 'DE123456789',
      updatedAt: new Date('2026-12-05T04:00:00.000Z'),
    };
    expect(await h.stores.brands.find(merchantId)).toBeUndefined();
    await h.stores.brands.save(brand);
    expect(await h.stores.brands.find(merchantId)).toEqual(brand);
    expect(await h.stores.brands.findLogo(merchantId, 'a'.repeat(64))).toEqual({ bytes, extension: 'png' });
    expect(await h.stores.brands.findLogo(merchantId, 'b'.repeat(64))).toBeUndefined();

    const plain: Brand = {
      ...brand,
      displayName: null,
      colour: null,
      logo: null,
      address: null,
      taxId: null,
    };
    await h.stores.brands.save(plain);
    expect(await h.stores.brands.find(merchantId)).toEqual(plain);
    expect(await h.stores.brands.findLogo(merchantId, 'a'.repeat(64))).toBeUndefined();
  });
});
