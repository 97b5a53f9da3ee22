import type { KeyMode } from '../../domain/credentials.ts';
import { checkEvery, PaylinkError, ValidationError } from '../../domain/errors.ts';
import { parseFutureMoment } from '../../domain/futureMoment.ts';
import { MAX_LINK_USES, type PaymentLink } from '../../domain/paymentLink.ts';
import { decodeCursor, encodeCursor } from '../payments/listPayments.ts';
import type { PageRequest } from '../shared/keysetPage.ts';
import type { Clock } from '../shared/ports.ts';
import { parseCount, parseDescription, parseTitle } from './createLink.ts';
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
 * Deactivates a link: no payment is created from it until it is re-activated. Payments already created keep
 * going (a payer who has sent money is paid for). Deactivating twice answers the link as it is.
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

/**
 * Re-activates a deactivated link (decision 0053): payments can be created from it again, within its uses and
 * its end as they are. Re-activating an active link answers it as it is.
 */
export async function reactivateLink(
  deps: { readonly links: LinkStore; readonly clock: Clock },
  merchantId: string,
  mode: KeyMode,
  linkId: string,
): Promise<PaymentLink> {
  const link = await deps.links.reactivate(merchantId, linkId.toLowerCase(), mode, deps.clock.now());
  if (!link) throw new PaylinkError('NOT_FOUND', 'Payment link not found');
  return link;
}

/** A link's changes as a client writes them: text, counts as integer text, the end as ISO 8601; blank: none. */
export interface EditLinkInput {
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly maxUses?: string | undefined;
  readonly endsAt?: string | undefined;
}

/**
 * Changes a link's title, description, number of payments and end (decision 0053). Its price never changes:
 * what its payers paid stays what the link asked them, and a new price is a new link. The number of payments may
 * not fall below those already paid through it (the link would say it took more than it may); below those still
 * open it may, and the open ones go on.
 */
export async function editLink(
  deps: { readonly links: LinkStore; readonly clock: Clock },
  merchantId: string,
  mode: KeyMode,
  linkId: string,
  input: EditLinkInput,
): Promise<PaymentLink> {
  const now = deps.clock.now();
  const found = await deps.links.findForMerchant(merchantId, linkId.toLowerCase(), mode);
  if (!found) throw new PaylinkError('NOT_FOUND', 'Payment link not found');
  const [title, description, maxUses, endsAt] = checkEvery<
    [string, string | null, number | null, Date | null]
  >([
    () => parseTitle(input.title),
    () => parseDescription(input.description),
    () => parseCount('max_uses', input.maxUses, MAX_LINK_USES),
    () => parseFutureMoment('ends_at', input.endsAt, now),
  ]);
  if (maxUses !== null) {
    const { paid } = await deps.links.usage(found.id, now);
    if (maxUses < paid)
      throw new ValidationError(
        'max_uses',
        `must be at least ${paid}: payments already paid through this link`,
      );
  }
  const link = await deps.links.update(
    merchantId,
    found.id,
    mode,
    { title, description, maxUses, endsAt },
    now,
  );
  if (!link) throw new PaylinkError('NOT_FOUND', 'Payment link not found');
  return link;
}
