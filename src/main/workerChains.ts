import type { ResolvedChain } from './chainSetup.ts';
import type { WorkerChain } from './worker.ts';

/**
 * What the worker runs per chain id: each home chain as resolved (its CCTP side named, so that our own mints are
 * not counted as payments), then each of its source chains, watched for deposits to the home chain's version 3
 * addresses (decision 0030). A source chain gets no flushing settler: its deposits are burnt to the home chain by
 * the bridge's job (decision 0029), which holds that chain's relayer.
 */
export function workerChainsOf(chains: readonly ResolvedChain[]): WorkerChain[] {
  return chains.flatMap((home) => [
    { ...home, cctpMessageTransmitter: home.cctpHome?.messageTransmitter },
    ...home.sources.map(
      (source): WorkerChain => ({
        settings: source.settings,
        target: source.target,
        rpcUrls: source.rpcUrls,
        relayerKey: undefined,
        gaslessRelayerKey: undefined,
        depositChainId: home.target.chainId,
        depositFactory: home.target.factoryAddress,
      }),
    ),
  ]);
}
