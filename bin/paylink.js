#!/usr/bin/env node
// Runs the TypeScript sources through tsx (esbuild); `npm run build` type-checks them.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main/cli.ts');
process.exitCode = await main(process.argv.slice(2));
