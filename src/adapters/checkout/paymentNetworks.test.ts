import { describe, expect, it } from 'vitest';
import type { Deposit } from '../../domain/payment.ts';
import {
  type ModeNetworks,
  modeOfHomeChain,
  type NetworkCandidate,
  paymentNetworks,
} from './paymentNetworks.ts';

const V3 = '0x1111111111111111111111111111111111111111';
const V2 = '0x2222222222222222222222222222222222222222';
const POLYGON_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

const chain = (
  chainId: number,
  name: string,
  role: 'home' | 'source',
  gasless = false,
): NetworkCandidate => ({
  chainId,
  name,
  role,
  usdcAddress: `0x${chainId.toString(16).padStart(40, '0')}`,
  publicRpcUrl: `https://rpc.example/${chainId}`,
  explorerUrl: `https://explorer.example/${chainId}`,
  nativeCurrencySymbol: chainId === 137 ? 'POL' : 'ETH',
  gasless,
});

// Listed as Config.chains lists them: home first, then sources in the operator's order.
const LIVE: ModeNetworks = {
  chains: [
    chain(137, 'Polygon', 'home', true),
    chain(8453, 'Base', 'source'),
    chain(42161, 'Arbitrum', 'source'),
  ],
  v3FactoryAddress: V3,
};

const deposit = (
  factoryAddress: string,
  chainId = 137,
): Pick<Deposit, 'chainId' | 'tokenAddress' | 'factoryAddress'> => ({
  chainId,
  tokenAddress: POLYGON_USDC,
  factoryAddress,
});

describe('paymentNetworks', () => {
  it('offers home first, then every source in the configured order, for a payment on the V3 factory', () => {
    const networks = paymentNetworks(deposit(V3), LIVE);
    expect(networks.map((n) => [n.chainId, n.name, n.role])).toEqual([
      [137, 'Polygon', 'home'],
      [8453, 'Base', 'source'],
      [42161, 'Arbitrum', 'source'],
    ]);
    // Each network carries its own USDC, RPC, explorer, gas token and gasless offer.
    expect(networks[1]).toEqual({
      name: 'Base',
      chainId: 8453,
      explorerUrl: 'https://explorer.example/8453',
      publicRpcUrl: 'https://rpc.example/8453',
      nativeCurrencySymbol: 'ETH',
      role: 'source',
      usdcAddress: `0x${(8453).toString(16).padStart(40, '0')}`,
      gasless: false,
    });
    expect(networks[0]?.gasless).toBe(true);
  });

  it('takes the home token from the payment itself, not from the list', () => {
    expect(paymentNetworks(deposit(V3), LIVE)[0]?.usdcAddress).toBe(POLYGON_USDC);
  });

  it('compares the factory without regard to case (a checksummed row, a lower-case setting)', () => {
    const mode = { ...LIVE, v3FactoryAddress: '0xABCDEFabcdefABCDEFabcdefABCDEFabcdefABCD' };
    expect(paymentNetworks(deposit('0xabcdefabcdefabcdefabcdefabcdefabcdefabcd'), mode)).toHaveLength(3);
  });

  it('offers an older payment (another factory) its home chain alone: its address exists nowhere else', () => {
    expect(paymentNetworks(deposit(V2), LIVE).map((n) => n.chainId)).toEqual([137]);
  });

  it('offers one network where the mode has no V3 factory, even for an address that happens to match', () => {
    const networks = paymentNetworks(deposit(V3), { ...LIVE, v3FactoryAddress: undefined });
    expect(networks.map((n) => n.chainId)).toEqual([137]);
  });

  it('offers one network where the mode has no source chain', () => {
    const homeOnly = { chains: [chain(137, 'Polygon', 'home')], v3FactoryAddress: V3 };
    expect(paymentNetworks(deposit(V3), homeOnly).map((n) => n.chainId)).toEqual([137]);
  });

  it('puts home first even when the list names a source before it, and never offers a chain twice', () => {
    const shuffled = {
      chains: [chain(8453, 'Base', 'source'), chain(137, 'Polygon', 'home'), chain(8453, 'Base', 'source')],
      v3FactoryAddress: V3,
    };
    expect(paymentNetworks(deposit(V3), shuffled).map((n) => n.chainId)).toEqual([137, 8453]);
  });

  it('shows a payment whose chain no mode lists on that chain alone, named by its id', () => {
    expect(paymentNetworks(deposit(V3, 80002), LIVE)).toEqual([
      {
        name: 'Chain 80002',
        chainId: 80002,
        explorerUrl: '',
        role: 'home',
        usdcAddress: POLYGON_USDC,
        gasless: false,
      },
    ]);
    expect(paymentNetworks(deposit(V3), undefined).map((n) => n.chainId)).toEqual([137]);
  });

  it('finds a mode by its home chain, never by a source chain', () => {
    const test = {
      chains: [chain(80002, 'Amoy', 'home'), chain(84532, 'Base Sepolia', 'source')],
      v3FactoryAddress: V3,
    };
    expect(modeOfHomeChain([LIVE, test], 80002)).toBe(test);
    expect(modeOfHomeChain([LIVE, test], 137)).toBe(LIVE);
    expect(modeOfHomeChain([LIVE, test], 8453)).toBeUndefined();
  });
});
