import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { eventually, freePort } from './net.ts';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
export const PLUGIN_DIR = join(REPOSITORY, 'packages/medusa');
const STORE_DIR = join(PLUGIN_DIR, 'test-store');
const BIN = join(PLUGIN_DIR, 'node_modules/.bin');

/** What the fixture store's seed script made (test-store/src/scripts/seed.ts). */
export interface Seeded {
  readonly publishable_key: string;
  readonly region_id: string;
  readonly variant_id: string;
  readonly admin: { readonly email: string; readonly password: string };
}

export interface MedusaStore {
  readonly url: string;
  readonly seeded: Seeded;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`))
        : resolve(stdout),
    ),
  );
}

/** Builds the SDK and the plugin as `npm pack` would (the store loads the plugin's built output). */
export async function buildPlugin(): Promise<void> {
  await run(
    process.execPath,
    [join(REPOSITORY, 'node_modules/typescript/bin/tsc'), '-p', 'packages/client'],
    REPOSITORY,
    process.env,
  );
  await run(join(BIN, 'tsc'), ['-p', '.'], PLUGIN_DIR, process.env);
}

/**
 * The plugin's fixture store, for real: a database of its own on the test PostgreSQL (dropped by `stop`),
 * `medusa db:migrate`, the seed script, then `medusa start` on a free port in a process group of its own.
 * Medusa's pg client is given `localhost`: for any other host name Medusa asks the server for SSL.
 */
export async function startMedusaStore(
  testDatabaseUrl: string,
  env: Record<string, string>,
): Promise<MedusaStore> {
  const admin = new URL(testDatabaseUrl);
  const database = `paylink_medusa_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`create database ${database}`);
  await client.end();
  const storeUrl = new URL(admin.toString());
  if (storeUrl.hostname === '127.0.0.1') storeUrl.hostname = 'localhost';
  storeUrl.pathname = `/${database}`;

  const scratch = mkdtempSync(join(tmpdir(), 'paylink-medusa-'));
  const port = await freePort();
  const storeEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    MEDUSA_DISABLE_TELEMETRY: 'true',
    NO_COLOR: '1',
    DATABASE_URL: storeUrl.toString(),
    JWT_SECRET: randomBytes(16).toString('hex'),
    COOKIE_SECRET: randomBytes(16).toString('hex'),
    SEED_OUTPUT: join(scratch, 'seeded.json'),
    ...env,
  };
  const dropDatabase = async () => {
    const dropper = new pg.Client({ connectionString: admin.toString() });
    await dropper.connect();
    await dropper.query(`drop database if exists ${database} with (force)`);
    await dropper.end();
    rmSync(scratch, { recursive: true, force: true });
  };
  let server: ChildProcess | undefined;
  try {
    await run(join(BIN, 'medusa'), ['db:migrate'], STORE_DIR, storeEnv);
    await run(join(BIN, 'medusa'), ['exec', './src/scripts/seed.ts'], STORE_DIR, storeEnv);
    const seeded = JSON.parse(readFileSync(join(scratch, 'seeded.json'), 'utf8')) as Seeded;

    let output = '';
    const started = spawn(join(BIN, 'medusa'), ['start', '--port', String(port)], {
      cwd: STORE_DIR,
      env: storeEnv,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server = started;
    started.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    started.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const url = `http://127.0.0.1:${port}`;
    const health = await eventually(
      async () => {
        if (started.exitCode !== null)
          throw new Error(`medusa start exited (${started.exitCode}): ${output}`);
        return fetch(`${url}/health`).then(
          (r) => r.text(),
          () => '',
        );
      },
      (text) => text === 'OK',
      300,
      200,
    );
    if (health !== 'OK') throw new Error(`the Medusa store did not answer /health: ${output}`);
    return {
      url,
      seeded,
      output: () => output,
      stop: async () => {
        await stopGroup(started);
        await dropDatabase();
      },
    };
  } catch (error) {
    if (server) await stopGroup(server);
    await dropDatabase();
    throw error;
  }
}

/** Medusa's CLI runs the server in a child: the whole process group is stopped, and waited for. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
}
