import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from '../domain/webhookRetry.ts';
import type { HomeNetwork } from './chains/networks.ts';
import { boolean, DURATION_UNITS, duration, withoutUnit } from './fields.ts';

export interface WebhooksConfig {
  /** One attempt's whole exchange (connect, send, response) must fit in this. */
  readonly timeoutMs: number;
  /** Delays before the 2nd, 3rd, … attempt; the first is immediate. */
  readonly retryScheduleMs: readonly number[];
  /** A claimed event's lease: one attempt plus a minute to record it; past it the event is claimed again. */
  readonly leaseMs: number;
}

export const webhooksEnv = {
  PAYLINK_WEBHOOK_ALLOW_PRIVATE: boolean.optional(),
  PAYLINK_WEBHOOK_TIMEOUT: duration('PAYLINK_WEBHOOK_TIMEOUT')
    .default(15_000)
    .refine((ms) => ms <= 60_000, 'PAYLINK_WEBHOOK_TIMEOUT must be at most 60s'),
  PAYLINK_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return DEFAULT_RETRY_SCHEDULE_MS;
      const schedule = text.split(',').some(withoutUnit) ? undefined : parseRetrySchedule(text);
      if (!schedule) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYLINK_WEBHOOK_RETRY_SCHEDULE must be comma-separated durations in ${DURATION_UNITS}`,
        });
        return z.NEVER;
      }
      return schedule;
    }),
};

type WebhooksEnv = z.infer<z.ZodObject<typeof webhooksEnv>>;

export function webhooksConfig(
  e: WebhooksEnv,
  network: HomeNetwork,
): { webhookAllowPrivate: boolean; webhooks: WebhooksConfig } {
  return {
    webhookAllowPrivate: e.PAYLINK_WEBHOOK_ALLOW_PRIVATE ?? network === 'sandbox',
    webhooks: {
      timeoutMs: e.PAYLINK_WEBHOOK_TIMEOUT,
      retryScheduleMs: e.PAYLINK_WEBHOOK_RETRY_SCHEDULE,
      leaseMs: e.PAYLINK_WEBHOOK_TIMEOUT + 60_000,
    },
  };
}
