import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
/** Under node_modules so that the build's own imports (fastify, viem …) resolve to the checkout's packages. */
const CACHE = join(REPOSITORY, 'node_modules', '.cache', 'paylink-cli');
/** What the build is made from: a change to any of these is a new build. */
const INPUTS = [
  'src',
  'bin/paylink.js',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.ts',
];
/** A build takes well under a minute alone; one on a loaded machine, a few. Past this, its builder is gone. */
const STALE_LOCK_MS = 10 * 60_000;
const BUILD_KEPT_MS = 24 * 60 * 60_000;
const run = promisify(execFile);

let built: Promise<string> | undefined;

/**
 * The `paylink` bin of a production build of the current sources (`scripts/build.ts --no-type-check`), for the
 * tests that start `paylink` as a process of its own. A process started from the sources spends about 3 s of
 * CPU in tsx's loader before it does anything, one from the build about 1.4 s (docs/testing.md); the suite
 * starts over a hundred. The build is made once for a given content of the sources, shared by every test file
 * and every worker (a lock directory keeps a second worker from building it again), and kept for the next run.
 * It has no sources beside its bin, so the bin runs its dist/ — as production does.
 */
export function builtPaylinkBin(): Promise<string> {
  // A build that failed is tried again by the next caller, not handed to every later test of the worker.
  built ??= buildOnce().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

async function buildOnce(): Promise<string> {
  const target = join(CACHE, sourcesHash());
  const bin = join(target, 'bin', 'paylink.js');
  const lock = `${target}.lock`;
  for (;;) {
    if (existsSync(bin)) {
      touch(target);
      return bin;
    }
    if (takeLock(lock)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  try {
    if (existsSync(bin)) return bin;
    const partial = `${target}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/build.ts', '--no-type-check', '--out-dir', join(partial, 'dist')],
      { cwd: REPOSITORY },
    );
    mkdirSync(join(partial, 'bin'));
    copyFileSync(join(REPOSITORY, 'bin', 'paylink.js'), join(partial, 'bin', 'paylink.js'));
    // "type": "module": the bin and dist/ are ES modules.
    copyFileSync(join(REPOSITORY, 'package.json'), join(partial, 'package.json'));
    renameSync(partial, target);
    pruneOldBuilds(target);
    return bin;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Removes the builds of earlier sources, so that editing and testing does not fill the disk: those not used for
 * a day (another checkout sharing these node_modules may be running its own, newer one).
 */
function pruneOldBuilds(current: string): void {
  for (const entry of readdirSync(CACHE)) {
    const path = join(CACHE, entry);
    if (path === current || entry.includes('.')) continue; // locks and partial builds are their builders'
    if (Date.now() - statSync(path).mtimeMs > BUILD_KEPT_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** Takes the build's lock (a directory: made or not, atomically), or a lock whose builder has gone. */
function takeLock(lock: string): boolean {
  mkdirSync(CACHE, { recursive: true });
  try {
    mkdirSync(lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  try {
    if (Date.now() - statSync(lock).mtimeMs < STALE_LOCK_MS) return false;
  } catch {
    return false; // released while we looked
  }
  rmSync(lock, { recursive: true, force: true });
  return false;
}

/** Marks a build as used now, which keeps it from `pruneOldBuilds`. */
function touch(path: string): void {
  const now = new Date();
  utimesSync(path, now, now);
}

function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for (const file of filesUnder(join(REPOSITORY, input))) {
      hash.update(relative(REPOSITORY, file)).update('\0').update(readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => filesUnder(join(path, entry.name)))
    .filter((file) => !file.endsWith('.test.ts'));
}
