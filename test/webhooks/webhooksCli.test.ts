import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchWebhooks } from '../../src/app/webhooks/dispatchWebhooks.ts';
import { runCli } from '../helpers/cli.ts';
import { dialects } from '../helpers/database.ts';
import { startWebhookHarness, type WebhookHarness } from '../helpers/webhookHarness.ts';
import { verifyAsMerchant } from '../helpers/webhookReceiver.ts';

describe.each(dialects)('paylink webhooks … on %s', (dialect) => {
  let h: WebhookHarness;
  let env: Record<string, string>;
  let okPayment: string;
  let delivered: string;
  let pending: string;

  beforeAll(async () => {
    h = await startWebhookHarness(dialect);
    env = { PAYLINK_DATABASE_URL: h.api.database.url, PAYLINK_NETWORK: 'polygon' };
    h.receiver.respond = (request) => (request.path === '/broken' ? { status: 500 } : { status: 200 });
    okPayment = await h.createPayment();
    delivered = await h.pay(okPayment);
    h.api.clock.advance(1_000); // distinct creation times: "newest first" is then well defined
    pending = await h.pay(await h.createPayment({ webhookUrl: h.receiver.url('/broken') }));
    await dispatchWebhooks(h.dispatcher());
  });
  afterAll(() => h.close());

  it('lists events, filtered by status or payment, as text or JSON', async () => {
    const all = await runCli(['webhooks', 'list', '--json'], env);
    expect(all.stderr).toBe('');
    expect(JSON.parse(all.stdout).events.map((e: { id: string }) => e.id)).toStrictEqual([
      pending,
      delivered,
    ]);

    const failing = JSON.parse(
      (await runCli(['webhooks', 'list', '--status', 'pending', '--json'], env)).stdout,
    );
    expect(failing.events).toHaveLength(1);
    expect(failing.events[0]).toMatchObject({
      id: pending,
      attempts: [{ status_code: 500, outcome: 'retry' }],
    });

    const text = await runCli(['webhooks', 'list', '--payment', okPayment], env);
    expect(text.stdout).toContain(delivered);
    expect(text.stdout).toContain('delivered');
    expect(text.stdout).not.toContain(pending);

    const bad = await runCli(['webhooks', 'list', '--status', 'lost'], env);
    expect(bad.code).not.toBe(0);
  });

  it('shows an event with its attempts', async () => {
    const shown = await runCli(['webhooks', 'show', pending], env);
    expect(shown.stdout).toContain(pending);
    expect(shown.stdout).toMatch(/#1 .* retry {2}HTTP 500 in \d+ ms/);
  });

  it('resends an event, and says clearly when there is no such event', async () => {
    const resent = await runCli(['webhooks', 'resend', delivered], env);
    expect(resent).toMatchObject({ code: 0, stderr: '' });
    expect(resent.stdout).toContain(`Event ${delivered} queued`);
    expect((await h.api.stores.webhooks.findEvent(delivered))?.deliveryStatus).toBe('pending');

    const missing = await runCli(['webhooks', 'resend', 'evt_nope'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: Webhook event not found\n');
  });

  it('rotates a merchant’s webhook secret with an overlap in which both secrets sign', async () => {
    const rotated = await runCli(
      ['merchant', 'rotate-webhook-secret', h.merchant.id, '--overlap', '1h', '--json'],
      env,
    );
    expect(rotated.stderr).toBe('');
    const { webhook_secret, merchant, previous_secret_valid_until } = JSON.parse(rotated.stdout);
    expect(webhook_secret).toMatch(/^whsec_/);
    expect(merchant.public_id).toBe(h.merchant.id);
    expect(Date.parse(previous_secret_valid_until)).toBeGreaterThan(Date.now());

    // The CLI rotated on the real clock: bring the harness's clock to real time, inside the overlap.
    h.api.clock.advance(Date.now() - h.api.clock.now().getTime());
    const before = h.receiver.received.length;
    await h.pay(await h.createPayment());
    await dispatchWebhooks(h.dispatcher());
    const received = h.receiver.received[before]!;
    verifyAsMerchant(webhook_secret, received);
    verifyAsMerchant(h.merchant.webhookSecret, received);

    const text = await runCli(['merchant', 'rotate-webhook-secret', h.merchant.id, '--overlap', '0'], env);
    expect(text.stdout).toContain('The old secret no longer signs webhooks.');
    const bad = await runCli(['merchant', 'rotate-webhook-secret', h.merchant.id, '--overlap', 'soon'], env);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('overlap') });
  });
});
