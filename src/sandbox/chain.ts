import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { type AnvilProcess, rpcChainId, spawnAnvil } from '../adapters/chain/anvilProcess.ts';
import { forwarderFactoryV2Abi, testUsdcAbi } from '../adapters/chain/contractAbis.ts';
import { holdsCode } from '../adapters/chain/contractCode.ts';
import {
  deployFactory,
  deploySubscriptionCharger,
  deployTestUsdc,
  LATEST_FORWARDER_VERSION,
  TEST_TOKENS,
} from '../adapters/chain/deployContracts.ts';
import { type ChainRoute, deployFactoryV3, predictFactoryV3 } from '../adapters/chain/multiChainFactory.ts';
import { revertReasonOf } from '../adapters/chain/revertReason.ts';
import { portIsFree, StartRefusedError, someFreePort } from '../adapters/web/freePorts.ts';
import type { Config } from '../config/index.ts';
import { SANDBOX_BLOCK_TIME_S, withInstantBlocks } from './instantBlocks.ts';

/**
 * The sandbox's chain: a local anvil (2 s blocks; the `finalized` tag trails latest by 2 blocks, as on a
 * real chain with fast finality), a test USDC and the forwarder factory deployed on it, and a customer account
 * holding USDC for `paylink sandbox pay`. The chain's state is kept in the state directory across restarts,
 * so payments created earlier keep their deposit addresses.
 *
 * Everything here uses anvil's well-known development mnemonic: these keys are public and worth nothing.
 */
const SANDBOX_CHAIN_ID = 31337;
const SANDBOX_MNEMONIC = 'test test test test test test test test test test test junk';
export const SANDBOX_ACCOUNTS = {
  relayer: 0,
  merchant: 1,
  customer: 2,
  gaslessRelayer: 5,
  /** Signs the local attestation service's attestations (the test attester of the sandbox's CCTP). */
  attester: 7,
  /** Receives what fast CCTP transfers pay, as Circle's fee recipient does. */
  cctpFees: 8,
  treasury: 9,
} as const;
const CUSTOMER_FUNDING_BASE_UNITS = 1_000_000n * 1_000_000n; // 1,000,000 USDC

/** Each account is derived once per process: a derivation runs PBKDF2 in JavaScript, tens of milliseconds. */
const derivedAccounts = new Map<number, ReturnType<typeof mnemonicToAccount>>();

export function sandboxAccount(index: number): ReturnType<typeof mnemonicToAccount> {
  let account = derivedAccounts.get(index);
  if (account === undefined) {
    account = mnemonicToAccount(SANDBOX_MNEMONIC, { addressIndex: index });
    derivedAccounts.set(index, account);
  }
  return account;
}

export function sandboxPrivateKey(index: number): Hex {
  const key = sandboxAccount(index).getHdKey().privateKey;
  if (!key) throw new Error('no private key derived');
  return `0x${Buffer.from(key).toString('hex')}`;
}

/** `chainId`: another id for a local node standing in for another network (a test chain on anvil). */
export const sandboxChain = (rpcUrl: string, chainId: number = SANDBOX_CHAIN_ID) =>
  defineChain({
    id: chainId,
    name: 'Paylink sandbox',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });

export interface SandboxContracts {
  readonly usdc: Address;
  /** The stand-in for bridged USDC.e (PAYLINK_ACCEPTED_TOKENS / PAYLINK_NOTICED_TOKENS). */
  readonly bridgedUsdc: Address;
  readonly factory: Address;
  /** Pull renewal's charger (decision 0061): the sandbox's PAYLINK_SUBSCRIPTION_CHARGER unless one is set. */
  readonly subscriptionCharger: Address;
}

export interface SandboxChain extends SandboxContracts {
  readonly rpcUrl: string;
  readonly treasury: Address;
  readonly relayerKey: Hex;
  /** Whether this process started the node (else it joined one another process of the sandbox started). */
  readonly started: boolean;
  /** Stops the node this process started (none if it joined one already running). */
  stop(): Promise<void>;
}

/**
 * Starts the sandbox node at `rpcUrl`, or joins it when it is this sandbox's own (another process of the same
 * sandbox started it), and makes sure the contracts are there. A node there that is not this sandbox's — another
 * sandbox's chain, with other data beside it — is refused before anything is deployed: deploying into it
 * mixed two sandboxes' payments on one chain.
 */
export async function startSandboxChain(
  rpcUrl: string,
  stateDir: string,
  logger: Logger,
): Promise<SandboxChain> {
  const node = await startOrJoinSandboxNode({
    rpcUrl,
    chainId: SANDBOX_CHAIN_ID,
    stateDir,
    stateFile: 'anvil-state.json',
    savedFile: 'sandbox-chain.json',
    variable: 'PAYLINK_RPC_URL',
  });
  if (node) logger.info({ rpcUrl }, 'sandbox chain started');
  try {
    const contracts = await ensureContracts(rpcUrl, stateDir, logger, node !== undefined);
    return {
      ...contracts,
      rpcUrl,
      treasury: sandboxAccount(SANDBOX_ACCOUNTS.treasury).address,
      relayerKey: sandboxPrivateKey(SANDBOX_ACCOUNTS.relayer),
      started: node !== undefined,
      stop: async () => node?.stop(),
    };
  } catch (error) {
    await node?.stop();
    throw error;
  }
}

/**
 * Starts a sandbox node (2 s blocks, `finalized` two blocks behind, its state kept in `stateFile`), or answers
 * undefined when the node at `rpcUrl` is already this sandbox's (its first block is the one `savedFile`
 * remembers). Anything else there is refused naming `variable`, before anything is deployed into it.
 */
export async function startOrJoinSandboxNode(options: {
  rpcUrl: string;
  chainId: number;
  stateDir: string;
  stateFile: string;
  savedFile: string;
  variable: string;
}): Promise<AnvilProcess | undefined> {
  const { rpcUrl, chainId, stateDir, variable } = options;
  const answering = await rpcChainId(rpcUrl);
  const { hostname, port } = new URL(rpcUrl);
  if (answering === undefined) {
    if (!(await portIsFree(hostname, Number(port)))) {
      throw new StartRefusedError(
        `${rpcUrl} is taken by a program that is not a sandbox chain: set ${variable} to a free port, such as http://${hostname}:${await someFreePort(hostname)}`,
      );
    }
    return spawnAnvil({
      host: hostname,
      port: Number(port),
      chainId,
      args: [
        '--block-time',
        String(SANDBOX_BLOCK_TIME_S),
        '--slots-in-an-epoch',
        '1',
        '--state',
        join(stateDir, options.stateFile),
        '--state-interval',
        '10',
        '--silent',
      ],
    });
  }
  if (answering !== chainId) {
    throw new StartRefusedError(
      `${rpcUrl} answers as chain ${answering}, not the sandbox's ${chainId}: set ${variable} to a free port`,
    );
  }
  if (!(await isOwnChain(rpcUrl, stateDir, options.savedFile))) {
    throw new StartRefusedError(
      `${rpcUrl} is another sandbox's chain (this one's data is in ${stateDir}): stop that sandbox, or set ${variable} to a free port, such as http://${hostname}:${await someFreePort(hostname)}`,
    );
  }
  return undefined;
}

/**
 * What the state directory remembers of its chain: the contracts, and the hash of the chain's first block, which
 * anvil keeps across restarts from its --state file and which differs between any two chains it started afresh.
 */
interface SavedChain extends SandboxContracts {
  readonly genesisHash?: Hex;
}

export function genesisHashOf(rpcUrl: string): Promise<Hex> {
  const client = createPublicClient({ chain: sandboxChain(rpcUrl), transport: http(rpcUrl) });
  return client.getBlock({ blockNumber: 0n }).then((block) => block.hash);
}

/**
 * Whether the node answering at `rpcUrl` is the chain this state directory's sandbox made. A directory with no
 * chain yet owns none; one saved before the first block's hash was kept is trusted as before (its contracts'
 * code is checked next).
 */
async function isOwnChain(rpcUrl: string, stateDir: string, savedFile: string): Promise<boolean> {
  const file = join(stateDir, savedFile);
  if (!existsSync(file)) return false;
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<SavedChain>;
  return saved.genesisHash === undefined || saved.genesisHash === (await genesisHashOf(rpcUrl));
}

/** `ownNode`: this process started the node, at the sandbox's pace, so it may mine the deployment at once. */
async function ensureContracts(
  rpcUrl: string,
  stateDir: string,
  logger: Logger,
  ownNode: boolean,
): Promise<SandboxContracts> {
  const chain = sandboxChain(rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 250 });
  const file = join(stateDir, 'sandbox-chain.json');
  const genesisHash = await genesisHashOf(rpcUrl);
  const hasCode = async (address: Address | undefined) => {
    if (address === undefined) return false;
    const code = await publicClient.getCode({ address });
    return code !== undefined && code !== '0x';
  };
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<SavedChain>;
    if ((await hasCode(saved.usdc)) && (await hasCode(saved.factory))) {
      // A sandbox made by an earlier version is brought up to date in place, keeping its token and what was
      // paid on it: a version 2 factory for new payments (older ones keep theirs: each payment records its
      // factory), and the USDC.e stand-in.
      const deployer = sandboxDeployer(rpcUrl);
      const upgraded: SandboxContracts = {
        usdc: saved.usdc!,
        factory: (await isLatestFactory(rpcUrl, saved.factory!))
          ? saved.factory!
          : getAddress((await deployFactory(deployer, publicClient)).factory),
        bridgedUsdc: (await hasCode(saved.bridgedUsdc))
          ? saved.bridgedUsdc!
          : await deployFundedToken(deployer, publicClient, TEST_TOKENS['USDC.e']),
        // A sandbox from before pull renewal gets its charger.
        subscriptionCharger: (await hasCode(saved.subscriptionCharger))
          ? saved.subscriptionCharger!
          : await deploySubscriptionCharger(deployer, publicClient as PublicClient),
      };
      if (
        upgraded.factory !== saved.factory ||
        upgraded.bridgedUsdc !== saved.bridgedUsdc ||
        upgraded.subscriptionCharger !== saved.subscriptionCharger
      ) {
        writeFileSync(file, `${JSON.stringify({ ...upgraded, genesisHash }, null, 2)}\n`);
        logger.warn(upgraded, 'sandbox contracts upgraded');
      } else if (saved.genesisHash === undefined) {
        writeFileSync(file, `${JSON.stringify({ ...upgraded, genesisHash }, null, 2)}\n`);
      }
      return upgraded;
    }
    logger.warn('sandbox chain has no contracts (state lost?): deploying them again');
  }
  // Six transactions, each otherwise waiting for a 2 s block: some twelve seconds of every first start.
  const contracts = ownNode
    ? await withInstantBlocks([publicClient as PublicClient], () => deploySandboxContracts(rpcUrl))
    : await deploySandboxContracts(rpcUrl);
  writeFileSync(file, `${JSON.stringify({ ...contracts, genesisHash }, null, 2)}\n`);
  logger.info(contracts, 'sandbox contracts deployed');
  return contracts;
}

/**
 * Deploys a test USDC, the forwarder factory and pull renewal's charger from the relayer account and funds the
 * customer account: the
 * sandbox's contracts on a fresh chain (also used by tests and benchmarks that run their own node).
 */
export async function deploySandboxContracts(
  rpcUrl: string,
  chainId: number = SANDBOX_CHAIN_ID,
): Promise<SandboxContracts> {
  // The wallet client checks the node's chain id before sending: it must be the node's own.
  const chain = sandboxChain(rpcUrl, chainId);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 });
  const deployer = sandboxDeployer(rpcUrl, chainId);
  const usdc = await deployFundedToken(deployer, publicClient, TEST_TOKENS.USDC);
  const bridgedUsdc = await deployFundedToken(deployer, publicClient, TEST_TOKENS['USDC.e']);
  const { factory } = await deployFactory(deployer, publicClient);
  const subscriptionCharger = await deploySubscriptionCharger(deployer, publicClient);
  return { usdc, bridgedUsdc, factory: getAddress(factory), subscriptionCharger };
}

/**
 * The version 3 factory of `routes` on the sandbox chain (decision 0038), deployed from the relayer account where
 * it is not yet. Idempotent; two processes of one sandbox starting together may both send it, and the second's
 * transaction then fails on the first's contract, which is the one wanted.
 */
export async function ensureSandboxFactoryV3(
  rpcUrl: string,
  routes: readonly ChainRoute[],
): Promise<Address> {
  const publicClient = createPublicClient({
    chain: sandboxChain(rpcUrl),
    transport: http(rpcUrl),
    pollingInterval: 250,
  });
  try {
    return getAddress(
      (await deployFactoryV3(sandboxDeployer(rpcUrl), publicClient as PublicClient, routes)).factory,
    );
  } catch (error) {
    const { factory } = await predictFactoryV3(routes);
    if (await holdsCode(publicClient as PublicClient, factory)) return getAddress(factory);
    throw error;
  }
}

/** A test token, with the sandbox customer holding 1,000,000 of it. */
export async function deployFundedToken(
  deployer: ReturnType<typeof sandboxDeployer>,
  publicClient: PublicClient,
  token: { readonly name: string; readonly symbol: string },
): Promise<Address> {
  const address = await deployTestUsdc(deployer, publicClient, token);
  const mint = await deployer.writeContract({
    address,
    abi: testUsdcAbi,
    functionName: 'mint',
    args: [sandboxAccount(SANDBOX_ACCOUNTS.customer).address, CUSTOMER_FUNDING_BASE_UNITS],
  });
  await publicClient.waitForTransactionReceipt({ hash: mint });
  return getAddress(address);
}

/** The sandbox's deployer (and relayer, and token owner): anvil's account 0. */
export function sandboxDeployer(rpcUrl: string, chainId: number = SANDBOX_CHAIN_ID) {
  return createWalletClient({
    account: sandboxAccount(SANDBOX_ACCOUNTS.relayer),
    chain: sandboxChain(rpcUrl, chainId),
    transport: http(rpcUrl),
  });
}

/** Whether the factory is of the current forwarder version (version 1 has no VERSION(): the call reverts). */
async function isLatestFactory(rpcUrl: string, factory: Address): Promise<boolean> {
  const client = createPublicClient({ chain: sandboxChain(rpcUrl), transport: http(rpcUrl) });
  try {
    const version = await client.readContract({
      address: factory,
      abi: forwarderFactoryV2Abi,
      functionName: 'VERSION',
    });
    return version === BigInt(LATEST_FORWARDER_VERSION);
  } catch (error) {
    if (revertReasonOf(error, forwarderFactoryV2Abi) === undefined) throw error;
    return false;
  }
}

/** The contracts of a running sandbox, as recorded when they were deployed. */
/** Where the sandbox keeps its state: beside the SQLite database, or ./data. */
export function stateDirOf(config: Config): string {
  const dir = config.databaseUrl.startsWith('sqlite:')
    ? dirname(config.databaseUrl.slice('sqlite:'.length))
    : 'data';
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function readSandboxContracts(stateDir: string): SandboxContracts | undefined {
  const file = join(stateDir, 'sandbox-chain.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SandboxContracts) : undefined;
}
