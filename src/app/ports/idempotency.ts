import type { KeyMode } from '../../domain/credentials.ts';

/** What became of an idempotency key before this request. */
export type IdempotencyClaim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'replay'; readonly paymentId: string }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'mismatch' };

export interface IdempotencyStore {
  /**
   * Claims the key for this request, or says what happened to it: created a payment (replay), still in flight,
   * or used with another body. An expired key, or a claim left by a request that died before it committed
   * (claimed before `staleClaimBefore`), is taken over.
   */
  claim(params: {
    readonly merchantId: string;
    /** Keys are scoped per (merchant, mode): the same key in test and live mode are independent. */
    readonly mode: KeyMode;
    readonly key: string;
    readonly requestHash: string;
    readonly now: Date;
    readonly expiresAt: Date;
    readonly staleClaimBefore: Date;
  }): Promise<IdempotencyClaim>;
  /** Forgets the claim of a request that failed, so the client may retry with the same key. */
  release(merchantId: string, mode: KeyMode, key: string): Promise<void>;
}
