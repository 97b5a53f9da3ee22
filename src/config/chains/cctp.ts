import type { z } from 'zod';
import { duration, url } from '../fields.ts';
import type { ChainSettings } from './settings.ts';

/**
 * Circle's attestation API (Iris), which signs each burn of a source chain before it can be minted on the home
 * chain: the mainnets' service for live payments, the testnets' for test ones; on the sandbox the local stand-in
 * that the sandbox starts (src/adapters/cctp/localAttestationService.ts).
 */
export interface CctpConfig {
  /** The live mode's service (PAYLINK_CCTP_ATTESTATION_URL); on the sandbox, the sandbox's own. */
  readonly attestationUrl: string;
  /** The test mode's (PAYLINK_TEST_CCTP_ATTESTATION_URL): Circle's testnet service, or the live one's on the same network. */
  readonly testAttestationUrl: string;
  /** How often a pending attestation is asked for again (Circle allows 35 requests a second). */
  readonly pollIntervalMs: number;
}

/**
 * Blocks on top of a transfer before a fast burn takes it (PAYLINK_<CHAIN>_FAST_CONFIRMATIONS, decision 0037): two
 * survive the one-block reorgs every chain has now and then, and cost seconds on any of them.
 */
export const DEFAULT_FAST_CONFIRMATIONS = 2;

export const IRIS_MAINNET_URL = 'https://iris-api.circle.com';
export const IRIS_TESTNET_URL = 'https://iris-api-sandbox.circle.com';

export const cctpEnv = {
  PAYLINK_CCTP_ATTESTATION_URL: url.optional(),
  PAYLINK_TEST_CCTP_ATTESTATION_URL: url.optional(),
  PAYLINK_CCTP_POLL_INTERVAL: duration('PAYLINK_CCTP_POLL_INTERVAL').default(5_000),
};

type CctpEnv = z.infer<z.ZodObject<typeof cctpEnv>>;

/** Undefined when no chain burns (no source chain in either mode): nothing asks for an attestation. */
export function cctpConfig(e: CctpEnv, chains: readonly ChainSettings[]): CctpConfig | undefined {
  if (!chains.some((chain) => chain.role === 'source')) return undefined;
  const homeOf = (mode: ChainSettings['mode']) =>
    chains.find((chain) => chain.mode === mode && chain.role === 'home');
  const live = homeOf('live');
  const test = homeOf('test');
  const serviceOf = (home: ChainSettings | undefined) =>
    home?.network === 'sandbox'
      ? sandboxAttestationUrl(home)
      : home?.network === 'amoy'
        ? IRIS_TESTNET_URL
        : IRIS_MAINNET_URL;
  const attestationUrl = e.PAYLINK_CCTP_ATTESTATION_URL ?? serviceOf(live);
  return {
    attestationUrl,
    testAttestationUrl:
      e.PAYLINK_TEST_CCTP_ATTESTATION_URL ??
      (test?.network === live?.network ? attestationUrl : serviceOf(test)),
    pollIntervalMs: e.PAYLINK_CCTP_POLL_INTERVAL,
  };
}

/** The attestation service of the mode: the field each mode reads. */
export function attestationUrlOf(cctp: CctpConfig, mode: ChainSettings['mode']): string {
  return mode === 'live' ? cctp.attestationUrl : cctp.testAttestationUrl;
}

/**
 * The sandbox's local attestation service: two ports after its first chain (8547 beside 8545 and 8546), found by
 * every process of one sandbox without another setting; PAYLINK_CCTP_ATTESTATION_URL moves it.
 */
function sandboxAttestationUrl(home: ChainSettings): string {
  const rpc = new URL(home.rpcUrls[0] ?? 'http://127.0.0.1:8545');
  return `http://${rpc.hostname}:${Number(rpc.port || '80') + 2}`;
}
