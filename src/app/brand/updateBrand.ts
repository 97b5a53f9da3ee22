import { createHash } from 'node:crypto';
import {
  type Brand,
  brandColourOf,
  businessAddressOf,
  checkedLogo,
  type DetectedImage,
  displayNameOf,
  type LogoRules,
  taxIdOf,
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
  /** The address printed on receipts, one line per line (decision 0057); absent: kept as it is. */
  readonly address?: string | undefined;
  readonly taxId?: string | undefined;
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
  const address = change.address === undefined ? undefined : businessAddressOf(change.address);
  const taxId = change.taxId === undefined ? undefined : taxIdOf(change.taxId);
  const before = await deps.brands.find(merchantId);
  let logo = change.removeLogo ? null : (before?.logo ?? null);
  if (change.logo) {
    const checked = checkedLogo(change.logo.bytes, change.logo.image, deps.logoRules);
    logo = { ...checked, hash: createHash('sha256').update(checked.bytes).digest('hex') };
  }
  const brand: Brand = {
    merchantId,
    displayName,
    colour,
    logo,
    address: address === undefined ? (before?.address ?? null) : address,
    taxId: taxId === undefined ? (before?.taxId ?? null) : taxId,
    updatedAt: deps.clock.now(),
  };
  await deps.brands.save(brand);
  return brand;
}

/** Only the logo removed: the name and colour stay. */
export async function removeLogo(deps: BrandDeps, merchantId: string): Promise<void> {
  const before = await deps.brands.find(merchantId);
  if (!before?.logo) return;
  await deps.brands.save({ ...before, logo: null, updatedAt: deps.clock.now() });
}

/** What an operator sets of a merchant's receipt details: absent keeps, empty or null clears (decision 0057). */
export interface ReceiptDetailsChange {
  readonly address?: string | null | undefined;
  readonly taxId?: string | null | undefined;
}

/**
 * The address and tax id printed on a merchant's receipts, as the operator sets them (admin API, CLI): both
 * checked before anything is written, the rest of the branding left as the merchant set it.
 */
export async function updateReceiptDetails(
  deps: Pick<BrandDeps, 'brands' | 'clock'>,
  merchantId: string,
  change: ReceiptDetailsChange,
): Promise<Brand> {
  const address = change.address === undefined ? undefined : businessAddressOf(change.address ?? '');
  const taxId = change.taxId === undefined ? undefined : taxIdOf(change.taxId ?? '');
  const before = await deps.brands.find(merchantId);
  const brand: Brand = {
    merchantId,
    displayName: before?.displayName ?? null,
    colour: before?.colour ?? null,
    logo: before?.logo ?? null,
    address: address === undefined ? (before?.address ?? null) : address,
    taxId: taxId === undefined ? (before?.taxId ?? null) : taxId,
    updatedAt: deps.clock.now(),
  };
  await deps.brands.save(brand);
  return brand;
}
