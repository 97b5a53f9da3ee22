/**
 * The alerting rules' tests on a machine without promtool, run as `npm test` runs them (vitest in a process of its
 * own, its opening NOTE included): skipped and announced outside CI, failed in CI (.ci/run installs promtool, so
 * there its absence is a broken machine, not a part left out).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = join(createRequire(import.meta.url).resolve('vitest/package.json'), '..', 'vitest.mjs');

/** A PATH with node and the shell only: no promtool. */
const bin = mkdtempSync(join(tmpdir(), 'paylink-no-promtool-'));
symlinkSync(process.execPath, join(bin, 'node'));
symlinkSync('/bin/sh', join(bin, 'sh'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function vitestWithoutPromtool(ci: boolean): Promise<{ code: number; output: string }> {
  const env: NodeJS.ProcessEnv = { PATH: bin, HOME: process.env.HOME, NO_COLOR: '1' };
  if (ci) env.CI = 'true';
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [VITEST, 'run', 'test/operations/alerts.test.ts'],
      { cwd: REPOSITORY, env },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, output: `${stdout}${stderr}` }),
    ),
  );
}

describe('the alerting rules without promtool', { timeout: 180_000 }, () => {
  it('are skipped outside CI, and the opening NOTE says why', async () => {
    const { code, output } = await vitestWithoutPromtool(false);
    expect(output).toContain("promtool is not installed (Debian's prometheus package)");
    expect(output).toMatch(/Tests\s+2 skipped \(2\)/);
    expect(code).toBe(0);
  });

  it('fail in CI, never skip', async () => {
    const { code, output } = await vitestWithoutPromtool(true);
    expect(output).toContain('CI must have promtool installed: its tests may not be skipped');
    expect(output).not.toMatch(/2 skipped/);
    expect(code).not.toBe(0);
  });
});
