import {
  type Address,
  getAddress,
  type Hex,
  hashTypedData,
  isAddress,
  keccak256,
  parseAbiParameters,
  toBytes,
} from 'viem';
import { EIP712_DOMAIN_TYPE } from './eip712Domain.ts';
import type { Subscription } from './subscription.ts';
import type { Interval } from './subscriptionPeriods.ts';
import type { SubscriptionPlan } from './subscriptionPlan.ts';

/**
 * Pull renewal's mandate (decision 0061): the terms a customer signs once (EIP-712, type `Terms` of the
 * SubscriptionCharger contract) and the charger may charge, at most once per period and never above the cap, to
 * the merchant and the treasury alone. The contract counts periods from 0; a subscription from 1 (period n of
 * the subscription is the contract's n − 1).
 */
export interface MandateTerms {
  readonly customer: Address;
  readonly merchant: Address;
  readonly treasury: Address;
  readonly feeBps: number;
  readonly token: Address;
  /** The most one period may be charged, in the token's base units. */
  readonly cap: bigint;
  readonly periodSeconds: number;
  readonly periodMonths: number;
  /** Unix seconds: the first period's start (the subscription's anchor, rounded up to a second). */
  readonly start: bigint;
  /** 0: until canceled. */
  readonly periods: number;
  /** Unix seconds, 0: no end other than `periods`. */
  readonly end: bigint;
  readonly salt: Hex;
}

/**
 * The EIP-712 types a wallet is given (`eth_signTypedData_v4`). `Terms` is written as the contract's
 * `TERMS_TYPEHASH` spells it, in its order, so the two read against each other at a glance; a mandate's id
 * computed here is checked against the deployed contract's (test/contracts/subscriptionCharger).
 */
export const MANDATE_TYPES = {
  EIP712Domain: EIP712_DOMAIN_TYPE,
  Terms: parseAbiParameters([
    'address customer, address merchant, address treasury, uint16 feeBps, address token, uint256 cap',
    'uint32 periodSeconds, uint16 periodMonths, uint64 start, uint32 periods, uint64 end, bytes32 salt',
  ]),
} as const;

export interface MandateDomain {
  readonly name: 'Paylink SubscriptionCharger';
  readonly version: '1';
  readonly chainId: number;
  readonly verifyingContract: Address;
}

export function mandateDomain(chainId: number, charger: string): MandateDomain {
  return {
    name: 'Paylink SubscriptionCharger',
    version: '1',
    chainId,
    verifyingContract: getAddress(charger),
  };
}

/** What a wallet signs: `eth_signTypedData_v4`'s argument (bigints as they are; JSON callers stringify them). */
export function mandateTypedData(domain: MandateDomain, terms: MandateTerms) {
  return { domain, types: { Terms: MANDATE_TYPES.Terms }, primaryType: 'Terms' as const, message: terms };
}

/** The mandate's id on chain (`mandateId`): the digest the customer signed. */
export function mandateId(domain: MandateDomain, terms: MandateTerms): Hex {
  return hashTypedData(mandateTypedData(domain, terms));
}

const FIXED_SECONDS: Partial<Record<Interval['unit'], number>> = { day: 86_400, week: 604_800 };
const MONTHS: Partial<Record<Interval['unit'], number>> = { month: 1, year: 12 };

/** A plan's interval as the contract counts it: seconds for days and weeks, calendar months for months and years. */
export function periodUnits(interval: Interval): { periodSeconds: number; periodMonths: number } {
  const seconds = FIXED_SECONDS[interval.unit];
  if (seconds !== undefined) return { periodSeconds: seconds * interval.count, periodMonths: 0 };
  return { periodSeconds: 0, periodMonths: (MONTHS[interval.unit] ?? 1) * interval.count };
}

/** The salt of a subscription's terms: its id, so that two subscriptions never share a mandate. */
export function mandateSalt(subscriptionId: string): Hex {
  return keccak256(toBytes(`paylink:subscription:${subscriptionId}`));
}

/** Who is paid and how, as the merchant's forwarders are paid today. */
export interface MandatePayees {
  readonly merchant: string;
  readonly treasury: string;
  readonly feeBps: number;
  readonly token: string;
}

/**
 * The terms a subscription's mandate must carry, but for the customer and the cap: a USDC plan's cap is its price
 * (`cap` given), a fiat plan's is the customer's own ceiling (undefined: any).
 */
export function expectedTerms(
  subscription: Pick<Subscription, 'id' | 'anchor'>,
  plan: Pick<SubscriptionPlan, 'interval' | 'periods'>,
  payees: MandatePayees,
): Omit<MandateTerms, 'customer' | 'cap'> {
  return {
    merchant: getAddress(payees.merchant),
    treasury: getAddress(payees.treasury),
    feeBps: payees.feeBps,
    token: getAddress(payees.token),
    ...periodUnits(plan.interval),
    start: BigInt(Math.ceil(subscription.anchor.getTime() / 1000)),
    periods: plan.periods ?? 0,
    end: 0n,
    salt: mandateSalt(subscription.id),
  };
}

/** The fields of `signed` that differ from `expected` (addresses compared case-insensitively). */
export function termsMismatch(
  signed: MandateTerms,
  expected: Omit<MandateTerms, 'customer' | 'cap'>,
): string[] {
  const differs: string[] = [];
  for (const [field, value] of Object.entries(expected) as [keyof typeof expected, unknown][]) {
    const given = signed[field];
    const same =
      typeof value === 'string' && typeof given === 'string'
        ? value.toLowerCase() === given.toLowerCase()
        : value === given;
    if (!same) differs.push(field);
  }
  return differs;
}

/** Terms as JSON carries them (numbers as decimal strings), parsed; undefined when malformed. */
export function parseTerms(json: Record<string, unknown>): MandateTerms | undefined {
  const address = (v: unknown) => (typeof v === 'string' && isAddress(v) ? getAddress(v) : undefined);
  const uint = (v: unknown, bits: number) => {
    if (typeof v !== 'string' && typeof v !== 'number') return undefined;
    if (!/^\d{1,78}$/.test(String(v))) return undefined;
    const n = BigInt(v);
    return n < 1n << BigInt(bits) ? n : undefined;
  };
  const salt = typeof json.salt === 'string' && /^0x[0-9a-fA-F]{64}$/.test(json.salt) ? json.salt : undefined;
  const fields = {
    customer: address(json.customer),
    merchant: address(json.merchant),
    treasury: address(json.treasury),
    feeBps: uint(json.feeBps, 16),
    token: address(json.token),
    cap: uint(json.cap, 256),
    periodSeconds: uint(json.periodSeconds, 32),
    periodMonths: uint(json.periodMonths, 16),
    start: uint(json.start, 64),
    periods: uint(json.periods, 32),
    end: uint(json.end, 64),
  };
  if (salt === undefined || Object.values(fields).some((v) => v === undefined)) return undefined;
  const f = fields as { [K in keyof typeof fields]: NonNullable<(typeof fields)[K]> };
  return {
    ...f,
    feeBps: Number(f.feeBps),
    periodSeconds: Number(f.periodSeconds),
    periodMonths: Number(f.periodMonths),
    periods: Number(f.periods),
    salt: salt.toLowerCase() as Hex,
  };
}

/** The terms as JSON carries them: numbers of 64 bits and more as decimal strings. */
export function termsJson(terms: MandateTerms): Record<string, string | number> {
  return { ...terms, cap: terms.cap.toString(), start: terms.start.toString(), end: terms.end.toString() };
}
