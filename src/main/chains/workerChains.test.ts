import { describe, expect, it } from 'vitest';
import type { HomeChain } from './model.ts';
import { type WorkerChain, watchOptionsOf, workerChainsOf } from './workerChains.ts';

const key = (byte: string) => `0x${byte.repeat(32)}` as const;
const FACTORY = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';

/** What workerChainsOf reads of a resolved home chain and its sources; nothing here starts one. */
function home(sources: { chainId: number; gaslessRelayerKey: `0x${string}` | undefined }[]): HomeChain {
  return {
    settings: { role: 'home' },
    target: { chainId: 137, factoryAddress: FACTORY },
    rpcUrls: ['https://polygon.example'],
    relayerKey: key('11'),
    gaslessRelayerKey: undefined,
    cctp: undefined,
    sources: sources.map((s) => ({
      settings: { role: 'source' },
      target: { chainId: s.chainId },
      rpcUrls: [`https://${s.chainId}.example`],
      relayerKey: key('11'),
      gaslessRelayerKey: s.gaslessRelayerKey,
    })),
  } as unknown as HomeChain;
}

describe('workerChainsOf', () => {
  it('gives each source chain its own gasless relayer key, and never the settler’s', () => {
    const chains = workerChainsOf([
      home([
        { chainId: 8453, gaslessRelayerKey: key('44') },
        { chainId: 42161, gaslessRelayerKey: undefined },
      ]),
    ]);
    expect(chains.map((c) => [c.target.chainId, c.relayerKey, c.gaslessRelayerKey, c.homeChainId])).toEqual([
      [137, key('11'), undefined, undefined],
      // A source chain's gasless relayer sends what was signed there; its deposits are burnt, never flushed.
      [8453, undefined, key('44'), 137],
      [42161, undefined, undefined, 137],
    ]);
  });

  it('gives the home chain its CCTP route (its settler mints, its watcher skips our own mints) and a source none', () => {
    const transmitter = '0xE737e5cEBEEBa77EFE34D4aa090756590b1CE275';
    const route = { usdc: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', messageTransmitter: transmitter };
    const [polygon, base] = workerChainsOf([
      { ...home([{ chainId: 8453, gaslessRelayerKey: undefined }]), cctp: route } as HomeChain,
    ]);
    expect(polygon?.cctp).toEqual(route);
    expect(base?.cctp).toBeUndefined();
    expect([polygon?.homeFactory, base?.homeFactory]).toEqual([undefined, FACTORY]);
  });

  it('has a source chain watched for its home chain’s payments of the home factory, and the home chain for its own', () => {
    const transmitter = '0xE737e5cEBEEBa77EFE34D4aa090756590b1CE275';
    const usdc = { symbol: 'USDC', address: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', decimals: 6 };
    const bridged = { symbol: 'USDC.e', address: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174', decimals: 6 };
    const [polygon, base] = workerChainsOf([
      {
        ...home([{ chainId: 8453, gaslessRelayerKey: undefined }]),
        cctp: { usdc: usdc.address, messageTransmitter: transmitter },
      } as HomeChain,
    ]).map((chain) => ({
      ...chain,
      settings: { maxBlockRange: 2_000, startBlock: 7n },
      target: { ...chain.target, acceptedTokens: [usdc], noticedTokens: chain.homeChainId ? [] : [bridged] },
    })) as unknown as WorkerChain[];
    expect(watchOptionsOf(polygon!)).toEqual({
      chainId: 137,
      tokens: [
        { address: usdc.address.toLowerCase(), symbol: 'USDC', decimals: 6, accepted: true },
        { address: bridged.address.toLowerCase(), symbol: 'USDC.e', decimals: 6, accepted: false },
      ],
      maxBlockRange: 2_000,
      startBlock: 7n,
      homeChainId: undefined,
      homeFactory: undefined,
      cctpMessageTransmitter: transmitter,
    });
    expect(watchOptionsOf(base!)).toMatchObject({
      chainId: 8453,
      homeChainId: 137,
      homeFactory: FACTORY,
      cctpMessageTransmitter: undefined,
    });
  });
});
