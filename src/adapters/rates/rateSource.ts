import { parse } from 'lossless-json';
import type { Decimal } from '../../domain/decimal.ts';

/** One market source's answer: USDC per one unit of each currency it prices, and when it was observed. */
export interface RateTable {
  readonly usdcPerUnit: ReadonlyMap<string, Decimal>;
  readonly observedAt: Date;
}

export interface RateSource {
  readonly name: string;
  fetchTable(signal: AbortSignal): Promise<RateTable>;
}

export class RateSourceError extends Error {
  override readonly name = 'RateSourceError';
}

/** GETs a JSON document, keeping every number's exact text (prices are money-adjacent: no float). */
export async function fetchLosslessJson(url: string, signal: AbortSignal): Promise<unknown> {
  const response = await fetch(url, { signal, headers: { accept: 'application/json' }, redirect: 'error' });
  if (!response.ok) throw new RateSourceError(`${new URL(url).host} answered HTTP ${response.status}`);
  const text = await response.text();
  try {
    return parse(text, null, (numberText: string) => numberText);
  } catch (cause) {
    throw new RateSourceError(`${new URL(url).host} answered with invalid JSON`, { cause });
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
