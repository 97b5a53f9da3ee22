import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * A local anvil node from the `@foundry-rs/anvil` npm package, for the sandbox and the tests: started on a
 * port, awaited until it answers, stopped, and never outliving the process that started it (see `WATCHDOG`).
 */
export interface AnvilProcess {
  readonly rpcUrl: string;
  readonly child: ChildProcess;
  /** The last few KiB anvil wrote to stderr, for error messages. */
  stderr(): string;
  stop(): Promise<void>;
}

const READY_POLL_INTERVAL_MS = 50;
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const STDERR_LIMIT_CHARS = 4_000;

const running = new Set<ChildProcess>();
let exitHooksInstalled = false;

/**
 * The anvil binary of this platform, from the package's platform-specific optional dependency. Not the
 * package's `bin.mjs` launcher: that is a Node process in front of the binary, which forwards SIGTERM but dies
 * alone on SIGKILL and leaves the node running.
 */
function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  try {
    return require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/anvil`);
  } catch {
    throw new AnvilMissingError();
  }
}

export class AnvilMissingError extends Error {
  override readonly name = 'AnvilMissingError';
  constructor() {
    super(
      'anvil is not installed: the sandbox runs a local chain with it. Install the development dependencies ' +
        '(`npm install`, which includes @foundry-rs/anvil), or point PAYLINK_RPC_URL at a running node.',
    );
  }
}

/**
 * Runs anvil under `sh`, which holds the read end of a pipe whose write end only this process has. When this
 * process ends, however it ends (SIGKILL included), the pipe closes, `read` returns, and anvil gets SIGTERM.
 * Node cannot ask the kernel to do that itself (Linux's PR_SET_PDEATHSIG is not exposed).
 */
const WATCHDOG = '"$@" </dev/null & node=$!; read -r _; kill -TERM "$node" 2>/dev/null; wait "$node"';

export async function spawnAnvil(options: {
  host?: string;
  port: number;
  chainId: number;
  args?: readonly string[];
}): Promise<AnvilProcess> {
  installExitHooks();
  const host = options.host ?? '127.0.0.1';
  const child = spawn(
    'sh',
    [
      '-c',
      WATCHDOG,
      'anvil-watchdog',
      anvilBinary(),
      '--host',
      host,
      '--port',
      String(options.port),
      '--chain-id',
      String(options.chainId),
      ...(options.args ?? []),
    ],
    // Its own process group, so that stopping it can kill the watchdog and the node together.
    { stdio: ['pipe', 'ignore', 'pipe'], detached: true },
  );
  running.add(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_LIMIT_CHARS);
  });
  const rpcUrl = `http://${host}:${options.port}`;
  const handle: AnvilProcess = { rpcUrl, child, stderr: () => stderr, stop: () => stopChild(child) };
  try {
    await waitUntilReady(handle, options.chainId);
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}

/** The chain id a JSON-RPC endpoint answers with, or undefined when nothing answers. */
export async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { result?: string };
    return body.result === undefined ? undefined : Number(body.result);
  } catch {
    return undefined;
  }
}

async function waitUntilReady(anvil: AnvilProcess, chainId: number): Promise<void> {
  const attempts = Math.ceil(READY_TIMEOUT_MS / READY_POLL_INTERVAL_MS);
  for (let attempt = 0; attempt < attempts; attempt++) {
    const { exitCode, signalCode } = anvil.child;
    if (exitCode !== null || signalCode !== null) {
      throw new Error(`anvil exited (${exitCode ?? signalCode}) before answering: ${anvil.stderr()}`);
    }
    if ((await rpcChainId(anvil.rpcUrl)) === chainId) return;
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_INTERVAL_MS));
  }
  throw new Error(`anvil did not answer eth_chainId within ${READY_TIMEOUT_MS} ms: ${anvil.stderr()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Closing the pipe makes the watchdog send anvil SIGTERM, which lets it write its --state file.
    child.stdin?.end();
    const timer = setTimeout(() => killGroup(child), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
  running.delete(child);
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Kills every node this process started, at once (for exit paths that cannot wait). */
export function killAllAnvils(): void {
  for (const child of running) killGroup(child);
  running.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.once('exit', killAllAnvils);
}
