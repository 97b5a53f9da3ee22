import type { Address, Hex } from 'viem';
import type { ChainNetwork, HomeNetwork, SourceNetwork, TokenSetting, VariablePrefix } from './networks.ts';

/*
 * What the environment says of each chain, before anything is deployed or read on it (decision 0041 has the
 * vocabulary). A home chain (Polygon, Amoy, the sandbox's first chain) holds its mode's deposit rows and is where
 * payouts are flushed; a source chain's USDC is burnt through CCTP v2 to the same address on its home chain.
 * main/chains/resolveChains.ts turns these settings, once, into the HomeChain and SourceChain the service runs.
 */

/** When a transfer counts as final: the node's `finalized` block, or N confirmations on top of its block. */
export type Finality =
  | { readonly kind: 'finalized' }
  | { readonly kind: 'confirmations'; readonly confirmations: number };

/** Which payments a chain takes: live ones (sk_live_ keys) or test-mode ones (sk_test_ keys). */
export type ChainMode = 'live' | 'test';

/**
 * A chain's part in its mode: `home` (Polygon, Amoy or the sandbox chain) holds the deposit rows and is where
 * payouts are flushed; a `source` chain's USDC is burnt through CCTP v2 to the same address on its home chain.
 */
export type ChainRole = 'home' | 'source';

/**
 * A chain's CCTP v2 route as configured (decision 0032): its domain, TokenMessengerV2 and MessageTransmitterV2,
 * and for a source chain how it burns. Addresses undefined on the sandbox until it deploys them.
 */
export interface CctpRouteSettings {
  /** Circle's domain of the chain (Polygon 7, Base 6, ...). */
  readonly domain: number;
  /** TokenMessengerV2 (burns); undefined on the sandbox until its test contracts are deployed at start. */
  readonly tokenMessenger: Address | undefined;
  /** MessageTransmitterV2 (`receiveMessage` on the home chain). */
  readonly messageTransmitter: Address | undefined;
  /** Fast (a fee of a few basis points, seconds) or standard (free, minutes): the relayer's choice per chain. */
  readonly transferSpeed: 'fast' | 'standard';
  /**
   * The most a fast burn may pay Circle, in basis points: the factory's route table holds it (the cap is part
   * of every deposit address's promise), so changing it is another factory. 0 on a home chain (never burns).
   */
  readonly maxFeeBps: number;
  /**
   * At fast speed, blocks on top of a customer's transfer before it is burnt (decision 0037), long before it is
   * final: Circle bears the reorgs after its attestation, the merchant none (paid once the mint is final).
   */
  readonly fastConfirmations: number;
}

/**
 * One chain the service takes payments on, with every setting of it. The configuration holds a list of them
 * (`Config.chains`), and whatever runs per chain (the watcher, the settler, the gasless relayer, the checkout's
 * networks, the dashboard's explorers) iterates that list: a new chain is one more entry.
 */
export interface ChainSettings {
  readonly mode: ChainMode;
  readonly role: ChainRole;
  /** The chain id of its mode's home chain: its own for a home chain. */
  readonly homeChainId: number;
  /** Its CCTP v2 settings: every chain of the list has them (a home chain's say where burns mint). */
  readonly cctp: CctpRouteSettings | undefined;
  /** The beginning of its variables' names, so that a message names the one to set. */
  readonly variablePrefix: VariablePrefix;
  readonly network: ChainNetwork;
  readonly chainId: number;
  readonly rpcUrls: readonly string[];
  readonly usdcAddress: Address | undefined;
  /**
   * Tokens that pay (PAYLINK_ACCEPTED_TOKENS): USDC first — the token a payment asks for, at usdcAddress — then
   * any other 6-decimal USD stablecoin enabled (USDC.e). Each is read in the watcher's one request per range.
   */
  readonly acceptedTokens: readonly TokenSetting[];
  /** Tokens recorded when sent to a payment, but never counted (PAYLINK_NOTICED_TOKENS). */
  readonly noticedTokens: readonly TokenSetting[];
  /**
   * The public RPC the checkout's wallet button offers (wallet_addEthereumChain): PAYLINK_PUBLIC_RPC_URL, else
   * the network preset's. Shown to every customer, so never a provider URL with an API key.
   */
  readonly publicRpcUrl: string | undefined;
  readonly factoryAddress: Address | undefined;
  readonly treasuryAddress: Address | undefined;
  /**
   * Pull renewal's SubscriptionCharger on this chain (decision 0061), PAYLINK_SUBSCRIPTION_CHARGER; unset: the
   * mode's subscriptions renew by push alone. Its charges are paid by the gasless relayer's key.
   */
  readonly subscriptionCharger?: Address | undefined;
  readonly relayerKey: Hex | undefined;
  readonly finality: Finality;
  readonly pollIntervalMs: number;
  /** The most blocks one eth_getLogs may span (RPC providers cap ranges; 2,000 is a common limit). */
  readonly maxBlockRange: number;
  /** Where a new chain cursor starts; default: the head when the watcher first runs. */
  readonly startBlock: bigint | undefined;
  /** Final funds below this wait for more before being flushed (gas would cost more than they are worth). */
  readonly dustThresholdBaseUnits: bigint;
  /** The relayer's gas balance below which the service warns loudly, in wei. */
  readonly relayerLowBalanceWei: bigint;
  /**
   * Gasless payment (decision 0012): offered when PAYLINK_GASLESS is on and this key is set (the sandbox has
   * its own). A key of its own: the settler's relayer key has one writer of its nonces.
   */
  readonly gasless: {
    readonly enabled: boolean;
    readonly relayerKey: Hex | undefined;
    /** The most the gasless relayer may pay for gas in any hour, in wei (PAYLINK_GASLESS_MAX_FEE_PER_HOUR). */
    readonly maxFeeWeiPerHour: bigint;
  };
}

/** A home chain's settings: its network is one of PAYLINK_NETWORK's. */
export type HomeChainSettings = ChainSettings & { readonly role: 'home'; readonly network: HomeNetwork };

/** A source chain's settings (PAYLINK_CHAINS, PAYLINK_TEST_CHAINS): `homeChainId` names where it burns to. */
export type SourceChainSettings = ChainSettings & {
  readonly role: 'source';
  readonly network: SourceNetwork;
};

/** Whether the chain is a source chain, as its type says. */
export function isSourceChain(chain: ChainSettings): chain is SourceChainSettings {
  return chain.role === 'source';
}
