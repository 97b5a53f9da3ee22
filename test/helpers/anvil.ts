/**
 * A real anvil node per test file, on a free loopback port, killed when the test process ends even if a
 * test forgets to stop it.
 */
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  type PublicClient,
  type TestClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { type AnvilProcess, killAllAnvils, spawnAnvil } from '../../src/adapters/chain/anvilProcess.ts';
import { freePort } from './net.ts';

export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export type AnvilOptions = {
  /** Extra command-line arguments, e.g. `['--block-time', '1']`. */
  args?: readonly string[];
  /** How many of anvil's default funded accounts get a wallet client (anvil funds 10). */
  accounts?: number;
  /** The node's chain id (default 31337), e.g. 80002 to stand in for Amoy. */
  chainId?: number;
};

export type Anvil = {
  rpcUrl: string;
  chain: Chain;
  publicClient: PublicClient<Transport, Chain>;
  testClient: TestClient<'anvil', Transport, Chain>;
  /** Wallet clients of anvil's default funded accounts, in derivation order. */
  walletClients: WalletClient<Transport, Chain, Account>[];
  /** `walletClients[index]`, throwing rather than returning undefined. */
  wallet(index: number): WalletClient<Transport, Chain, Account>;
  addresses: Address[];
  stop(): Promise<void>;
};

const defaultChainId = 31337;
const portAttempts = 5;
// Local node: a short polling interval makes waitForTransactionReceipt return as soon as the block is mined.
const pollingInterval_ms = 50;

let signalHooksInstalled = false;

/** A signal skips 'exit': kill the nodes, then re-raise so the test process still dies the way it was asked to. */
function installSignalHooks(): void {
  if (signalHooksInstalled) return;
  signalHooksInstalled = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAllAnvils();
      process.kill(process.pid, signal);
    });
  }
}

/**
 * anvil's funded account `index`, derived once per process: a derivation from the mnemonic runs PBKDF2 in
 * JavaScript (tens of milliseconds, seconds for ten on the busy shared machine), and every test's node has the
 * same accounts.
 */
const derived = new Map<number, ReturnType<typeof mnemonicToAccount>>();
export function anvilAccount(index: number): ReturnType<typeof mnemonicToAccount> {
  let account = derived.get(index);
  if (account === undefined) {
    account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
    derived.set(index, account);
  }
  return account;
}

export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  installSignalHooks();
  let lastError: unknown;
  for (let attempt = 0; attempt < portAttempts; attempt++) {
    const port = await freePort();
    try {
      const chainId = options.chainId ?? defaultChainId;
      const node = await spawnAnvil({ port, chainId, args: ['--silent', ...(options.args ?? [])] });
      return clientsFor(node, options.accounts ?? 10, chainId);
    } catch (error) {
      lastError = error;
      // Another process may have taken the port between our probe and anvil's bind: try another one.
      if (!/address already in use/i.test(String(error))) break;
    }
  }
  throw lastError;
}

function clientsFor(node: AnvilProcess, accountCount: number, chainId: number): Anvil {
  const { rpcUrl } = node;
  const chain = defineChain({ ...foundry, id: chainId, rpcUrls: { default: { http: [rpcUrl] } } });
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: pollingInterval_ms });
  const testClient = createTestClient({
    mode: 'anvil',
    chain,
    transport,
    pollingInterval: pollingInterval_ms,
  });
  const walletClients = Array.from({ length: accountCount }, (_, addressIndex) =>
    createWalletClient({
      account: anvilAccount(addressIndex),
      chain,
      transport,
      pollingInterval: pollingInterval_ms,
    }),
  );
  return {
    rpcUrl,
    chain,
    publicClient,
    testClient,
    walletClients,
    wallet(index) {
      const client = walletClients[index];
      if (client === undefined)
        throw new RangeError(`anvil has ${walletClients.length} wallet clients, not ${index}`);
      return client;
    },
    addresses: walletClients.map((client) => client.account.address),
    stop: () => node.stop(),
  };
}
