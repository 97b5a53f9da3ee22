/**
 * A real anvil node per test file, on a free loopback port, killed when the test process ends even if a
 * test forgets to stop it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
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

export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export type AnvilOptions = {
  /** Extra command-line arguments, e.g. `['--block-time', '1']`. */
  args?: readonly string[];
  /** How many of anvil's default funded accounts get a wallet client (anvil funds 10). */
  accounts?: number;
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

const chainId = 31337;
const portAttempts = 5;
const readyPollInterval_ms = 50;
const readyTimeout_ms = 30_000;
const stopGrace_ms = 5_000;
const stderrLimit_chars = 4_000;
// Local node: a short polling interval makes waitForTransactionReceipt return as soon as the block is mined.
const pollingInterval_ms = 50;

const running = new Set<ChildProcess>();
let exitHooksInstalled = false;

export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  installExitHooks();
  const binary = anvilBinary();
  let lastError: unknown;
  for (let attempt = 0; attempt < portAttempts; attempt++) {
    const port = await freePort();
    const child = spawn(
      binary,
      [
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--chain-id',
        String(chainId),
        '--silent',
        ...(options.args ?? []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    running.add(child);
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-stderrLimit_chars);
    });
    const rpcUrl = `http://127.0.0.1:${port}`;
    try {
      await waitUntilReady(child, rpcUrl, () => stderr);
      return clientsFor(child, rpcUrl, options.accounts ?? 10);
    } catch (error) {
      lastError = error;
      await stopChild(child);
      // Another process may have taken the port between our probe and anvil's bind: try another one.
      if (!/address already in use/i.test(stderr)) break;
    }
  }
  throw lastError;
}

function clientsFor(child: ChildProcess, rpcUrl: string, accountCount: number): Anvil {
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
      account: mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex }),
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
    stop: () => stopChild(child),
  };
}

function anvilBinary(): string {
  try {
    return createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/bin/anvil');
  } catch {
    const fallback = fileURLToPath(new URL('../../node_modules/.bin/anvil', import.meta.url));
    if (existsSync(fallback)) return fallback;
    throw new Error('anvil binary not found: is @foundry-rs/anvil installed?');
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not read the probe server port'));
      });
    });
  });
}

async function waitUntilReady(child: ChildProcess, rpcUrl: string, stderr: () => string): Promise<void> {
  const attempts = Math.ceil(readyTimeout_ms / readyPollInterval_ms);
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`anvil exited (${child.exitCode ?? child.signalCode}) before answering: ${stderr()}`);
    }
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      const body = (await response.json()) as { result?: string };
      if (body.result !== undefined && Number(body.result) === chainId) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, readyPollInterval_ms));
  }
  throw new Error(`anvil did not answer eth_chainId within ${readyTimeout_ms} ms: ${stderr()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), stopGrace_ms);
    await exited;
    clearTimeout(timer);
  }
  running.delete(child);
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  const killAll = () => {
    for (const child of running) child.kill('SIGKILL');
    running.clear();
  };
  process.once('exit', killAll);
  // A signal skips 'exit': kill the nodes, then re-raise so the process still dies the way it was asked to.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}
