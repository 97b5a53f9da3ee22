/** What became of the settlement in flight at the start of the pass. */
export type InFlightOutcome =
  | { readonly kind: 'confirmed'; readonly settlementId: string; readonly txHash: string }
  | { readonly kind: 'reverted'; readonly settlementId: string; readonly txHash: string }
  | { readonly kind: 'dropped'; readonly settlementId: string }
  | { readonly kind: 'awaiting-finality'; readonly settlementId: string; readonly txHash: string }
  | { readonly kind: 'awaiting-receipt'; readonly settlementId: string; readonly txHash: string }
  | { readonly kind: 'broadcast'; readonly settlementId: string; readonly txHash: string }
  | {
      readonly kind: 'replaced';
      readonly settlementId: string;
      readonly txHash: string;
      readonly replacedTxHash: string;
    };
