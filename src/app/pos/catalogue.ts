import { randomUUID } from 'node:crypto';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import { CATALOGUE_LIMITS, type CatalogueItem, parseCatalogueItem } from '../../domain/posSale.ts';
import type { Clock } from '../shared/ports.ts';
import type { CatalogueStore } from './ports.ts';

export interface CatalogueDeps {
  readonly catalogue: CatalogueStore;
  readonly clock: Clock;
}

/** A merchant adds an item to its counter's catalogue: checked (domain/posSale.ts), and refused once it is full. */
export async function addCatalogueItem(
  deps: CatalogueDeps,
  merchantId: string,
  input: { readonly name: string; readonly unitPrice: string; readonly currency: string },
): Promise<CatalogueItem> {
  const { name, unitPrice } = parseCatalogueItem(input);
  const item: CatalogueItem = {
    id: `itm_${randomUUID()}`,
    merchantId,
    name,
    unitPrice,
    createdAt: deps.clock.now(),
  };
  if (!(await deps.catalogue.insertWithin(item, CATALOGUE_LIMITS.items)))
    throw new ValidationError('name', `the catalogue holds at most ${CATALOGUE_LIMITS.items} items`);
  return item;
}

/** Removes an item; a sale already made keeps what it said (its payment's description is its own). */
export async function removeCatalogueItem(
  deps: CatalogueDeps,
  merchantId: string,
  itemId: string,
): Promise<void> {
  if (!(await deps.catalogue.remove(merchantId, itemId.trim())))
    throw new PaylinkError('NOT_FOUND', 'Item not found');
}
