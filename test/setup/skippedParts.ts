/** The suite's parts that need a server named by the environment, and what leaving one out skips. */
const PARTS = [
  {
    variable: 'PAYLINK_TEST_DATABASE_URL',
    skipped: 'every database test runs on SQLite only (about half the suite is its PostgreSQL run)',
  },
  { variable: 'PAYLINK_TEST_REDIS_URL', skipped: "the rate limit's shared-bucket (Redis) tests do not run" },
] as const;

/** What this environment skips, in words (undefined: nothing). CI must set both, and fails without them. */
export function skippedPartsNotice(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const missing = PARTS.filter((part) => !env[part.variable]);
  if (missing.length === 0) return undefined;
  return [
    'NOTE: parts of the suite are skipped in this run:',
    ...missing.map((part) => `  ${part.variable} is not set: ${part.skipped}`),
    '  (.ci/run sets both, e.g. PAYLINK_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres)',
  ].join('\n');
}
