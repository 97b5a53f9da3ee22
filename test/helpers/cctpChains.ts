/**
 * Several real anvil chains wired like mainnets with CCTP v2: on each a TestUSDC (Circle's controls), Circle's
 * MessageTransmitterV2 and TokenMessengerV2 as the project's test contracts, every pair linked; forwarder factory
 * version 3 deployed through the deterministic deployer with one route table (so at one address on all of
 * them); and a local attestation service signing burns with test attester keys.
 */
import { type Address, type Hex, toHex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import {
  type LocalAttestationService,
  startLocalAttestationService,
} from '../../src/adapters/cctp/localAttestationService.ts';
import { deployTestCctp, linkTestCctp, type TestCctpDeployment } from '../../src/adapters/cctp/testCctp.ts';
import { deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import {
  type ChainRoute,
  deployFactoryV3,
  type FactoryV3Addresses,
} from '../../src/adapters/chain/multiChainFactory.ts';
import { ANVIL_MNEMONIC, type Anvil, startAnvil } from './anvil.ts';

export type CctpChainSpec = {
  name: string;
  chainId: number;
  domain: number;
  /** Whether the factory's table has this chain (a chain left out stands for one the operator did not enable). */
  inTable?: boolean;
  maxBurnFeeBps?: number;
};

export type CctpChain = CctpChainSpec & { anvil: Anvil; cctp: TestCctpDeployment; feeRecipient: Address };

export type CctpChains = {
  chains: Record<string, CctpChain>;
  chain(name: string): CctpChain;
  routes: ChainRoute[];
  /** The same on every chain (checked by the tests, not assumed here). */
  factories: Record<string, FactoryV3Addresses>;
  attesterKeys: Hex[];
  attestation: LocalAttestationService;
  stop(): Promise<void>;
};

/** anvil's account 0 stands for Circle (owner of USDC and CCTP), account 1 for the relayer. */
export const CIRCLE = 0;
export const RELAYER = 1;
/** The relayer's key, as a worker is given it (one key on every chain; its nonces are per chain). */
export const RELAYER_KEY: Hex = toHex(
  mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: RELAYER }).getHdKey().privateKey!,
);

export async function startCctpChains(
  specs: readonly CctpChainSpec[],
  options: {
    confirmations: { fast: number; standard: number };
    fastFeeBps: number;
    /** Blocks of the destination a fast attestation stays valid (the service's default unless said). */
    fastExpiryBlocks?: number;
    /** Deploys each chain's USDC, owned by CIRCLE (default: a TestUSDC; the gas bench's has native USDC's profile). */
    deployUsdc?: (anvil: Anvil) => Promise<Address>;
  },
): Promise<CctpChains> {
  const anvils = await Promise.all(specs.map((spec) => startAnvil({ chainId: spec.chainId, accounts: 4 })));
  const attesterKeys = [generatePrivateKey(), generatePrivateKey()];
  const attesters = attesterKeys.map((key) => privateKeyToAccount(key).address);
  const chains: Record<string, CctpChain> = {};
  try {
    await Promise.all(
      specs.map(async (spec, index) => {
        const anvil = anvils[index]!;
        const usdc = await (options.deployUsdc?.(anvil) ??
          deployTestUsdc(anvil.wallet(CIRCLE), anvil.publicClient));
        const feeRecipient = privateKeyToAccount(generatePrivateKey()).address;
        const cctp = await deployTestCctp(anvil.wallet(CIRCLE), anvil.publicClient, {
          domain: spec.domain,
          usdc,
          attesters,
          signatureThreshold: attesters.length,
          feeRecipient,
        });
        chains[spec.name] = { ...spec, anvil, cctp, feeRecipient };
      }),
    );
    const all = Object.values(chains);
    await Promise.all(
      all.map((c) =>
        linkTestCctp(
          c.anvil.wallet(CIRCLE),
          c.anvil.publicClient,
          c.cctp,
          all.map((other) => other.cctp),
        ),
      ),
    );
    const routes: ChainRoute[] = all
      .filter((c) => c.inTable !== false)
      .map((c) => ({
        chainId: c.chainId,
        domain: c.domain,
        usdc: c.cctp.usdc,
        tokenMessenger: c.cctp.tokenMessenger,
        maxBurnFeeBps: c.maxBurnFeeBps ?? 0,
      }));
    const factories: Record<string, FactoryV3Addresses> = {};
    for (const c of all) {
      // The relayer deploys it: no key of the operator's or Circle's decides the factory's address.
      factories[c.name] = await deployFactoryV3(c.anvil.wallet(RELAYER), c.anvil.publicClient, routes);
    }
    const attestation = await startLocalAttestationService({
      sources: all.map((c) => ({
        domain: c.domain,
        publicClient: c.anvil.publicClient,
        messageTransmitter: c.cctp.messageTransmitter,
        tokenMessenger: c.cctp.tokenMessenger,
      })),
      attesterKeys,
      confirmations: options.confirmations,
      fastFeeBps: options.fastFeeBps,
      ...(options.fastExpiryBlocks === undefined ? {} : { fastExpiryBlocks: options.fastExpiryBlocks }),
    });
    return {
      chains,
      chain(name) {
        const found = chains[name];
        if (found === undefined) throw new RangeError(`no chain ${name}`);
        return found;
      },
      routes,
      factories,
      attesterKeys,
      attestation,
      async stop() {
        await attestation.stop();
        await Promise.all(anvils.map((anvil) => anvil.stop()));
      },
    };
  } catch (error) {
    await Promise.all(anvils.map((anvil) => anvil.stop()));
    throw error;
  }
}
