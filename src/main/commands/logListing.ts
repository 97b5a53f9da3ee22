/** The flags of a log's `list` (`paylink mail list`, `paylink webhooks list`), as commander hands them over. */
export interface LogListFlags {
  readonly payment?: string;
  readonly merchant?: string;
  readonly status?: string;
  readonly limit: string;
  readonly json?: boolean;
}

/**
 * `--limit` as a number: anything but one to three digits is NaN, which the use case refuses with the same
 * message as the API gives for a bad limit (the CLI does not word its own).
 */
export function limitFlag(text: string): number {
  return /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
}

/** What a log's list use case is asked, from the flags. */
export function logQuery(flags: LogListFlags) {
  return {
    paymentId: flags.payment,
    merchantId: flags.merchant,
    status: flags.status,
    limit: limitFlag(flags.limit),
  };
}
