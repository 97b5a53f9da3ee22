/**
 * The production build: `npm run build` writes dist/, which `node bin/paylink.js` runs when the development
 * dependencies (the TypeScript loader, solc, anvil, the browser driver) are not installed.
 *
 * 1. Compiles the Solidity sources (or reuses the fresh cache) and regenerates the typed ABI module.
 * 2. Type-checks and emits src/ as JavaScript (tsconfig.build.json).
 * 3. Copies what the code reads from beside itself at run time: the compiled contracts (ABI and bytecode, so that
 *    `paylink contracts deploy` needs no compiler) and the checkout's and dashboard's static assets.
 *
 *   node --import tsx scripts/build.ts [--no-type-check] [--out-dir <dir>]
 *
 * `--no-type-check` emits the same JavaScript without checking types (`npm run lint` checks the same sources):
 * the test suite builds this way, into a directory of its own (`--out-dir`, test/helpers/builtCli.ts), and runs
 * that build in every `paylink` process it starts.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CONTRACTS_CACHE_PATH } from '../src/adapters/chain/contracts.ts';

const repository = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    'no-type-check': { type: 'boolean', default: false },
    'out-dir': { type: 'string', default: join(repository, 'dist') },
  },
});
const outDir = resolve(values['out-dir']);
const source = join(repository, 'src');

/** Files the built code reads through `import.meta.url`, relative to src/. */
const RUNTIME_FILES = [
  relative(source, CONTRACTS_CACHE_PATH),
  'adapters/checkout/assets',
  'adapters/dashboard/assets',
  'adapters/web/assets',
];

execFileSync(process.execPath, ['--import', 'tsx', join(repository, 'scripts/compile-contracts.ts')], {
  stdio: 'inherit',
});
rmSync(outDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const check = values['no-type-check'] ? ['--noCheck'] : [];
execFileSync(
  process.execPath,
  [tsc, '-p', join(repository, 'tsconfig.build.json'), '--outDir', outDir, ...check],
  {
    stdio: 'inherit',
  },
);
for (const file of RUNTIME_FILES) {
  mkdirSync(join(outDir, file, '..'), { recursive: true });
  cpSync(join(source, file), join(outDir, file), { recursive: true });
}
process.stdout.write(`built ${relative(repository, outDir)}/\n`);
