/**
 * The operator's production install, end to end, as docs/operator-guide.md ("Production install") says:
 * `npm run build`, a clean copy holding only package.json, the lock file, bin/ and dist/, `npm ci --omit=dev`
 * there, then `paylink migrate`, `paylink merchant create` and `paylink serve --role api` from that copy, which
 * creates a payment and stops cleanly on SIGTERM. Prints the install's size, the start time and the memory.
 * CI runs it after the suite (.ci/run); it needs the registry for `npm ci`.
 *
 *   node --import tsx scripts/check-production.ts
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnAnvil } from '../src/adapters/chain/anvilProcess.ts';
import { deploySandboxContracts, SANDBOX_ACCOUNTS, sandboxAccount } from '../src/sandbox/chain.ts';

const repository = fileURLToPath(new URL('..', import.meta.url));
const copy = mkdtempSync(join(tmpdir(), 'paylink-production-'));
/**
 * Loopback ports the system had free a moment ago (one listener each, closed before use): a port derived from
 * the pid collided with whatever else the machine was running at the time.
 */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

const [anvilPort, apiPort, checkoutPort, webhookInboxPort] = (await freePorts(4)) as [
  number,
  number,
  number,
  number,
];

function step(title: string): void {
  process.stdout.write(`--- ${title}\n`);
}

function sizeOf(path: string): string {
  return execFileSync('du', ['-sh', path], { encoding: 'utf8' }).split('\t')[0] as string;
}

let server: ChildProcess | undefined;
const anvil = await spawnAnvil({ port: anvilPort, chainId: 31337, args: ['--silent'] });
try {
  step('npm run build');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: repository, stdio: 'inherit' });

  step(`npm ci --omit=dev in ${copy}`);
  for (const entry of ['package.json', 'package-lock.json', 'bin', 'dist']) {
    cpSync(join(repository, entry), join(copy, entry), { recursive: true });
  }
  execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: copy, stdio: 'inherit' });
  for (const absent of ['tsx', 'solc', '@foundry-rs/anvil', 'playwright-core', 'vitest']) {
    let found = false;
    try {
      readFileSync(join(copy, 'node_modules', absent, 'package.json'));
      found = true;
    } catch {}
    if (found) throw new Error(`the production install holds the development package ${absent}`);
  }

  const { usdc, factory } = await deploySandboxContracts(anvil.rpcUrl);
  const env = {
    PATH: process.env.PATH ?? '',
    PAYLINK_DATABASE_URL: `sqlite:${join(copy, 'data', 'paylink.db')}`,
    PAYLINK_NETWORK: 'sandbox',
    PAYLINK_RPC_URL: anvil.rpcUrl,
    PAYLINK_USDC_ADDRESS: usdc,
    PAYLINK_FACTORY_ADDRESS: factory,
    PAYLINK_API_PORT: String(apiPort),
    PAYLINK_CHECKOUT_PORT: String(checkoutPort),
    PAYLINK_SANDBOX_WEBHOOK_PORT: String(webhookInboxPort),
    PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'true',
    PAYLINK_LOG_LEVEL: 'warn',
  };
  const paylink = (...args: string[]) =>
    execFileSync(process.execPath, ['bin/paylink.js', ...args], { cwd: copy, env, encoding: 'utf8' });

  step('paylink migrate, merchant create');
  paylink('migrate');
  const created = JSON.parse(
    paylink(
      'merchant',
      'create',
      '--name',
      'Production check',
      '--wallet',
      sandboxAccount(SANDBOX_ACCOUNTS.merchant).address,
      '--webhook-url',
      'http://127.0.0.1:9/hooks',
      '--json',
    ),
  ) as { api_key: string };

  step('paylink serve --role api');
  const startedAt = performance.now();
  server = spawn(process.execPath, ['bin/paylink.js', 'serve', '--role', 'api'], {
    cwd: copy,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${apiPort}`;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`paylink serve exited with ${server.exitCode}`);
    const status = await fetch(`${base}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const startMs = performance.now() - startedAt;
  const payment = await fetch(`${base}/payments/api/create/`, {
    method: 'POST',
    headers: { 'x-api-key': created.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: '12.50', currency: 'USDC' }),
  });
  if (payment.status !== 201) throw new Error(`create answered ${payment.status}: ${await payment.text()}`);
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]);

  const exited = new Promise<number | null>((resolve) => server?.once('exit', (code) => resolve(code)));
  server.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) throw new Error(`paylink serve stopped with ${code} on SIGTERM`);

  step('figures');
  process.stdout.write(
    `node_modules ${sizeOf(join(copy, 'node_modules'))}, dist ${sizeOf(join(copy, 'dist'))}; ` +
      `start to /healthz ${startMs.toFixed(0)} ms; RSS after one payment ${(rssKiB / 1024).toFixed(0)} MiB\n`,
  );
} finally {
  if (server?.exitCode === null) server.kill('SIGKILL');
  await anvil.stop();
  rmSync(copy, { recursive: true, force: true });
}
