import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getWebhookEvent } from '../../src/app/webhooks/listWebhookEvents.ts';
import { dialects } from '../helpers/database.ts';
import { until } from '../helpers/net.ts';
import { startWebhookHarness, type WebhookHarness } from '../helpers/webhookHarness.ts';
import { verifyAsMerchant } from '../helpers/webhookReceiver.ts';
import { exited, workerProcesses } from '../helpers/workerProcesses.ts';

const WORKER = fileURLToPath(new URL('../fixtures/webhookWorker.ts', import.meta.url));
const LEASE_MS = 60_000;

describe.each(dialects)('webhook worker killed mid-delivery, %s', (dialect) => {
  let h: WebhookHarness;
  const workers = workerProcesses(WORKER);
  beforeEach(async () => {
    h = await startWebhookHarness(dialect);
  });
  afterEach(async () => {
    workers.killAll();
    await h.close();
  });

  /** A real worker process running the dispatcher loop on the test's database. */
  const startWorker = (clockOffsetMs: number) =>
    workers.start({
      PAYLINK_DATABASE_URL: h.api.database.url,
      WORKER_CLOCK_OFFSET_MS: String(clockOffsetMs),
      WORKER_LEASE_MS: String(LEASE_MS),
    });

  /** Polls the log (bounded) until the event reaches `status`. */
  const waitForStatus = (eventId: string, status: string) =>
    until(
      `event ${eventId} becoming ${status}`,
      () => getWebhookEvent(h.api.stores, eventId),
      (found) => found.event.deliveryStatus === status,
      { explain: () => `worker log:\n${workers.log()}` },
    );

  it('the event is delivered after a restart, with the same id and body', async () => {
    // The first request is held open — the receiver never answers it — while the worker is killed.
    h.receiver.respond = (_request, index) => (index === 0 ? new Promise(() => {}) : { status: 200 });
    const eventId = await h.pay(await h.createPayment());

    const first = startWorker(0);
    await h.receiver.waitForRequests(1);
    first.kill('SIGKILL');
    await exited(first);
    const orphaned = await getWebhookEvent(h.api.stores, eventId);
    expect(orphaned.event.deliveryStatus).toBe('delivering');
    expect(orphaned.attempts).toMatchObject([{ attemptNumber: 1, finishedAt: null, outcome: null }]);

    // A new worker whose clock is past the dead worker's lease takes the event over.
    const second = startWorker(LEASE_MS + 1_000);
    const { event, attempts } = await waitForStatus(eventId, 'delivered');
    second.kill('SIGTERM');
    await exited(second);

    expect(h.receiver.received).toHaveLength(2);
    const [lost, redelivered] = h.receiver.received;
    expect(redelivered!.headers['webhook-id']).toBe(eventId);
    expect(lost!.headers['webhook-id']).toBe(eventId);
    expect(redelivered!.body.equals(lost!.body)).toBe(true);
    verifyAsMerchant(h.merchant.webhookSecret, redelivered!);
    expect(event.attemptCount).toBe(2);
    expect(attempts.map((a) => [a.attemptNumber, a.outcome])).toStrictEqual([
      [1, 'abandoned'],
      [2, 'delivered'],
    ]);
    expect(attempts[0]!.error).toMatch(/worker stopped or lost its lease/);
  });
});
