import type { Address } from 'viem';
import { CCTP_DOMAINS } from '../../domain/cctp.ts';

export { CCTP_DOMAINS };

/**
 * The networks a home chain can be on (PAYLINK_NETWORK, PAYLINK_TEST_NETWORK): where deposit rows live and payouts
 * are flushed. A network is a preset's name; the chain on it, as configured, is a ChainSettings (settings.ts).
 * Every burn on a source chain mints on its mode's home chain (CCTP domain 7, Polygon's).
 */
export type HomeNetwork = 'sandbox' | 'polygon' | 'amoy';

/** Live source chains (PAYLINK_CHAINS): their USDC is burnt to Polygon through CCTP v2. */
export const LIVE_SOURCE_NETWORKS = ['ethereum', 'base', 'arbitrum', 'optimism', 'avalanche'] as const;
/** Test source chains (PAYLINK_TEST_CHAINS), burnt to Amoy; `sandbox-2` is the sandbox's second local chain. */
export const TEST_SOURCE_NETWORKS = [
  'sepolia',
  'base-sepolia',
  'arbitrum-sepolia',
  'op-sepolia',
  'fuji',
  'sandbox-2',
] as const;
export type SourceNetwork = (typeof LIVE_SOURCE_NETWORKS)[number] | (typeof TEST_SOURCE_NETWORKS)[number];
/** Every network a chain of the configuration can be on. */
export type ChainNetwork = HomeNetwork | SourceNetwork;

/**
 * The beginning of a chain's variables' names: the live chain's PAYLINK_RPC_URL, the test chain's
 * PAYLINK_TEST_RPC_URL, a source chain's by its name (PAYLINK_BASE_RPC_URL, PAYLINK_BASE_SEPOLIA_RPC_URL).
 */
export type VariablePrefix = `PAYLINK_${string}`;

/**
 * A token the watcher reads: accepted (it pays: a USD stablecoin of 6 decimals, counted like USDC) or only noticed
 * (sent by mistake: recorded, reported, and forwarded only when an operator sweeps it).
 */
export interface TokenSetting {
  readonly symbol: string;
  /** Undefined for the sandbox's own tokens, which the service deploys (main/chains/resolveChains.ts resolves them). */
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
  /**
   * Circle's CCTP v2 on the network: its domain, TokenMessengerV2 (burns) and MessageTransmitterV2 (mints,
   * `receiveMessage`). The sandbox's chains deploy the project's test contracts instead (addresses undefined).
   */
  readonly cctp: {
    readonly domain: number;
    readonly tokenMessenger: Address | undefined;
    readonly messageTransmitter: Address | undefined;
  };
  /** The relayer's balance below which the service warns, in the native token, when none is configured. */
  readonly relayerLowBalance: string;
}

/**
 * Circle's CCTP v2 contracts: one address pair on every EVM mainnet, another on every testnet. Checked against
 * Circle's documentation ("EVM contracts": TokenMessengerV2 and MessageTransmitterV2 tables) and Circle's own
 * chain list (github.com/circlefin/cctp-go, chains.go), November 2026.
 */
const CCTP_MAINNET = {
  tokenMessenger: '0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d',
  messageTransmitter: '0x81D40F21F12A8F0E3252Bccb954D722d4c464B64',
} as const satisfies Record<string, Address>;
const CCTP_TESTNET = {
  tokenMessenger: '0x8FE6B999Dc680CcFDD5Bf7EB0974218be2542DAA',
  messageTransmitter: '0xE737e5cEBEEBa77EFE34D4aa090756590b1CE275',
} as const satisfies Record<string, Address>;

/**
 * A source chain's preset: its USDC (Circle's native USDC, the only token it accepts) and nothing else known.
 * USDC addresses from Circle's "USDC contract addresses" and cctp-go's chain list (they agree).
 */
function sourcePreset(preset: {
  chainId: number;
  name: string;
  usdc: Address | undefined;
  domain: number;
  cctp: { tokenMessenger: Address; messageTransmitter: Address } | undefined;
  explorerUrl: string;
  publicRpcUrl: string | undefined;
  nativeCurrencySymbol: string;
  relayerLowBalance: string;
}): NetworkPreset {
  return {
    chainId: preset.chainId,
    usdcAddress: preset.usdc,
    knownTokens: { USDC: { symbol: 'USDC', address: preset.usdc, decimals: 6 } },
    noticedByDefault: [],
    explorerUrl: preset.explorerUrl,
    name: preset.name,
    publicRpcUrl: preset.publicRpcUrl,
    nativeCurrencySymbol: preset.nativeCurrencySymbol,
    cctp: {
      domain: preset.domain,
      tokenMessenger: preset.cctp?.tokenMessenger,
      messageTransmitter: preset.cctp?.messageTransmitter,
    },
    relayerLowBalance: preset.relayerLowBalance,
  };
}

export const NETWORKS: Readonly<Record<ChainNetwork, NetworkPreset>> = {
  sandbox: {
    chainId: 31337,
    usdcAddress: undefined,
    // Deployed by the sandbox itself (src/sandbox/chain.ts): a USDC, and a stand-in for bridged USDC.e.
    knownTokens: {
      USDC: { symbol: 'USDC', address: undefined, decimals: 6 },
      'USDC.e': { symbol: 'USDC.e', address: undefined, decimals: 6 },
    },
    noticedByDefault: ['USDC.e'],
    explorerUrl: '',
    name: 'Sandbox (local anvil)',
    publicRpcUrl: undefined,
    nativeCurrencySymbol: 'ETH',
    // Stands for Polygon: every sandbox burn mints here (its CCTP test contracts are deployed at start).
    cctp: { domain: CCTP_DOMAINS.polygon, tokenMessenger: undefined, messageTransmitter: undefined },
    relayerLowBalance: '1',
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
    cctp: { domain: CCTP_DOMAINS.polygon, ...CCTP_MAINNET },
    relayerLowBalance: '1',
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
    cctp: { domain: CCTP_DOMAINS.polygon, ...CCTP_TESTNET },
    relayerLowBalance: '1',
  },
  ethereum: sourcePreset({
    chainId: 1,
    name: 'Ethereum',
    usdc: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    domain: CCTP_DOMAINS.ethereum,
    cctp: CCTP_MAINNET,
    explorerUrl: 'https://etherscan.io',
    publicRpcUrl: 'https://ethereum-rpc.publicnode.com',
    nativeCurrencySymbol: 'ETH',
    // A first flush on Ethereum costs real money: warn early.
    relayerLowBalance: '0.05',
  }),
  base: sourcePreset({
    chainId: 8453,
    name: 'Base',
    usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    domain: CCTP_DOMAINS.base,
    cctp: CCTP_MAINNET,
    explorerUrl: 'https://basescan.org',
    publicRpcUrl: 'https://mainnet.base.org',
    nativeCurrencySymbol: 'ETH',
    relayerLowBalance: '0.005',
  }),
  arbitrum: sourcePreset({
    chainId: 42161,
    name: 'Arbitrum',
    usdc: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
    domain: CCTP_DOMAINS.arbitrum,
    cctp: CCTP_MAINNET,
    explorerUrl: 'https://arbiscan.io',
    publicRpcUrl: 'https://arb1.arbitrum.io/rpc',
    nativeCurrencySymbol: 'ETH',
    relayerLowBalance: '0.005',
  }),
  optimism: sourcePreset({
    chainId: 10,
    name: 'OP Mainnet',
    usdc: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85',
    domain: CCTP_DOMAINS.optimism,
    cctp: CCTP_MAINNET,
    explorerUrl: 'https://optimistic.etherscan.io',
    publicRpcUrl: 'https://mainnet.optimism.io',
    nativeCurrencySymbol: 'ETH',
    relayerLowBalance: '0.005',
  }),
  avalanche: sourcePreset({
    chainId: 43114,
    name: 'Avalanche C-Chain',
    usdc: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E',
    domain: CCTP_DOMAINS.avalanche,
    cctp: CCTP_MAINNET,
    explorerUrl: 'https://snowtrace.io',
    publicRpcUrl: 'https://api.avax.network/ext/bc/C/rpc',
    nativeCurrencySymbol: 'AVAX',
    relayerLowBalance: '0.5',
  }),
  sepolia: sourcePreset({
    chainId: 11155111,
    name: 'Ethereum Sepolia',
    usdc: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
    domain: CCTP_DOMAINS.ethereum,
    cctp: CCTP_TESTNET,
    explorerUrl: 'https://sepolia.etherscan.io',
    publicRpcUrl: 'https://ethereum-sepolia-rpc.publicnode.com',
    nativeCurrencySymbol: 'ETH',
    relayerLowBalance: '0.05',
  }),
  'base-sepolia': sourcePreset({
    chainId: 84532,
    name: 'Base Sepolia',
    usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    domain: CCTP_DOMAINS.base,
    cctp: CCTP_TESTNET,
    explorerUrl: 'https://sepolia.basescan.org',
    publicRpcUrl: 'https://sepolia.base.org',
    nativeCurrencySymbol: 'ETH',
    relayerLowBalance: '0.005',
  }),
  'arbitrum-sepolia': sourcePreset({
    chainId: 421614,
    name: 'Arbitrum Sepolia',
    usdc: '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d',
    domain: CCTP_DOMAINS.arbitrum,
    cctp: CCTP_TESTNET,
    explorerUrl: 'https://sepolia.arbiscan.io',
    publicRpcUrl: 'https://sepolia-rollup.arbitrum.io/rpc',
    nativeCurrencySymbol: 'ETH',
    relayerLowBalance: '0.005',
  }),
  'op-sepolia': sourcePreset({
    chainId: 11155420,
    name: 'OP Sepolia',
    usdc: '0x5fd84259d66Cd46123540766Be93DFE6D43130D7',
    domain: CCTP_DOMAINS.optimism,
    cctp: CCTP_TESTNET,
    explorerUrl: 'https://sepolia-optimism.etherscan.io',
    publicRpcUrl: 'https://sepolia.optimism.io',
    nativeCurrencySymbol: 'ETH',
    relayerLowBalance: '0.005',
  }),
  fuji: sourcePreset({
    chainId: 43113,
    name: 'Avalanche Fuji',
    usdc: '0x5425890298aed601595a70AB815c96711a31Bc65',
    domain: CCTP_DOMAINS.avalanche,
    cctp: CCTP_TESTNET,
    explorerUrl: 'https://testnet.snowtrace.io',
    publicRpcUrl: 'https://api.avax-test.network/ext/bc/C/rpc',
    nativeCurrencySymbol: 'AVAX',
    relayerLowBalance: '0.5',
  }),
  // The sandbox's second local anvil, standing in for Base (domain 6): its USDC and CCTP are deployed at start.
  'sandbox-2': sourcePreset({
    chainId: 31338,
    name: 'Sandbox 2 (local anvil)',
    usdc: undefined,
    domain: CCTP_DOMAINS.base,
    cctp: undefined,
    explorerUrl: '',
    publicRpcUrl: undefined,
    nativeCurrencySymbol: 'ETH',
    relayerLowBalance: '1',
  }),
};

/** The sandbox's own anvil. */
export const SANDBOX_RPC_URL = 'http://127.0.0.1:8545';

/** Whether a network is a mainnet (live payments) or a testnet or local chain (test payments). */
export function isLiveSourceNetwork(network: string): boolean {
  return (LIVE_SOURCE_NETWORKS as readonly string[]).includes(network);
}
