/**
 * USDC's controls read from the token (`isBlacklisted(address)`, `paused()`), for the checks made before a link
 * is sold or a payout wallet is set (app/tokenControls.ts). On the create path, so each answer is kept briefly
 * and concurrent askers share one read; a token without the function is not asked again for a while, and a
 * node that does not answer never blocks anything.
 */
import {
  AbiDecodingZeroDataError,
  type Address,
  BaseError,
  ContractFunctionZeroDataError,
  getAddress,
  type PublicClient,
} from 'viem';
import type { TokenControls } from '../../app/chain/tokenControls.ts';
import type { Clock } from '../../app/shared/ports.ts';
import { revertReasonOf } from './revertReason.ts';

const controlsAbi = [
  {
    type: 'function',
    name: 'isBlacklisted',
    inputs: [{ name: 'account', type: 'address' }],
    outputs: [{ type: 'bool' }],
    stateMutability: 'view',
  },
  { type: 'function', name: 'paused', inputs: [], outputs: [{ type: 'bool' }], stateMutability: 'view' },
] as const;

export interface TokenControlsOptions {
  /** A client with a short timeout: this is on the create path (`createRpcClient(urls, 2_000)`). */
  readonly client: PublicClient;
  readonly token: string;
  readonly clock: Clock;
  readonly logger: { warn(object: object, message: string): void };
  /** How long an answer is kept (default 15 s): a blacklisting shows within it. */
  readonly ttlMs?: number;
}

/** A token without the function is asked again after this (it may be upgraded); a dead node after this. */
const UNSUPPORTED_TTL_MS = 10 * 60_000;
const UNANSWERED_TTL_MS = 5_000;

interface Entry {
  value: Promise<boolean | undefined>;
  /** Infinity while the read is in flight: concurrent askers share it. */
  until: number;
}

export function createTokenControls(options: TokenControlsOptions): TokenControls {
  const token = getAddress(options.token);
  const ttlMs = options.ttlMs ?? 15_000;
  const entries = new Map<string, Entry>();
  const nowMs = () => options.clock.now().getTime();

  const read = (key: string, call: () => Promise<boolean>): Promise<boolean | undefined> => {
    const cached = entries.get(key);
    if (cached && cached.until > nowMs()) return cached.value;
    const entry: Entry = { value: Promise.resolve(undefined), until: Number.POSITIVE_INFINITY };
    entry.value = call().then(
      (value) => {
        entry.until = nowMs() + ttlMs;
        return value;
      },
      (error: unknown) => {
        if (isMissingFunction(error)) {
          entry.until = nowMs() + UNSUPPORTED_TTL_MS;
        } else {
          entry.until = nowMs() + UNANSWERED_TTL_MS;
          options.logger.warn({ token, check: key.split(':')[0] }, 'token control unreadable: not checked');
        }
        return undefined;
      },
    );
    entries.set(key, entry);
    // Bounded: one entry per wallet asked about recently.
    if (entries.size > 10_000) for (const [k, e] of entries) if (e.until <= nowMs()) entries.delete(k);
    return entry.value;
  };

  return {
    isBlacklisted(account) {
      const address = getAddress(account);
      return read(`isBlacklisted:${address}`, () =>
        options.client.readContract({
          address: token,
          abi: controlsAbi,
          functionName: 'isBlacklisted',
          args: [address as Address],
        }),
      );
    },
    isPaused() {
      return read('paused', () =>
        options.client.readContract({ address: token, abi: controlsAbi, functionName: 'paused' }),
      );
    },
  };
}

/** The token has no such function: the call reverts, or answers nothing (no code, a fallback that returns). */
function isMissingFunction(error: unknown): boolean {
  if (revertReasonOf(error, controlsAbi) !== undefined) return true;
  return (
    error instanceof BaseError &&
    error.walk((e) => e instanceof ContractFunctionZeroDataError || e instanceof AbiDecodingZeroDataError) !==
      null
  );
}
