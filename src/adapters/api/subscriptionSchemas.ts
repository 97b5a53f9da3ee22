import { z } from 'zod';
import { ListLinksQuery } from './linkSchemas.ts';
import { DecimalInput, optionalString } from './schemas.ts';

/** Plans' and subscriptions' request and response schemas (validated, serialized, and in /openapi.json). */

/** A decimal or an integer, as a JSON number (read losslessly) or a string, optional; its exact text. */
const optionalNumber = (description: string) =>
  DecimalInput.nullish()
    .transform((value) => value ?? undefined)
    .meta({ description });

const timestamp = z.string().meta({ description: 'ISO 8601 UTC timestamp', format: 'date-time' });

export const CreatePlanBody = z.object(
  {
    name: optionalString('Shown to the customer (required, at most 200 characters)', 200),
    description: optionalString('Shown to the customer under the name', 2000),
    amount: optionalNumber("Each period's price, in `currency` (required)"),
    currency: optionalString(
      'ISO 4217 code (EUR, USD, …) or USDC; fiat converts at each period’s payment',
      8,
    ),
    interval: optionalString('day, week, month or year (required)', 8),
    interval_count: optionalNumber('Intervals per period (default 1; at most about three years in all)'),
    trial_days: optionalNumber('Days before the first period starts and is due (0 to 365; default 0)'),
    grace_days: optionalNumber(
      'Days after a period is due that its payment may still be made (0 to 60; default 3); unpaid after, the subscription is canceled',
    ),
    periods: optionalNumber('How many periods a subscription lasts (1 to 1000); absent: until canceled'),
  },
  { error: 'must be a JSON object' },
);

export const PlanResponse = z
  .object({
    plan_id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    amount: z.string().meta({ description: "Each period's price, exact decimal", example: '9.90' }),
    currency: z.string(),
    interval: z.enum(['day', 'week', 'month', 'year']),
    interval_count: z.number().int(),
    trial_days: z.number().int(),
    grace_days: z.number().int(),
    periods: z.number().int().nullable().meta({ description: 'null: until canceled' }),
    active: z.boolean().meta({ description: 'False once archived: no new subscriptions' }),
    archived_at: timestamp.nullable(),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'SubscriptionPlan' });

export const PlanParams = z.object({ plan_id: z.string().max(64) });
export const SubscriptionParams = z.object({ subscription_id: z.string().max(64) });
export const ListQuery = ListLinksQuery;

export const PlanList = z
  .object({
    plans: z.array(PlanResponse).meta({ description: 'Newest first' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null on the last' }),
  })
  .meta({ id: 'SubscriptionPlanList' });

export const CreateSubscriptionBody = z.object(
  {
    plan_id: optionalString('The plan (required; not archived)', 64),
    customer_email: optionalString(
      "The customer's e-mail address: each period's payment link goes there (required)",
      254,
    ),
    customer_wallet: optionalString(
      'The wallet the customer pays from, if known (shown, never required)',
      64,
    ),
    customer_language: optionalString("The e-mails' language: en, fr, de or es (default: English)", 35),
  },
  { error: 'must be a JSON object' },
);

export const CancelSubscriptionBody = z
  .object(
    {
      at_period_end: z
        .boolean({ error: 'must be true or false' })
        .optional()
        .meta({ description: 'true (default): at the end of the period in force; false: at once' }),
    },
    { error: 'must be a JSON object' },
  )
  .optional();

export const ChangePlanBody = z.object(
  { plan_id: optionalString('The new plan (required): same interval, not archived', 64) },
  { error: 'must be a JSON object' },
);

const statuses = z.enum(['trialing', 'active', 'past_due', 'canceled', 'ended']);

export const SubscriptionResponse = z
  .object({
    subscription_id: z.string(),
    plan_id: z.string(),
    status: statuses,
    customer_email: z.string(),
    customer_wallet: z.string().nullable(),
    amount: z.string(),
    currency: z.string(),
    current_period: z.number().int().meta({ description: '0 during the trial' }),
    current_period_start: timestamp.nullable(),
    current_period_end: timestamp.nullable(),
    trial_end: timestamp.nullable(),
    cancel_at: timestamp.nullable(),
    canceled_by: z.enum(['merchant', 'customer']).nullable(),
    canceled_reason: z.enum(['requested', 'unpaid']).nullable(),
    ended_at: timestamp.nullable(),
    started_at: timestamp,
    livemode: z.boolean(),
    pending_plan_id: z
      .string()
      .nullable()
      .meta({ description: 'A plan change asked for, billed from `pending_plan_from_period`; null: none' }),
    pending_plan_from_period: z.number().int().nullable(),
    payments: z
      .array(
        z.object({
          period: z.number().int(),
          payment_id: z.string(),
          status: z.string().meta({ description: "The payment's status as last stored" }),
          paid_at: timestamp.nullable(),
        }),
      )
      .meta({ description: "Each billed period's payment, oldest first" }),
  })
  .meta({ id: 'Subscription' });

export const SubscriptionList = z
  .object({
    subscriptions: z.array(SubscriptionResponse).meta({ description: 'Newest first' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null on the last' }),
  })
  .meta({ id: 'SubscriptionList' });
