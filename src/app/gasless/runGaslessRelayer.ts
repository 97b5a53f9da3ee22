import type { Logger } from 'pino';
import { type PassOutcome, runLoop } from '../operations/jobLoop.ts';
import {
  type RelayAuthorizationsDeps,
  type RelayOptions,
  type RelayOutcome,
  relayOnce,
} from './relayAuthorizations.ts';

/** The relayer's deps, with a logger the loop can report a failed pass to. */
export type RunGaslessRelayerDeps = RelayAuthorizationsDeps & {
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
};

export interface RunGaslessRelayerOptions extends RelayOptions {
  readonly intervalMs: number;
  readonly signal: AbortSignal;
}

/**
 * A chain's gasless relayer until `signal` aborts: one `relayOnce` per pass. One per chain with a gasless key,
 * home or source; the caller holds its lock, since it is the one writer of that key's nonces.
 */
export function runGaslessRelayer(
  deps: RunGaslessRelayerDeps,
  options: RunGaslessRelayerOptions,
): Promise<void> {
  return runLoop(
    { name: 'gasless-relayer', intervalMs: options.intervalMs, signal: options.signal, logger: deps.logger },
    async () => passOutcomeOf(await relayOnce(deps, { maxFeeWeiPerHour: options.maxFeeWeiPerHour })),
  );
}

/**
 * Another authorization may be waiting once one is sent, mined or failed: the next pass runs at once. A receipt
 * still awaited, or the hour's cap or a share spent, takes time: the loop waits its interval.
 */
export function passOutcomeOf(outcome: RelayOutcome): PassOutcome {
  return outcome.kind === 'sent' || outcome.kind === 'mined' || outcome.kind === 'failed' ? 'busy' : 'idle';
}
