import type { CatalogueItem } from '../../domain/posSale.ts';

/** A merchant's point-of-sale catalogue (adapters/db/posCatalogueRepository.ts). */
export interface CatalogueStore {
  /** The merchant's items, in the order they were added (the counter's buttons keep their places). */
  list(merchantId: string): Promise<CatalogueItem[]>;
  /**
   * Adds the item unless the merchant has `limit` items already (counted and inserted in one transaction, so two
   * forms posted at once cannot both take the last place): false when full.
   */
  insertWithin(item: CatalogueItem, limit: number): Promise<boolean>;
  /** Removes the merchant's item; another merchant's is left alone. Answers whether one was removed. */
  remove(merchantId: string, itemId: string): Promise<boolean>;
}

/** The receipt page's token of a paid payment (`payments.receipt_token`, adapters/db/receiptTokens.ts). */
export interface ReceiptTokenStore {
  /** The payment's token, if it has one (a receipt e-mailed, or one shown before). */
  tokenOf(paymentId: string): Promise<string | null>;
  /** Stores `token` unless the payment has one already; answers the one it has after. */
  issue(paymentId: string, token: string): Promise<string>;
}
