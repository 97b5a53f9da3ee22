import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { DepositPlanners } from '../app/payments/ports.ts';
import { loadConfig } from '../config/index.ts';
import type { HomeChain } from './chains/model.ts';
import type { createStores } from './wiring.ts';
import { x402Facilitator } from './x402Services.ts';

const key = (byte: string) => `0x${byte.repeat(32)}` as const;
const usdcOf = (chainId: number) => `0x${chainId.toString(16).padStart(40, '0')}`;

/** What x402Facilitator reads of a resolved home chain and its sources; nothing here reaches a node. */
function home(
  gaslessRelayerKey: `0x${string}` | undefined,
  sources: { chainId: number; gaslessRelayerKey: `0x${string}` | undefined }[],
  forwarderVersion: 2 | 3 = 3,
): HomeChain {
  return {
    modes: ['live'],
    target: { chainId: 137, tokenAddress: usdcOf(137), forwarderVersion },
    rpcUrls: ['https://polygon.example'],
    gaslessRelayerKey,
    sources: sources.map((s) => ({
      target: { chainId: s.chainId, tokenAddress: usdcOf(s.chainId) },
      rpcUrls: [`https://${s.chainId}.example`],
      gaslessRelayerKey: s.gaslessRelayerKey,
    })),
  } as unknown as HomeChain;
}

function facilitatorOf(chains: HomeChain[]) {
  return x402Facilitator(loadConfig({ PAYLINK_DATABASE_URL: 'sqlite::memory:' }), {
    stores: { x402Payments: {} } as unknown as ReturnType<typeof createStores>,
    chains,
    deposits: { live: { chainId: 137 } } as unknown as DepositPlanners,
    clock: { now: () => new Date() },
  });
}

const offered = (chains: HomeChain[]) =>
  facilitatorOf(chains)?.modes.live?.chains.map((c) => [c.chainId, c.tokenAddress, c.relayerAddress]);

describe('x402Facilitator (decision 0059)', () => {
  it('offers the home chain and each source chain that has a gasless relayer, each with its USDC and relayer', () => {
    const chains = [
      home(key('11'), [
        { chainId: 8453, gaslessRelayerKey: key('44') },
        { chainId: 42161, gaslessRelayerKey: undefined },
      ]),
    ];
    expect(offered(chains)).toEqual([
      [137, usdcOf(137), privateKeyToAccount(key('11')).address],
      [8453, usdcOf(8453), privateKeyToAccount(key('44')).address],
    ]);
  });

  it('offers a source chain even where the home chain has no gasless relayer', () => {
    expect(offered([home(undefined, [{ chainId: 8453, gaslessRelayerKey: key('44') }])])).toEqual([
      [8453, usdcOf(8453), privateKeyToAccount(key('44')).address],
    ]);
  });

  it('offers no source chain under a home factory older than version 3 (its addresses exist at home only)', () => {
    expect(offered([home(key('11'), [{ chainId: 8453, gaslessRelayerKey: key('44') }], 2)])).toEqual([
      [137, usdcOf(137), privateKeyToAccount(key('11')).address],
    ]);
  });

  it('is absent where no chain has a gasless relayer', () => {
    expect(
      facilitatorOf([home(undefined, [{ chainId: 8453, gaslessRelayerKey: undefined }])]),
    ).toBeUndefined();
  });
});
