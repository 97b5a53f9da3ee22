import { getAddress, type Hex, isAddress, isHex } from 'viem';
import { z } from 'zod';
import { parseDuration } from '../domain/duration.ts';
import { parseUsdc } from '../domain/money.ts';

/** The kinds of value several areas' variables share, each with the message that names its variable. */

/**
 * A number without a unit is refused rather than read as milliseconds: PAYLINK_PAYMENT_TTL=60 meant a link
 * that expired in 60 ms, when whoever wrote it surely meant seconds or minutes.
 */
export const DURATION_UNITS = 'ms, s, m, h or d (90s, 60m, 24h)';
export const withoutUnit = (text: string) => /^\s*\d+\s*$/.test(text);

export const duration = (name: string) =>
  z.string().transform((text, ctx) => {
    if (withoutUnit(text)) {
      ctx.addIssue({ code: 'custom', message: `${name} needs a unit: ${DURATION_UNITS}` });
      return z.NEVER;
    }
    const ms = parseDuration(text);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a duration in ${DURATION_UNITS}` });
      return z.NEVER;
    }
    return ms;
  });

export const port = z.coerce.number().int().min(1).max(65_535);
export const address = (name: string) =>
  z.string().transform((text, ctx) => {
    if (!isAddress(text.trim(), { strict: false }) || /^0x0{40}$/i.test(text.trim())) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a non-zero 0x address` });
      return z.NEVER;
    }
    return getAddress(text.trim());
  });
export const usdcAmount = (name: string) =>
  z.string().transform((text, ctx) => {
    const units = parseUsdc(text);
    if (units === undefined) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a USDC amount` });
      return z.NEVER;
    }
    return units;
  });
/** A positive USDC amount, `fallback` when unset. */
export const positiveUsdcAmount = (name: string, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const units = parseUsdc(text);
      if (units === undefined || units <= 0n) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a positive USDC amount` });
        return z.NEVER;
      }
      return units;
    });
export const rpcUrlList = (name: string) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      const urls = (text ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      for (const u of urls) {
        if (!/^(https?|wss?):\/\/.+/.test(u)) {
          ctx.addIssue({ code: 'custom', message: `${name} must be comma-separated http(s) or ws(s) URLs` });
          return z.NEVER;
        }
      }
      return urls;
    });
export const privateKey = (name: string) =>
  z
    .string()
    .optional()
    .refine((v) => v === undefined || (isHex(v) && v.length === 66), {
      // Never echo the value: it is a private key.
      message: `${name} must be a 0x-prefixed 32-byte hex private key`,
    })
    .transform((v) => v as Hex | undefined);
export const blockNumber = (name: string) =>
  z
    .string()
    .regex(/^\d{1,12}$/, `${name} must be a block number`)
    .transform((v) => BigInt(v))
    .optional();
/** When a transfer counts as final (chains.ts's Finality): `finalized`, or `confirmations:N`. */
export const finality = (name: string) =>
  z
    .string()
    .default('finalized')
    .transform(
      (
        text,
        ctx,
      ):
        | { readonly kind: 'finalized' }
        | { readonly kind: 'confirmations'; readonly confirmations: number } => {
        if (text === 'finalized') return { kind: 'finalized' };
        const match = /^confirmations:(\d{1,4})$/.exec(text);
        if (!match) {
          ctx.addIssue({ code: 'custom', message: `${name} must be finalized or confirmations:N` });
          return z.NEVER;
        }
        return { kind: 'confirmations', confirmations: Number(match[1]) };
      },
    );
/** An amount of a chain's native token (POL, ETH, AVAX), up to 18 decimals. */
export const nativeAmount = (name: string, fallback: string) =>
  z
    .string()
    .regex(/^\d+(\.\d{1,18})?$/, `${name} must be an amount of the chain's native token`)
    .default(fallback)
    .transform(nativeToWei);
/** `1.5` of an 18-decimal native token in wei, exactly. */
export function nativeToWei(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'));
}
export const boolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
export const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));
