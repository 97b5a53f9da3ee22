import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { PaymentLink } from '../../domain/paymentLink.ts';
import { decodeCursor, encodeCursor } from '../payments/listPayments.ts';
import type { PageRequest } from '../shared/keysetPage.ts';
import type { Clock } from '../shared/ports.ts';
import type { LinkStore } from './ports.ts';

export const MAX_LINK_LIST_LIMIT = 100;

/** A merchant's links of one mode, newest first, a page at a time (keyset cursor, as the payments list's). */
export async function listLinks(
  deps: { readonly links: LinkStore },
  merchantId: string,
  mode: KeyMode,
  input: PageRequest,
): Promise<{ links: PaymentLink[]; nextCursor: string | null }> {
  if (!Number.isSafeInteger(input.limit) || input.limit < 1 || input.limit > MAX_LINK_LIST_LIMIT) {
    throw new ValidationError('limit', `must be an integer from 1 to ${MAX_LINK_LIST_LIMIT}`);
  }
  // The cursor is bound to the merchant and the mode, and to links (never a payments list's cursor).
  const fingerprint = JSON.stringify(['links', merchantId, mode]);
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor, fingerprint);
  const rows = await deps.links.listForMerchant({ merchantId, mode, after, limit: input.limit + 1 });
  const links = rows.slice(0, input.limit);
  const last = links.at(-1);
  return {
    links,
    nextCursor: rows.length > input.limit && last ? encodeCursor(last, fingerprint) : null,
  };
}

/** One of the merchant's links with how many of its payments are paid and the USDC they brought. */
export async function showLink(
  deps: { readonly links: LinkStore },
  merchantId: string,
  mode: KeyMode,
  linkId: string,
): Promise<{ link: PaymentLink; paidCount: number; paidBaseUnits: bigint }> {
  const link = await deps.links.findForMerchant(merchantId, linkId.toLowerCase(), mode);
  if (!link) throw new PaylinkError('NOT_FOUND', 'Payment link not found');
  const totals = await deps.links.paidTotals(link.id);
  return { link, paidCount: totals.count, paidBaseUnits: totals.receivedBaseUnits };
}

/**
 * Deactivates a link for good: no payment is created from it any more. Payments already created keep going (a
 * payer who has sent money is paid for). Deactivating twice answers the link as it is.
 */
export async function deactivateLink(
  deps: { readonly links: LinkStore; readonly clock: Clock },
  merchantId: string,
  mode: KeyMode,
  linkId: string,
): Promise<PaymentLink> {
  const link = await deps.links.deactivate(merchantId, linkId.toLowerCase(), mode, deps.clock.now());
  if (!link) throw new PaylinkError('NOT_FOUND', 'Payment link not found');
  return link;
}
