import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** The suite's parts that need a server named by the environment, and what leaving one out skips. */
const PARTS = [
  {
    variable: 'PAYLINK_TEST_DATABASE_URL',
    skipped: 'every database test runs on SQLite only (about half the suite is its PostgreSQL run)',
  },
  {
    variable: 'PAYLINK_TEST_REDIS_URL',
    skipped:
      "the shared-bucket (Redis) tests of the API's rate limit and the checkout's gasless limits do not run",
  },
] as const;

/** The suite's parts that need a program that npm does not install, and what its absence skips. */
const TOOLS = [
  {
    command: 'promtool',
    install: "Debian's prometheus package",
    skipped: 'the alerting rules (docs/alerts.yml) are not checked (test/alerts.test.ts)',
  },
] as const;

export type Tool = (typeof TOOLS)[number]['command'];

/** Whether an executable file of that name is in one of PATH's directories. */
export function onPath(command: string, env: Env = process.env): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, command);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      // Not here: the next directory.
    }
  }
  return false;
}

/**
 * What this environment skips, in words (undefined: nothing). CI must have every part, and fails without one.
 * `has` says whether a program is installed (PATH by default).
 */
export function skippedPartsNotice(
  env: Env,
  has: (command: Tool) => boolean = (command) => onPath(command, env),
): string | undefined {
  const missing = PARTS.filter((part) => !env[part.variable]);
  const absent = TOOLS.filter((tool) => !has(tool.command));
  if (missing.length === 0 && absent.length === 0) return undefined;
  return [
    'NOTE: parts of the suite are skipped in this run:',
    ...missing.map((part) => `  ${part.variable} is not set: ${part.skipped}`),
    ...absent.map((tool) => `  ${tool.command} is not installed (${tool.install}): ${tool.skipped}`),
    '  (.ci/run sets and installs them all; e.g. PAYLINK_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres)',
  ].join('\n');
}

/**
 * Whether the tests that need `command` run: yes when it is installed, no (skipped, and named by the opening
 * NOTE) when it is not — except in CI, which installs it, where its absence is an error and never a skip.
 */
export function toolTestsRun(command: Tool, env: Env = process.env, has = onPath(command, env)): boolean {
  if (has) return true;
  if (env.CI) throw new Error(`CI must have ${command} installed: its tests may not be skipped`);
  return false;
}
