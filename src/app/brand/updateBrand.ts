import { createHash } from 'node:crypto';
import {
  type Brand,
  brandColourOf,
  checkedLogo,
  type DetectedImage,
  displayNameOf,
  type LogoRules,
} from '../../domain/brand.ts';
import type { Clock } from '../shared/ports.ts';
import type { BrandStore } from './ports.ts';

export interface BrandDeps {
  readonly brands: BrandStore;
  readonly clock: Clock;
  readonly logoRules: LogoRules;
}

/** The dashboard's brand form, as typed: a new logo's bytes and what they were found to be, or none. */
export interface BrandChange {
  readonly displayName: string;
  readonly colour: string;
  readonly logo?: { readonly bytes: Uint8Array; readonly image: DetectedImage | undefined } | undefined;
  readonly removeLogo?: boolean | undefined;
}

/**
 * Every field is checked before anything is written, and the branding is saved whole: a refused logo leaves the
 * name and colour as they were too. Without a new logo the one there stays (a file input cannot be pre-filled).
 */
export async function updateBrand(deps: BrandDeps, merchantId: string, change: BrandChange): Promise<Brand> {
  const displayName = displayNameOf(change.displayName);
  const colour = brandColourOf(change.colour);
  const before = await deps.brands.find(merchantId);
  let logo = change.removeLogo ? null : (before?.logo ?? null);
  if (change.logo) {
    const checked = checkedLogo(change.logo.bytes, change.logo.image, deps.logoRules);
    logo = { ...checked, hash: createHash('sha256').update(checked.bytes).digest('hex') };
  }
  const brand: Brand = { merchantId, displayName, colour, logo, updatedAt: deps.clock.now() };
  await deps.brands.save(brand);
  return brand;
}

/** Only the logo removed: the name and colour stay. */
export async function removeLogo(deps: BrandDeps, merchantId: string): Promise<void> {
  const before = await deps.brands.find(merchantId);
  if (!before?.logo) return;
  await deps.brands.save({ ...before, logo: null, updatedAt: deps.clock.now() });
}
