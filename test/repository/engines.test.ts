import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'));

/**
 * The Node versions package.json declares are true for every installed package: the oldest version it admits
 * satisfies what each package in the lock file declares (production and development alike: both run in CI).
 */
describe('declared Node versions', () => {
  const declared: string = pkg.engines.node;
  const oldest = semver.minVersion(declared)?.version as string;

  it('every package in the lock file runs on the oldest Node version package.json admits', () => {
    const refusing = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
      .filter(([path, entry]) => path !== '' && typeof entry.engines?.node === 'string')
      .filter(([, entry]) => !semver.satisfies(oldest, entry.engines?.node as string))
      .map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')} wants ${entry.engines?.node}`);
    expect(refusing).toEqual([]);
  });

  it('this run is on a Node version package.json admits', () => {
    expect(semver.satisfies(process.versions.node, declared)).toBe(true);
  });
});
