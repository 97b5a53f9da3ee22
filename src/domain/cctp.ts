/**
 * Circle's CCTP v2 numbers the service speaks: the domain of each chain it knows, and the finality thresholds a
 * burn asks for. Protocol constants, the same on every deployment; which chain uses which is the configuration's
 * (src/config/chains/).
 */

/** Circle's CCTP domain ids of the chains Paylink knows (not chain ids; a testnet shares its mainnet's id). */
export const CCTP_DOMAINS = {
  ethereum: 0,
  avalanche: 1,
  optimism: 2,
  arbitrum: 3,
  base: 6,
  polygon: 7,
} as const;

/*
 * CCTP v2's finality thresholds, as a burn asks for one (`minFinalityThreshold`): the speed of a transfer across
 * chains is the operator's choice per source chain (docs/decisions/0029-bridge-settlement.md).
 */

/** `minFinalityThreshold` at most this asks for a fast transfer (soft finality, a fee). */
export const FINALITY_FAST = 1000;
/** `minFinalityThreshold` at least this asks for a standard transfer (hard finality, free). */
export const FINALITY_STANDARD = 2000;
