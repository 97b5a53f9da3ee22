import { getAddress, isAddress } from 'viem';
import { ValidationError } from './errors.ts';
import { plainText } from './text.ts';

export type MerchantStatus = 'active' | 'disabled';

export interface Merchant {
  /** The public merchant identifier (`public_id` in the spec), `mch_…`. */
  readonly id: string;
  readonly name: string;
  /** Checksummed Polygon address that receives payouts. */
  readonly walletAddress: string | null;
  readonly webhookUrl: string | null;
  readonly webhookSecret: string;
  readonly commissionBps: number;
  /** How much short of the amount still counts as paid, in basis points: at most MAX_UNDERPAYMENT_TOLERANCE_BPS. */
  readonly underpaymentToleranceBps: number;
  /** Whether a paid payment with a customer e-mail gets a receipt (on by default). */
  readonly sendReceipts: boolean;
  readonly status: MerchantStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** What a merchant still lacks before it can create payments, in words for the error message. */
export function missingPaymentConfiguration(merchant: Merchant): string[] {
  const missing: string[] = [];
  if (!merchant.walletAddress) missing.push('wallet address');
  if (!merchant.webhookUrl) missing.push('webhook URL');
  return missing;
}

/** An EVM address, returned checksummed (EIP-55). Mixed case must already be a valid checksum. */
export function parseWalletAddress(field: string, input: string): string {
  const text = input.trim();
  if (!isAddress(text, { strict: true }))
    throw new ValidationError(field, 'must be a 0x-prefixed EVM address');
  if (/^0x0{40}$/i.test(text)) throw new ValidationError(field, 'must not be the zero address');
  return getAddress(text);
}

export function parseMerchantName(field: string, input: string): string {
  const name = plainText(field, input).trim();
  if (name.length === 0 || name.length > 200) throw new ValidationError(field, 'must be 1 to 200 characters');
  return name;
}

/**
 * 10 %: the most an administrator may let a payment fall short and still count as paid. Without a bound, 100 %
 * made a payment of 0.000001 USDC count as paid for a price of any size.
 */
export const MAX_UNDERPAYMENT_TOLERANCE_BPS = 1_000;
