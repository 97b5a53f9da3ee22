import type { Address } from 'viem';

/** The networks the service knows, each with what does not change between deployments. */
export type Network = 'sandbox' | 'polygon' | 'amoy';

/** The beginning of a chain's variables' names: the live chain's PAYLINK_RPC_URL, the test chain's PAYLINK_TEST_RPC_URL. */
export type VariablePrefix = 'PAYLINK_' | 'PAYLINK_TEST_';

/**
 * A token the watcher reads: accepted (it pays: a USD stablecoin of 6 decimals, counted like USDC) or only noticed
 * (sent by mistake: recorded, reported, and forwarded only when an operator sweeps it).
 */
export interface TokenSetting {
  readonly symbol: string;
  /** Undefined for the sandbox's own tokens, which the service deploys (chainSetup resolves them). */
  readonly address: Address | undefined;
  readonly decimals: number;
}

export interface NetworkPreset {
  readonly chainId: number;
  /** Circle's native USDC; the sandbox deploys its own. */
  readonly usdcAddress: Address | undefined;
  /** Tokens known on the network by symbol, for PAYLINK_ACCEPTED_TOKENS and PAYLINK_NOTICED_TOKENS. */
  readonly knownTokens: Readonly<Record<string, TokenSetting>>;
  /** What is noticed when PAYLINK_NOTICED_TOKENS is not set (less what is accepted). */
  readonly noticedByDefault: readonly string[];
  readonly explorerUrl: string;
  readonly name: string;
  /**
   * A public RPC for the checkout's wallet button (wallet_addEthereumChain). Never PAYLINK_RPC_URL: provider
   * URLs often carry an API key, and this one is shown to every customer.
   */
  readonly publicRpcUrl: string | undefined;
  readonly nativeCurrencySymbol: string;
}

export const NETWORKS: Readonly<Record<Network, NetworkPreset>> = {
  sandbox: {
    chainId: 31337,
    usdcAddress: undefined,
    // Deployed by the sandbox itself (sandboxChain.ts): a USDC, and a stand-in for bridged USDC.e.
    knownTokens: {
      USDC: { symbol: 'USDC', address: undefined, decimals: 6 },
      'USDC.e': { symbol: 'USDC.e', address: undefined, decimals: 6 },
    },
    noticedByDefault: ['USDC.e'],
    explorerUrl: '',
    name: 'Sandbox (local anvil)',
    publicRpcUrl: undefined,
    nativeCurrencySymbol: 'ETH',
  },
  polygon: {
    chainId: 137,
    usdcAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    knownTokens: {
      USDC: { symbol: 'USDC', address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 },
      // Bridged from Ethereum (PoS bridge): what exchanges and older wallets still send as "USDC".
      'USDC.e': { symbol: 'USDC.e', address: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174', decimals: 6 },
      USDT: { symbol: 'USDT', address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', decimals: 6 },
      DAI: { symbol: 'DAI', address: '0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063', decimals: 18 },
    },
    noticedByDefault: ['USDC.e', 'USDT', 'DAI'],
    explorerUrl: 'https://polygonscan.com',
    name: 'Polygon',
    publicRpcUrl: 'https://polygon-rpc.com',
    nativeCurrencySymbol: 'POL',
  },
  amoy: {
    chainId: 80002,
    usdcAddress: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
    knownTokens: {
      USDC: { symbol: 'USDC', address: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', decimals: 6 },
    },
    noticedByDefault: [],
    explorerUrl: 'https://amoy.polygonscan.com',
    name: 'Polygon Amoy',
    publicRpcUrl: 'https://rpc-amoy.polygon.technology',
    nativeCurrencySymbol: 'POL',
  },
};

/** The sandbox's own anvil. */
export const SANDBOX_RPC_URL = 'http://127.0.0.1:8545';
