/**
 * Two sandboxes on one machine, as real processes: each owns its chain. A second one pointed at the first one's
 * chain, or at a port the first one serves, stops with one line naming the variable to set, before it deploys
 * anything (it once deployed its contracts into the other sandbox's chain, then died with an EADDRINUSE stack).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcChainId } from '../../src/adapters/chain/anvilProcess.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount } from '../../src/sandbox/chain.ts';
import { builtPaylinkBin } from '../helpers/builtCli.ts';
import { eventually, freePort } from '../helpers/net.ts';

interface Sandbox {
  readonly dir: string;
  readonly env: Record<string, string>;
}

const running: ChildProcess[] = [];
const directories: string[] = [];

async function sandbox(overrides: Record<string, string> = {}): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-side-'));
  directories.push(dir);
  const env = {
    PATH: process.env.PATH ?? '',
    PAYLINK_DATABASE_URL: `sqlite:${join(dir, 'paylink.db')}`,
    PAYLINK_API_PORT: String(await freePort()),
    PAYLINK_CHECKOUT_PORT: String(await freePort()),
    PAYLINK_RPC_URL: `http://127.0.0.1:${await freePort()}`,
    PAYLINK_SANDBOX_WEBHOOK_PORT: String(await freePort()),
    // Its second chain and attestation service too: by default they take the ports after the first chain's,
    // which another file's process may hold (a full run failed so).
    PAYLINK_SANDBOX_2_RPC_URL: `http://127.0.0.1:${await freePort()}`,
    PAYLINK_CCTP_ATTESTATION_URL: `http://127.0.0.1:${await freePort()}`,
    PAYLINK_LOG_LEVEL: 'info',
    ...overrides,
  };
  return { dir, env };
}

/** Starts it and waits for its banner. */
async function start(box: Sandbox): Promise<ChildProcess> {
  const child = spawn(process.execPath, [await builtPaylinkBin(), 'serve'], {
    env: box.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const banner = await eventually(
    async () => output,
    (text) => text.includes('API key') || child.exitCode !== null,
  );
  expect(banner).toContain('API key');
  return child;
}

/** Runs one that must refuse to start: its exit code and what it printed on stderr. */
async function refused(box: Sandbox): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [await builtPaylinkBin(), 'serve'], {
    env: box.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

const deployerNonce = (rpcUrl: string) =>
  createPublicClient({ chain: foundry, transport: http(rpcUrl) }).getTransactionCount({
    address: sandboxAccount(SANDBOX_ACCOUNTS.relayer).address,
  });

const savedChain = (box: Sandbox) =>
  JSON.parse(readFileSync(join(box.dir, 'sandbox-chain.json'), 'utf8')) as { genesisHash: string };

// Real processes and real chains: a safety net longer than the polls' own bound, not a speed limit.
describe('two sandboxes side by side', { timeout: 180_000 }, () => {
  let first: Sandbox;
  let firstNonce: number;

  beforeAll(async () => {
    first = await sandbox();
    await start(first);
    firstNonce = await deployerNonce(first.env.PAYLINK_RPC_URL!);
  });

  afterAll(async () => {
    await Promise.all(
      running.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    for (const dir of directories) rmSync(dir, { recursive: true, force: true });
  });

  it("a second sandbox pointed at the first one's chain stops with one line, deploying nothing there", async () => {
    const second = await sandbox({ PAYLINK_RPC_URL: first.env.PAYLINK_RPC_URL! });
    const { code, stderr } = await refused(second);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(
      new RegExp(
        `^error: ${first.env.PAYLINK_RPC_URL}/? is another sandbox's chain .* set PAYLINK_RPC_URL to a free port`,
      ),
    );
    expect(existsSync(join(second.dir, 'sandbox-chain.json'))).toBe(false);
    expect(await deployerNonce(first.env.PAYLINK_RPC_URL!)).toBe(firstNonce);
  });

  it.each([['PAYLINK_API_PORT'], ['PAYLINK_CHECKOUT_PORT'], ['PAYLINK_SANDBOX_WEBHOOK_PORT']])(
    'a second sandbox on a port the first one serves (%s) stops with one line naming it, before any chain',
    async (variable) => {
      const second = await sandbox({ [variable]: first.env[variable]! });
      const { code, stderr } = await refused(second);
      expect(code).toBe(2);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(
        new RegExp(
          `^error: port ${first.env[variable]} on 127\\.0\\.0\\.1 is in use .*: set ${variable} to a free port`,
        ),
      );
      // No chain started for it, none deployed to.
      expect(await rpcChainId(second.env.PAYLINK_RPC_URL!)).toBeUndefined();
      expect(existsSync(join(second.dir, 'sandbox-chain.json'))).toBe(false);
      expect(await deployerNonce(first.env.PAYLINK_RPC_URL!)).toBe(firstNonce);
    },
  );

  it('a second sandbox on ports of its own runs beside the first, on a chain of its own', async () => {
    const second = await sandbox();
    await start(second);
    expect(savedChain(second).genesisHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(savedChain(second).genesisHash).not.toBe(savedChain(first).genesisHash);
    expect(await deployerNonce(first.env.PAYLINK_RPC_URL!)).toBe(firstNonce);
    for (const box of [first, second]) {
      const health = await fetch(`http://127.0.0.1:${box.env.PAYLINK_API_PORT}/healthz`);
      expect(health.status).toBe(200);
    }
  });
});
