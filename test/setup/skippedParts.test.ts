import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installTestsRun, onPath, skippedPartsNotice, toolTestsRun } from './skippedParts.ts';

const installed = () => true;
const absent = () => false;
const allSet = { PAYLINK_TEST_DATABASE_URL: 'postgres://x', PAYLINK_TEST_REDIS_URL: 'redis://y' };

describe('the notice of skipped parts of the suite', () => {
  it('names each variable missing and what it skips; nothing when both are set and promtool is there', () => {
    const none = skippedPartsNotice({}, installed, installed);
    expect(none).toContain('PAYLINK_TEST_DATABASE_URL is not set: every database test runs on SQLite only');
    expect(none).toContain('PAYLINK_TEST_REDIS_URL is not set');
    expect(none).not.toContain('promtool');
    const redisOnly = skippedPartsNotice({ PAYLINK_TEST_DATABASE_URL: 'postgres://x' }, installed, installed);
    expect(redisOnly).not.toContain('PAYLINK_TEST_DATABASE_URL is not set');
    expect(redisOnly).toContain('PAYLINK_TEST_REDIS_URL is not set');
    expect(skippedPartsNotice(allSet, installed, installed)).toBeUndefined();
  });

  it('names promtool when it is not installed, with what installs it and what is left unchecked', () => {
    const notice = skippedPartsNotice(allSet, absent, installed);
    expect(notice).toContain(
      "promtool is not installed (Debian's prometheus package): the alerting rules (docs/alerts.yml) are not checked",
    );
    expect(notice).not.toContain('is not set');
  });

  it("names the Medusa plugin's install when it is absent, with the command that installs it", () => {
    const notice = skippedPartsNotice(allSet, installed, absent);
    expect(notice).toContain(
      "the medusa install is absent ((cd packages/medusa && npm ci)): the Medusa plugin's tests against a real Medusa store do not run",
    );
    expect(notice).not.toContain('promtool');
  });

  it('looks for promtool on PATH by default', () => {
    const withIt = skippedPartsNotice({ ...allSet, PATH: dirWithPromtool }, undefined, installed);
    expect(withIt).toBeUndefined();
    expect(skippedPartsNotice({ ...allSet, PATH: emptyDir })).toContain('promtool is not installed');
  });
});

const dirWithPromtool = mkdtempSync(join(tmpdir(), 'paylink-path-'));
const emptyDir = mkdtempSync(join(tmpdir(), 'paylink-path-'));
writeFileSync(join(dirWithPromtool, 'promtool'), '#!/bin/sh\n');
chmodSync(join(dirWithPromtool, 'promtool'), 0o755);
writeFileSync(join(emptyDir, 'promtool'), 'not executable');
afterAll(() => {
  rmSync(dirWithPromtool, { recursive: true, force: true });
  rmSync(emptyDir, { recursive: true, force: true });
});

describe('whether the tests of a program run', () => {
  it('finds only an executable file on PATH', () => {
    expect(onPath('promtool', { PATH: `${emptyDir}:${dirWithPromtool}` })).toBe(true);
    expect(onPath('promtool', { PATH: emptyDir })).toBe(false);
    expect(onPath('promtool', {})).toBe(false);
  });

  it('runs them when it is installed, in CI or not', () => {
    expect(toolTestsRun('promtool', { PATH: dirWithPromtool })).toBe(true);
    expect(toolTestsRun('promtool', { PATH: dirWithPromtool, CI: 'true' })).toBe(true);
  });

  it('skips them without it outside CI, and fails in CI, where it must be installed', () => {
    expect(toolTestsRun('promtool', { PATH: emptyDir })).toBe(false);
    expect(() => toolTestsRun('promtool', { PATH: emptyDir, CI: 'true' })).toThrow(
      'CI must have promtool installed',
    );
  });
});

describe('whether the tests of an install of their own run', () => {
  it('runs them when it is there, skips them without it outside CI, and fails in CI without it', () => {
    expect(installTestsRun('medusa', {}, true)).toBe(true);
    expect(installTestsRun('medusa', { CI: 'true' }, true)).toBe(true);
    expect(installTestsRun('medusa', {}, false)).toBe(false);
    expect(() => installTestsRun('medusa', { CI: 'true' }, false)).toThrow(
      'CI must have the medusa install: its tests may not be skipped',
    );
  });
});
