import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Env = Readonly<Record<string, string | undefined>>;

/** The suite's parts that need a server named by the environment, and what leaving one out skips. */
const PARTS = [
  {
    variable: 'PAYLINK_TEST_DATABASE_URL',
    skipped:
      "every database test runs on SQLite only (about half the suite is its PostgreSQL run), and the Medusa plugin's store tests do not run",
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
    skipped: 'the alerting rules (docs/alerts.yml) are not checked (test/operations/alerts.test.ts)',
  },
] as const;

export type Tool = (typeof TOOLS)[number]['command'];

/**
 * The suite's parts that need an npm install of their own, beside the service's (whose own install must not
 * grow by them), and what its absence skips.
 */
const INSTALLS = [
  {
    name: 'medusa',
    marker: 'packages/medusa/node_modules/@medusajs/medusa/package.json',
    install: '(cd packages/medusa && npm ci)',
    skipped:
      "the Medusa plugin's tests against a real Medusa store do not run (test/packages/medusa*.test.ts)",
  },
] as const;

export type Install = (typeof INSTALLS)[number]['name'];

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));

/** Whether that install is in place (its marker package is there). */
export function installed(name: Install): boolean {
  const part = INSTALLS.find((install) => install.name === name);
  return part !== undefined && existsSync(join(REPOSITORY, part.marker));
}

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
  hasInstall: (name: Install) => boolean = installed,
): string | undefined {
  const missing = PARTS.filter((part) => !env[part.variable]);
  const absent = TOOLS.filter((tool) => !has(tool.command));
  const notInstalled = INSTALLS.filter((install) => !hasInstall(install.name));
  if (missing.length === 0 && absent.length === 0 && notInstalled.length === 0) return undefined;
  return [
    'NOTE: parts of the suite are skipped in this run:',
    ...missing.map((part) => `  ${part.variable} is not set: ${part.skipped}`),
    ...absent.map((tool) => `  ${tool.command} is not installed (${tool.install}): ${tool.skipped}`),
    ...notInstalled.map(
      (install) => `  the ${install.name} install is absent (${install.install}): ${install.skipped}`,
    ),
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

/**
 * Whether the tests that need an install of their own run: as for a program, skipped (and named by the
 * opening NOTE) without it, except in CI, whose .ci/run installs it, where its absence is an error.
 */
export function installTestsRun(name: Install, env: Env = process.env, present = installed(name)): boolean {
  if (present) return true;
  if (env.CI) throw new Error(`CI must have the ${name} install: its tests may not be skipped`);
  return false;
}
