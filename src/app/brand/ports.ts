import type { Brand, LogoExtension } from '../../domain/brand.ts';

/** Where merchants' branding is kept (adapters/db/brandRepository.ts). */
export interface BrandStore {
  /** The merchant's branding; undefined: never set. */
  find(merchantId: string): Promise<Brand | undefined>;
  /** The whole branding, replacing what was there: one write, so nothing is ever half-saved. */
  save(brand: Brand): Promise<void>;
  /** The logo of that hash, if it is still the merchant's: the bytes to serve and their kind. */
  findLogo(
    merchantId: string,
    hash: string,
  ): Promise<{ readonly bytes: Uint8Array; readonly extension: LogoExtension } | undefined>;
}
