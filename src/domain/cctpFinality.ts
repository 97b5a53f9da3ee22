/**
 * CCTP v2's finality thresholds, as a burn asks for one (`minFinalityThreshold`): the speed of a transfer across
 * chains is the operator's choice per source chain (docs/decisions/0029-bridge-settlement.md).
 */

/** `minFinalityThreshold` at most this asks for a fast transfer (soft finality, a fee). */
export const FINALITY_FAST = 1000;
/** `minFinalityThreshold` at least this asks for a standard transfer (hard finality, free). */
export const FINALITY_STANDARD = 2000;
