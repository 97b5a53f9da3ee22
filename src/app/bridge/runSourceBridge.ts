import { runLoop } from '../operations/jobLoop.ts';
import { attestOnce } from './attestStep.ts';
import { burnOnce } from './burnStep.ts';
import type { SourceBridgeDeps, SourceBridgeOptions } from './options.ts';

/**
 * A source chain's bridge job until `signal` aborts: each pass moves its burn on (or sends the next) and asks the
 * attestation API about its final burns. One per source chain, holding that chain's relayer: its only writer.
 * An attestation just recorded is handed to the home settler at once (`onAttested`): its mint is what the
 * customer waits for, and the settler's next poll could be a whole interval away.
 */
export function runSourceBridge(
  deps: SourceBridgeDeps,
  options: SourceBridgeOptions & {
    readonly intervalMs: number;
    readonly signal: AbortSignal;
    readonly onAttested?: (() => void) | undefined;
  },
): Promise<void> {
  return runLoop(
    { name: 'bridge', intervalMs: options.intervalMs, signal: options.signal, logger: deps.logger },
    async () => {
      const burn = await burnOnce(deps, options);
      const attest = await attestOnce(deps, options);
      if (attest.attested.length > 0) options.onAttested?.();
      return burn.kind === 'burnt' || burn.kind === 'found' || attest.attested.length > 0 ? 'busy' : 'idle';
    },
  );
}
