import { readFileSync } from 'node:fs';
import { joinedParts } from './joinedParts.ts';

/** The scripts every web surface's pages share (web/assets/), read once. */
const SHARED_SCRIPTS = ['momentFormat.js'].map((file) =>
  readFileSync(new URL(`./assets/${file}`, import.meta.url)),
);

/**
 * A page's script: the shared scripts, then the surface's own parts, as one file, so that each page still loads
 * a single script and what the surfaces share is written once.
 */
export function pageScript(parts: readonly Buffer[]): Buffer {
  return joinedParts([...SHARED_SCRIPTS, ...parts]);
}
