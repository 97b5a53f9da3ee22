/**
 * Durations as written: "90s", "60m", "24h", "7d", or a bare number of milliseconds (for the CLI's options; the
 * configuration refuses a bare number, see config.ts).
 */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION_PATTERN = /^(\d{1,12})(ms|s|m|h|d)?$/;

export function parseDuration(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text.trim());
  if (!match) return undefined;
  const unit = (match[2] ?? 'ms') as keyof typeof UNIT_MS;
  const ms = Number(match[1]) * UNIT_MS[unit];
  return Number.isSafeInteger(ms) ? ms : undefined;
}
