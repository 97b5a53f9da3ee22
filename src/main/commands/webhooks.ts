import { type Command, Option } from 'commander';
import { describeMerchant } from '../../app/merchants/merchantAdmin.ts';
import { systemClock } from '../../app/shared/ports.ts';
import {
  describeWebhookEvent,
  getWebhookEvent,
  listWebhookEvents,
  type WebhookEventView,
} from '../../app/webhooks/listWebhookEvents.ts';
import { resendWebhookEvent } from '../../app/webhooks/resendWebhookEvent.ts';
import { rotateWebhookSecret } from '../../app/webhooks/rotateWebhookSecret.ts';
import type { Config } from '../../config/index.ts';
import { parseDuration } from '../../domain/duration.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { DELIVERY_STATUSES } from '../../domain/webhookDelivery.ts';
import { out } from '../terminal.ts';
import { withStores } from '../wiring.ts';
import { type LogListFlags, logQuery } from './logListing.ts';

/** `paylink webhooks …` and `paylink merchant rotate-webhook-secret`: the webhook log and its operations. */

function printEvent(view: WebhookEventView, withAttempts: boolean): void {
  const next = view.next_attempt_at ? `  next ${view.next_attempt_at}` : '';
  // An event of no payment is on its subscription's own timeline (decision 0063).
  const timeline =
    view.payment_id !== null ? `payment ${view.payment_id}` : `subscription ${view.subscription_id}`;
  out(
    `${view.id}  ${view.event.padEnd(18)}  ${view.delivery_status.padEnd(10)}  ` +
      `${String(view.attempt_count).padStart(2)} attempt(s)  ${timeline}  ${view.created_at}${next}`,
  );
  if (!withAttempts) return;
  for (const a of view.attempts) {
    const answer = a.status_code === null ? (a.error ?? 'in flight') : `HTTP ${a.status_code}`;
    const took = a.duration_ms === null ? '' : ` in ${a.duration_ms} ms`;
    out(
      `  #${a.attempt}  ${a.started_at}  ${a.outcome ?? 'in flight'}  ${answer}${took}  ${a.url ?? '(no URL)'}`,
    );
  }
}

export function registerWebhookCommands(program: Command, config: () => Config): void {
  const webhooks = program.command('webhooks').description('webhook deliveries: the log, and sending again');

  webhooks
    .command('list')
    .description('list webhook events, newest first, with their delivery state')
    .option('--payment <id>', 'only the events of this payment')
    .option('--merchant <public_id>', 'only the events of this merchant')
    .addOption(
      new Option('--status <status>', 'only events in this delivery state').choices(DELIVERY_STATUSES),
    )
    .option('--limit <n>', 'at most this many events (1–100)', '50')
    .option('--json', 'print JSON, with every attempt')
    .action(async (options: LogListFlags) => {
      const events = await withStores(config(), (stores) => listWebhookEvents(stores, logQuery(options)));
      const views = events.map(describeWebhookEvent);
      if (options.json) return out(JSON.stringify({ events: views }));
      if (views.length === 0) return out('No webhook events match.');
      for (const view of views) printEvent(view, false);
    });

  webhooks
    .command('show <event_id>')
    .description('show a webhook event and every attempt')
    .option('--json', 'print JSON')
    .action(async (eventId: string, options: { json?: boolean }) => {
      const view = describeWebhookEvent(
        await withStores(config(), (stores) => getWebhookEvent(stores, eventId)),
      );
      if (options.json) return out(JSON.stringify(view));
      printEvent(view, true);
    });

  webhooks
    .command('resend <event_id>')
    .description('send an event again now (same webhook-id and body), with a fresh retry schedule')
    .option('--json', 'print JSON')
    .action(async (eventId: string, options: { json?: boolean }) => {
      const view = await withStores(config(), async (stores) => {
        await resendWebhookEvent({ ...stores, clock: systemClock }, eventId);
        return describeWebhookEvent(await getWebhookEvent(stores, eventId));
      });
      if (options.json) return out(JSON.stringify(view));
      out(`Event ${eventId} queued: a worker sends it within seconds.`);
    });

  const merchant = program.commands.find((c) => c.name() === 'merchant');
  if (!merchant) throw new Error('the merchant command must be registered first');
  merchant
    .command('rotate-webhook-secret <public_id>')
    .description('issue a new webhook signing secret; the old one keeps signing during the overlap')
    .option('--overlap <duration>', 'how long webhooks are signed with the old secret too', '24h')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { overlap: string; json?: boolean }) => {
      const overlapMs = parseDuration(options.overlap) ?? Number.NaN;
      if (Number.isNaN(overlapMs)) {
        throw new PaylinkError('VALIDATION_ERROR', 'overlap: must be a duration such as 0, 30m or 24h');
      }
      const rotated = await withStores(config(), (stores) =>
        rotateWebhookSecret({ ...stores, clock: systemClock }, id, overlapMs),
      );
      const until = rotated.previousSecretValidUntil.toISOString();
      if (options.json) {
        return out(
          JSON.stringify({
            merchant: describeMerchant(rotated.merchant),
            webhook_secret: rotated.webhookSecret,
            previous_secret_valid_until: until,
          }),
        );
      }
      out(`New webhook secret for ${rotated.merchant.id}:`);
      out(`  webhook secret  ${rotated.webhookSecret}`);
      out('                  (shown once: store it in your secret manager now)');
      out(
        overlapMs > 0
          ? `  Webhooks are signed with both the new and the old secret until ${until}.`
          : '  The old secret no longer signs webhooks.',
      );
    });
}
