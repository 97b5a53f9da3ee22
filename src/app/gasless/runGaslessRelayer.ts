import type { Logger } from 'pino';
import { type PassOutcome, runLoop } from '../operations/jobLoop.ts';
import {
  type ChargeBudget,
  type ChargeOutcome,
  type RelayChargesDeps,
  relayChargeOnce,
} from '../subscriptions/relayCharges.ts';
import {
  type RelayAuthorizationsDeps,
  type RelayOptions,
  type RelayOutcome,
  relayOnce,
} from './relayAuthorizations.ts';

/** The relayer's deps, with a logger the loop can report a failed pass to. */
export type RunGaslessRelayerDeps = RelayAuthorizationsDeps & {
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Pull renewal's charges on this chain (decision 0061): the same key, so the same loop, one in flight. */
  readonly charges?: RelayChargesDeps | undefined;
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
    () => relayPass(deps, options),
  );
}

/**
 * One pass: a charge in flight first (nothing else is sent meanwhile), else the customers' signed transfers,
 * and a charge only when none of those is in flight: one transaction of the key in flight at a time.
 */
export async function relayPass(
  relaying: RunGaslessRelayerDeps,
  options: RelayOptions,
): Promise<PassOutcome> {
  const deps = withChargesSpend(relaying);
  const charges = chargesInBudget(relaying, options.maxFeeWeiPerHour);
  if (charges && (await charges.mandates.inFlight(charges.charger.chainId)))
    return passOutcomeOf(await relayChargeOnce(charges));
  const outcome = await relayOnce(deps, { maxFeeWeiPerHour: options.maxFeeWeiPerHour });
  if (!charges || outcome.kind === 'sent' || outcome.kind === 'awaiting-receipt')
    return passOutcomeOf(outcome);
  const charged = passOutcomeOf(await relayChargeOnce(charges));
  return charged === 'busy' ? 'busy' : passOutcomeOf(outcome);
}

/**
 * The key's spend as both its uses see it: the gasless transfers' and the subscription charges' fees in one hour's
 * budget (PAYLINK_GASLESS_MAX_FEE_PER_HOUR), each held to its share of it.
 */
function withChargesSpend<T extends Pick<RunGaslessRelayerDeps, 'gasless' | 'charges'>>(deps: T): T {
  const { charges, gasless } = deps;
  if (!charges) return deps;
  const spendSince = async (chainId: number, since: Date) => [
    ...(await gasless.spendSince(chainId, since)),
    ...(await charges.mandates.spendSince(chainId, since)),
  ];
  return { ...deps, gasless: { ...gasless, spendSince } };
}

/** The relayer's charges held to the key's hourly budget, the gasless transfers' spend counted with theirs. */
export function chargesInBudget(
  relaying: Pick<RunGaslessRelayerDeps, 'gasless' | 'charges'>,
  maxFeeWeiPerHour: bigint | undefined,
): RelayChargesDeps | undefined {
  const { charges } = relaying;
  if (!charges) return undefined;
  const { gasless } = withChargesSpend(relaying);
  const budget: ChargeBudget = {
    maxFeeWeiPerHour,
    spendSince: (since) => gasless.spendSince(charges.charger.chainId, since),
  };
  return { ...charges, budget };
}

/**
 * Another authorization or charge may be waiting once one is sent, mined or failed: the next pass runs at once. A
 * receipt still awaited, a block not final yet, or the hour's cap or a share spent, takes time: the loop waits its
 * interval.
 */
export function passOutcomeOf(outcome: RelayOutcome | ChargeOutcome): PassOutcome {
  return outcome.kind === 'sent' || outcome.kind === 'mined' || outcome.kind === 'failed' ? 'busy' : 'idle';
}
