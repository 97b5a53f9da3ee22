/**
 * What a CCTP v2 burn must offer as `maxFee`: Iris's `GET /v2/burn/USDC/fees/{source}/{destination}` answers the
 * route's minimum fee per finality threshold, in basis points (a JSON number that may be fractional, read here
 * from its exact text), and a fast burn must offer at least amount × minimumFee / 10 000. Standard transfers
 * are free today (minimum 0).
 */
import { parse } from 'lossless-json';
import { z } from 'zod';
import { type Decimal, divide, parseDecimal } from '../../domain/decimal.ts';
import { AttestationApiError } from './attestationClient.ts';

export type BurnFee = {
  finalityThreshold: number;
  /** Basis points of the amount, exact. */
  minimumFeeBps: Decimal;
};

const numberText = z.string().regex(/^\d+(\.\d+)?([eE][+-]?\d+)?$/, 'a non-negative JSON number');
const feesSchema = z.array(
  z.object({ finalityThreshold: numberText.transform(Number), minimumFee: numberText }).loose(),
);

/** The route's minimum fees, one per finality threshold. */
export async function fetchBurnFees(options: {
  baseUrl: string;
  timeoutMs: number;
  sourceDomain: number;
  destinationDomain: number;
}): Promise<BurnFee[]> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/v2/burn/USDC/fees/${options.sourceDomain}/${options.destinationDomain}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    throw new AttestationApiError(
      'unavailable',
      `attestation API unreachable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (response.status === 429) {
    throw new AttestationApiError(
      'rate_limited',
      'attestation API is rate limiting this client (HTTP 429)',
      300_000,
    );
  }
  if (response.status !== 200) {
    throw new AttestationApiError(
      'unavailable',
      `attestation API answered HTTP ${response.status} for burn fees`,
    );
  }
  let json: unknown;
  try {
    json = parse(text, null, (digits: string) => digits);
  } catch {
    throw new AttestationApiError(
      'bad_answer',
      'attestation API answered burn fees with something other than JSON',
    );
  }
  const parsed = feesSchema.safeParse(json);
  if (!parsed.success) {
    throw new AttestationApiError('bad_answer', `attestation API answered burn fees in an unexpected shape`);
  }
  return parsed.data.map((entry) => {
    const fee = parseDecimal(entry.minimumFee);
    if (typeof fee === 'string')
      throw new AttestationApiError('bad_answer', `unreadable minimum fee ${entry.minimumFee}`);
    return { finalityThreshold: entry.finalityThreshold, minimumFeeBps: fee };
  });
}

/**
 * The least `maxFee` a burn of `amount` base units may offer at `minimumFeeBps`, rounded up to a whole base unit
 * so that the offer is never a fraction short.
 */
export function minimumMaxFee(amount: bigint, minimumFeeBps: Decimal): bigint {
  return divide(amount * minimumFeeBps.units, 10_000n * 10n ** BigInt(minimumFeeBps.scale), 'up');
}
