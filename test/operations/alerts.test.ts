/**
 * The Prometheus alerting rules shipped in docs/alerts.yml, checked by the real promtool (Debian's `prometheus`
 * package; .ci/run installs it): their syntax, and that each alert fires on the series that mean trouble, only after
 * its `for`, and not on healthy ones (test/operations/alerts.test.yml). Without promtool these tests are skipped and the
 * run's opening NOTE says so, as for PostgreSQL; in CI, which installs it, its absence fails the file instead.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { toolTestsRun } from '../setup/skippedParts.ts';

const run = promisify(execFile);
const rules = fileURLToPath(new URL('../../docs/alerts.yml', import.meta.url));
const ruleTests = fileURLToPath(new URL('./alerts.test.yml', import.meta.url));

async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('promtool', args, { timeout: 60_000 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (failed.code === 'ENOENT') throw new Error('promtool is not installed (apt-get install prometheus)');
    return { code: Number(failed.code), output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe.runIf(toolTestsRun('promtool'))('alerting rules (docs/alerts.yml)', () => {
  it('pass promtool check rules', async () => {
    const { code, output } = await promtool('check', 'rules', rules);
    expect(output).toContain('SUCCESS: 10 rules found');
    expect(code).toBe(0);
  });

  it('fire as test/operations/alerts.test.yml expects (promtool test rules)', async () => {
    const { code, output } = await promtool('test', 'rules', ruleTests);
    expect(output).toContain('SUCCESS');
    expect(code).toBe(0);
  });
});
