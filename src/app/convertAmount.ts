import { type LockedQuote, type QuoteAmountDeps, quoteAmount } from './quoteAmount.ts';

export type ConvertAmountDeps = QuoteAmountDeps;

export interface ConvertAmountInput {
  readonly amount: string;
  readonly currency: string;
}

/** What `amount` of `currency` costs in USDC right now; nothing is stored. */
export function convertAmount(deps: ConvertAmountDeps, input: ConvertAmountInput): Promise<LockedQuote> {
  return quoteAmount(deps, { ...input, commissionBps: 0 });
}
