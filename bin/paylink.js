#!/usr/bin/env node
// A checkout with its development dependencies runs the TypeScript sources through tsx (esbuild); a production
// install (`npm ci --omit=dev`, which has no tsx) runs the JavaScript that `npm run build` wrote to dist/, and so
// does a build that ships no sources beside its bin (the test suite's, test/helpers/builtCli.ts).
import { existsSync } from 'node:fs';

// A reader that stops early (`paylink mail list | head`) closes the pipe: a one-shot command then ends quietly
// with status 0, as Unix tools do (decision 0047). `serve` keeps the default: a server whose output is gone
// must not look like one that finished its work.
if (process.argv[2] !== 'serve') {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error?.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
}

const main = await loadMain();
process.exitCode = await main(process.argv.slice(2));

async function loadMain() {
  const sources = new URL('../src/main/cli.ts', import.meta.url);
  const register = existsSync(sources) ? await tsxRegister() : undefined;
  if (register) {
    register();
    return (await import(sources.href)).main;
  }
  const built = new URL('../dist/main/cli.js', import.meta.url);
  if (!existsSync(built)) {
    process.stderr.write('error: no build in dist/ and no tsx to run the sources: run `npm run build`\n');
    process.exit(2);
  }
  return (await import(built.href)).main;
}

/** tsx's loader, or nothing where it is not installed (production). */
async function tsxRegister() {
  try {
    return (await import('tsx/esm/api')).register;
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return undefined;
  }
}
