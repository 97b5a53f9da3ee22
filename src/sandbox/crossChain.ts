/**
 * The sandbox's second chain and what joins it to the first (decision 0032): a second local anvil (`sandbox-2`,
 * CCTP domain 6, standing in for Base) with its own TestUSDC, the project's CCTP v2 test contracts on both chains
 * linked both ways, forwarder factory version 3 of the two chains' route table at one address on both, and the
 * local attestation service signing burns with the sandbox's test attester key. Its state is kept in the state
 * directory beside the first chain's, so payments made earlier keep their addresses on both chains.
 *
 * Everything here uses anvil's well-known development mnemonic: these keys are public and worth nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type Address, createPublicClient, type Hex, http, type PublicClient } from 'viem';
import {
  type LocalAttestationService,
  startLocalAttestationService,
} from '../adapters/cctp/localAttestationService.ts';
import { deployTestCctp, linkTestCctp, type TestCctpDeployment } from '../adapters/cctp/testCctp.ts';
import { holdsCode } from '../adapters/chain/contractCode.ts';
import { TEST_TOKENS } from '../adapters/chain/deployContracts.ts';
import { deployFactoryV3, type FactoryV3Addresses } from '../adapters/chain/multiChainFactory.ts';
import { routeTable } from '../adapters/chain/routeTable.ts';
import { portIsFree, StartRefusedError, someFreePort } from '../adapters/web/freePorts.ts';
import type { ChainSettings } from '../config/index.ts';
import {
  deployFundedToken,
  genesisHashOf,
  SANDBOX_ACCOUNTS,
  type SandboxChain,
  sandboxAccount,
  sandboxChain,
  sandboxDeployer,
  sandboxPrivateKey,
  startOrJoinSandboxNode,
} from './chain.ts';
import { withInstantBlocks } from './instantBlocks.ts';

const SAVED_FILE = 'sandbox-chain-2.json';

/** What the state directory remembers of the second chain and of CCTP on both. */
export interface SandboxCrossChainContracts {
  /** The version 3 factory, at this address on both chains: new sandbox payments use it. */
  readonly factory: Address;
  readonly home: {
    readonly domain: number;
    readonly messageTransmitter: Address;
    readonly tokenMessenger: Address;
  };
  readonly second: {
    readonly chainId: number;
    readonly domain: number;
    readonly usdc: Address;
    readonly messageTransmitter: Address;
    readonly tokenMessenger: Address;
  };
}

interface SavedCrossChain extends SandboxCrossChainContracts {
  readonly genesisHash: Hex;
}

export interface SandboxCrossChain extends SandboxCrossChainContracts {
  readonly secondRpcUrl: string;
  readonly attestationUrl: string;
  stop(): Promise<void>;
}

/** The local attestation service's pace: blocks after a burn before it signs (2 s blocks). */
const ATTESTATION_CONFIRMATIONS = { fast: 1, standard: 3 };
/** What a fast transfer costs on the sandbox, as Circle's is on most chains. */
const FAST_FEE_BPS = 1;

/**
 * Starts (or joins) the second chain, makes sure both chains' CCTP and the version 3 factory are there, and, in
 * the process that started the first chain, the local attestation service at `attestationUrl`.
 */
export async function startSandboxCrossChain(
  home: SandboxChain,
  homeSettings: ChainSettings,
  second: ChainSettings,
  attestationUrl: string,
  stateDir: string,
  logger: Logger,
): Promise<SandboxCrossChain> {
  const secondRpcUrl = second.rpcUrls[0]!;
  const node = await startOrJoinSandboxNode({
    rpcUrl: secondRpcUrl,
    chainId: second.chainId,
    stateDir,
    stateFile: 'anvil-state-2.json',
    savedFile: SAVED_FILE,
    variable: `${second.variablePrefix}RPC_URL`,
  });
  if (node) logger.info({ rpcUrl: secondRpcUrl }, 'sandbox second chain started');
  let attestation: LocalAttestationService | undefined;
  try {
    const contracts = await ensureCrossChainContracts(home, homeSettings, second, stateDir, logger);
    if (home.started) attestation = await startAttestation(home, contracts, secondRpcUrl, attestationUrl);
    return {
      ...contracts,
      secondRpcUrl,
      attestationUrl,
      stop: async () => {
        await attestation?.stop();
        await node?.stop();
      },
    };
  } catch (error) {
    await attestation?.stop();
    await node?.stop();
    throw error;
  }
}

/** The contracts as saved, when both chains still hold their code; else deployed afresh and saved. */
async function ensureCrossChainContracts(
  home: SandboxChain,
  homeSettings: ChainSettings,
  second: ChainSettings,
  stateDir: string,
  logger: Logger,
): Promise<SandboxCrossChainContracts> {
  const file = join(stateDir, SAVED_FILE);
  const secondRpcUrl = second.rpcUrls[0]!;
  const homeClient = clientOf(home.rpcUrl, homeSettings.chainId);
  const secondClient = clientOf(secondRpcUrl, second.chainId);
  const genesisHash = await genesisHashOf(secondRpcUrl);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as SavedCrossChain;
    const present = await Promise.all([
      holdsCode(homeClient, saved.factory),
      holdsCode(homeClient, saved.home.tokenMessenger),
      holdsCode(secondClient, saved.factory),
      holdsCode(secondClient, saved.second.usdc),
    ]);
    if (saved.genesisHash === genesisHash && present.every(Boolean)) return saved;
    logger.warn('sandbox second chain has lost its contracts (state lost?): deploying them again');
  }
  const contracts = await deployCrossChain(home, homeSettings, second, homeClient, secondClient);
  writeFileSync(file, `${JSON.stringify({ ...contracts, genesisHash }, null, 2)}\n`);
  logger.info(contracts, 'sandbox cross-chain contracts deployed');
  return contracts;
}

async function deployCrossChain(
  home: SandboxChain,
  homeSettings: ChainSettings,
  second: ChainSettings,
  homeClient: PublicClient,
  secondClient: PublicClient,
): Promise<SandboxCrossChainContracts> {
  const homeDeployer = sandboxDeployer(home.rpcUrl, homeSettings.chainId);
  const secondDeployer = sandboxDeployer(second.rpcUrls[0]!, second.chainId);
  return withInstantBlocks([homeClient, secondClient], async () => {
    const secondUsdc = await deployFundedToken(secondDeployer, secondClient, TEST_TOKENS.USDC);
    const cctpOptions = {
      attesters: [sandboxAccount(SANDBOX_ACCOUNTS.attester).address],
      signatureThreshold: 1,
      feeRecipient: sandboxAccount(SANDBOX_ACCOUNTS.cctpFees).address,
    };
    const [homeCctp, secondCctp] = await Promise.all([
      deployTestCctp(homeDeployer, homeClient, {
        ...cctpOptions,
        domain: homeSettings.cctp!.domain,
        usdc: home.usdc,
      }),
      deployTestCctp(secondDeployer, secondClient, {
        ...cctpOptions,
        domain: second.cctp!.domain,
        usdc: secondUsdc,
      }),
    ]);
    await Promise.all([
      linkTestCctp(homeDeployer, homeClient, homeCctp, [secondCctp]),
      linkTestCctp(secondDeployer, secondClient, secondCctp, [homeCctp]),
    ]);
    const routes = routeTable([withCctp(homeSettings, homeCctp), withCctp(second, secondCctp)]);
    const [onHome, onSecond] = await Promise.all([
      deployFactoryV3(homeDeployer, homeClient, routes),
      deployFactoryV3(secondDeployer, secondClient, routes),
    ]);
    if (onHome.factory !== onSecond.factory)
      throw new Error('the factory differs between the sandbox chains');
    return {
      factory: (onHome satisfies FactoryV3Addresses).factory,
      home: {
        domain: homeCctp.domain,
        messageTransmitter: homeCctp.messageTransmitter,
        tokenMessenger: homeCctp.tokenMessenger,
      },
      second: {
        chainId: second.chainId,
        domain: secondCctp.domain,
        usdc: secondUsdc,
        messageTransmitter: secondCctp.messageTransmitter,
        tokenMessenger: secondCctp.tokenMessenger,
      },
    };
  });
}

/** The chain's settings with the addresses the sandbox deployed: the route table is made from them. */
function withCctp(chain: ChainSettings, cctp: TestCctpDeployment): ChainSettings {
  return {
    ...chain,
    usdcAddress: cctp.usdc,
    cctp: {
      ...chain.cctp!,
      tokenMessenger: cctp.tokenMessenger,
      messageTransmitter: cctp.messageTransmitter,
    },
  };
}

async function startAttestation(
  home: SandboxChain,
  contracts: SandboxCrossChainContracts,
  secondRpcUrl: string,
  attestationUrl: string,
): Promise<LocalAttestationService> {
  const { hostname, port } = new URL(attestationUrl);
  if (!(await portIsFree(hostname, Number(port)))) {
    throw new StartRefusedError(
      `port ${port} on ${hostname} is in use (the sandbox's attestation service): set PAYLINK_CCTP_ATTESTATION_URL to a free port, such as http://${hostname}:${await someFreePort(hostname)}`,
    );
  }
  const homeClient = clientOf(home.rpcUrl);
  return startLocalAttestationService({
    sources: [
      {
        domain: contracts.home.domain,
        publicClient: homeClient,
        messageTransmitter: contracts.home.messageTransmitter,
        tokenMessenger: contracts.home.tokenMessenger,
      },
      {
        domain: contracts.second.domain,
        publicClient: clientOf(secondRpcUrl, contracts.second.chainId),
        messageTransmitter: contracts.second.messageTransmitter,
        tokenMessenger: contracts.second.tokenMessenger,
      },
    ],
    attesterKeys: [sandboxPrivateKey(SANDBOX_ACCOUNTS.attester)],
    confirmations: ATTESTATION_CONFIRMATIONS,
    fastFeeBps: FAST_FEE_BPS,
    host: hostname,
    port: Number(port),
  });
}

function clientOf(rpcUrl: string, chainId?: number): PublicClient {
  return createPublicClient({
    chain: sandboxChain(rpcUrl, chainId),
    transport: http(rpcUrl),
    pollingInterval: 100,
  }) as PublicClient;
}

/** The cross-chain contracts of a running sandbox, as recorded when they were deployed. */
export function readSandboxCrossChain(stateDir: string): SandboxCrossChainContracts | undefined {
  const file = join(stateDir, SAVED_FILE);
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as SandboxCrossChainContracts)
    : undefined;
}
