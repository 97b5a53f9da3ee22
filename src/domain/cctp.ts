/** Circle's CCTP domain ids of the chains Paylink knows (not chain ids; a testnet shares its mainnet's id). */
export const CCTP_DOMAINS = {
  ethereum: 0,
  avalanche: 1,
  optimism: 2,
  arbitrum: 3,
  base: 6,
  polygon: 7,
} as const;
