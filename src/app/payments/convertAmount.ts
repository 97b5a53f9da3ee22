import { type Money, parsePrice } from '../../domain/money.ts';
import type { AgreedRate } from '../../domain/rates.ts';
import { mapValueOrPromise, type ValueOrPromise } from '../shared/valueOrPromise.ts';
import { type LockedQuote, priceAt, type QuoteAmountDeps, rateFor } from './quoteAmount.ts';

export type ConvertAmountDeps = QuoteAmountDeps;

export interface ConvertAmountInput {
  readonly amount: string;
  readonly currency: string;
}

/** Answers kept per agreed rate (and amounts parsed); past this many, they are forgotten and made again. */
const MAX_ANSWERS_PER_RATE = 1_000;

/**
 * What `amount` of `currency` costs in USDC right now (nothing is stored), with what is made of each answer
 * (`render`: the response body) remembered: a conversion is a pure function of the amount's text, the currency
 * and the agreed rate, so while the rate provider hands out the same rate object the same input gets the same
 * answer, made once. A new rate (refreshed, or too old) is a new object,
 * and the answers made at the old one are never seen again. Invalid input is refused every time, never kept.
 */
export function rememberingConversions<T>(
  deps: ConvertAmountDeps,
  render: (locked: LockedQuote) => T,
): (input: ConvertAmountInput) => ValueOrPromise<T> {
  const answers = new WeakMap<AgreedRate, Map<string, T>>();
  // Parsing is a pure function of the two texts, and the same few amounts are asked for again and again.
  const parsed = new Map<string, Money>();
  const answerAt = (amount: Money, rate: AgreedRate): T => {
    let atRate = answers.get(rate);
    if (atRate === undefined) {
      atRate = new Map();
      answers.set(rate, atRate);
    }
    const key = `${amount.currency.code} ${amount.minorUnits}`;
    let answer = atRate.get(key);
    if (answer === undefined) {
      answer = render(priceAt(deps, amount, rate, 0));
      if (atRate.size >= MAX_ANSWERS_PER_RATE) atRate.clear();
      atRate.set(key, answer);
    }
    return answer;
  };
  const parsedAmount = (input: ConvertAmountInput): Money => {
    const text = `${input.currency}\u0000${input.amount}`;
    let amount = parsed.get(text);
    if (amount === undefined) {
      amount = parsePrice(input.amount, input.currency);
      if (parsed.size >= MAX_ANSWERS_PER_RATE) parsed.clear();
      parsed.set(text, amount);
    }
    return amount;
  };
  // At once while the rate is at hand, as it almost always is; invalid input is a rejection, as every failure.
  return (input) => {
    let amount: Money;
    try {
      amount = parsedAmount(input);
    } catch (error) {
      return Promise.reject(error);
    }
    return mapValueOrPromise(rateFor(deps, amount.currency), (rate) => answerAt(amount, rate));
  };
}
