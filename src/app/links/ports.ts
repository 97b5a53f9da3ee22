import type { KeyMode } from '../../domain/credentials.ts';
import type { Payment } from '../../domain/payment.ts';
import type { LinkUsage, PaymentLink } from '../../domain/paymentLink.ts';
import type { MerchantKeysetPage } from '../shared/keysetPage.ts';

/** Reusable links (adapters/db/linkRepository.ts). */
export interface LinkStore {
  insert(link: PaymentLink): Promise<void>;
  /** A link by its id alone, whoever owns it: its public page on the checkout (`/l/<id>`). */
  find(linkId: string): Promise<PaymentLink | undefined>;
  /** A link as its merchant may see it with a key of `mode`: another merchant's, or the other mode's, is not found. */
  findForMerchant(merchantId: string, linkId: string, mode: KeyMode): Promise<PaymentLink | undefined>;
  /** A merchant's links of one mode, newest first (created_at, then id, descending), after a keyset position. */
  listForMerchant(query: MerchantKeysetPage): Promise<PaymentLink[]>;
  /** Sets `deactivated_at` unless already set; answers the link as it is after. */
  deactivate(merchantId: string, linkId: string, mode: KeyMode, at: Date): Promise<PaymentLink | undefined>;
  /** Clears `deactivated_at` if set; answers the link as it is after. */
  reactivate(merchantId: string, linkId: string, mode: KeyMode, at: Date): Promise<PaymentLink | undefined>;
  /** Sets what a merchant may change of a link (editLink); answers the link as it is after. */
  update(
    merchantId: string,
    linkId: string,
    mode: KeyMode,
    changes: LinkChanges,
    at: Date,
  ): Promise<PaymentLink | undefined>;
  /** The link's payments that count against its uses at `now` (paid, and open ones not expired). */
  usage(linkId: string, now: Date): Promise<LinkUsage>;
  /**
   * Inserts a payment of a link limited to `maxUses`, unless its uses (`usage`) already reach the limit: the count
   * and the insert in one transaction, the link's row locked, so payers committing at the same moment are counted
   * one after another and the last place goes to one of them only. False when no place was left.
   */
  insertPaymentWithinUses(payment: Payment, maxUses: number, now: Date): Promise<boolean>;
  /** How many of the link's payments are paid, and the USDC they received (base units). */
  paidTotals(linkId: string): Promise<{ readonly count: number; readonly receivedBaseUnits: bigint }>;
}

/** What may change of a link once made: never its price, which its payers paid (decision 0053). */
export type LinkChanges = Pick<PaymentLink, 'title' | 'description' | 'maxUses' | 'endsAt'>;
