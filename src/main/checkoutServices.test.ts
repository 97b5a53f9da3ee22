import { describe, expect, it } from 'vitest';
import { paymentNetworks } from '../adapters/checkout/paymentNetworks.ts';
import type { HomeChain } from './chains/model.ts';
import { checkoutModeNetworks } from './checkoutServices.ts';

const USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const AMOY_USDC = '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582';

/** What checkoutModeNetworks reads of a resolved chain; nothing here starts or stops one. */
function chain(chainId: number, tokenAddress: string, gasless: boolean): HomeChain {
  return {
    settings: { role: 'home' },
    target: { chainId, tokenAddress },
    gaslessRelayerKey: gasless ? `0x${'1'.repeat(64)}` : undefined,
    sources: [],
  } as unknown as HomeChain;
}

describe('checkoutModeNetworks', () => {
  it('makes each chain of today’s configuration a home of its own: every payment is offered its own chain alone', () => {
    const modes = checkoutModeNetworks(
      [chain(137, USDC, true), chain(80002, AMOY_USDC, false)],
      [
        {
          name: 'Polygon',
          chainId: 137,
          explorerUrl: 'https://polygonscan.com',
          nativeCurrencySymbol: 'POL',
        },
        { name: 'Polygon Amoy', chainId: 80002, explorerUrl: 'https://amoy.polygonscan.com' },
      ],
    );
    expect(modes).toEqual([
      {
        chains: [
          {
            chainId: 137,
            name: 'Polygon',
            role: 'home',
            usdcAddress: USDC,
            publicRpcUrl: undefined,
            explorerUrl: 'https://polygonscan.com',
            nativeCurrencySymbol: 'POL',
            gasless: true,
          },
        ],
        v3FactoryAddress: undefined,
      },
      {
        chains: [
          {
            chainId: 80002,
            name: 'Polygon Amoy',
            role: 'home',
            usdcAddress: AMOY_USDC,
            publicRpcUrl: undefined,
            explorerUrl: 'https://amoy.polygonscan.com',
            nativeCurrencySymbol: undefined,
            gasless: false,
          },
        ],
        v3FactoryAddress: undefined,
      },
    ]);
    // Even a deposit whose factory matched nothing would be offered one network: no mode has a V3 factory yet.
    const deposit = {
      chainId: 137,
      tokenAddress: USDC,
      factoryAddress: '0x0000000000000000000000000000000000000000',
    };
    expect(paymentNetworks(deposit, modes[0]).map((n) => n.chainId)).toEqual([137]);
  });
});
