import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, freePort } from '../helpers/net.ts';
import { descendantsOf, isAlive } from '../helpers/processTree.ts';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));

interface Started {
  readonly launcher: ChildProcess;
  /** The service's node and the sandbox's anvil, found under the launcher once the banner is out. */
  readonly service: { pid: number; command: string }[];
}

const started: ChildProcess[] = [];
const directories: string[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group has already gone.
    }
  }
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts the sandbox the way a newcomer does, or by `node bin/paylink.js serve`, in its own process group. */
async function startSandbox(command: 'npm start' | 'node'): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-startstop-'));
  directories.push(dir);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    PAYLINK_DATABASE_URL: `sqlite:${join(dir, 'paylink.db')}`,
    PAYLINK_API_PORT: String(await freePort()),
    PAYLINK_CHECKOUT_PORT: String(await freePort()),
    PAYLINK_RPC_URL: `http://127.0.0.1:${await freePort()}`,
    // Its second chain's and attestation service's own ports: by default the two after the first chain's, which
    // another file's server may hold.
    PAYLINK_SANDBOX_2_RPC_URL: `http://127.0.0.1:${await freePort()}`,
    PAYLINK_CCTP_ATTESTATION_URL: `http://127.0.0.1:${await freePort()}`,
    PAYLINK_SANDBOX_WEBHOOK_PORT: String(await freePort()),
    PAYLINK_LOG_LEVEL: 'info',
  };
  const [file, args] =
    command === 'npm start'
      ? ['npm', ['start', '--silent']]
      : [process.execPath, [join(REPOSITORY, 'bin/paylink.js'), 'serve']];
  const launcher = spawn(file, args, {
    cwd: REPOSITORY,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(launcher);
  let output = '';
  launcher.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  launcher.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const banner = await eventually(
    async () => output,
    (text) => text.includes('API key') || launcher.exitCode !== null,
  );
  expect(banner, output).toContain('API key');
  const service = descendantsOf(launcher.pid as number);
  expect(service.map((p) => p.command)).toContain('anvil');
  return { launcher, service };
}

async function allGone(pids: number[]): Promise<number[]> {
  return eventually(
    async () => pids.filter(isAlive),
    (alive) => alive.length === 0,
  );
}

// Real processes and a real chain: a safety net longer than the polls' own bound, not a speed limit.
describe('starting and stopping the sandbox', { timeout: 180_000 }, () => {
  it('npm start stopped by SIGTERM to npm: the service drains and its chain goes with it', async () => {
    const { launcher, service } = await startSandbox('npm start');
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
    launcher.kill('SIGTERM');
    await exited;
    expect(await allGone(service.map((p) => p.pid))).toEqual([]);
  });

  it('npm start stopped by Ctrl-C (SIGINT to the whole foreground group): nothing is left running', async () => {
    const { launcher, service } = await startSandbox('npm start');
    const exited = new Promise<void>((resolve) => launcher.once('exit', () => resolve()));
    process.kill(-(launcher.pid as number), 'SIGINT');
    await exited;
    expect(await allGone(service.map((p) => p.pid))).toEqual([]);
  });

  it('a service killed outright (SIGKILL, no clean-up at all) does not leave its anvils behind', async () => {
    const { launcher, service } = await startSandbox('node');
    const anvil = service.filter((p) => p.command === 'anvil').map((p) => p.pid);
    // The sandbox's two chains (decision 0032).
    expect(anvil).toHaveLength(2);
    launcher.kill('SIGKILL');
    expect(await allGone(anvil)).toEqual([]);
  });
});
