/**
 * The sandbox demo merchant's webhook endpoint, on a real socket: its log line says what a webhook told, and for
 * payment.payout_sent the exact base units each side received (the README's walk-through points at that line).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/domain/webhookSignature.ts';
import { sandboxInboxMerchant, startSandboxWebhookInbox } from '../../src/sandbox/webhookInbox.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { freePort } from '../helpers/net.ts';

describe('the sandbox webhook inbox', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const { logger, text } = capturingLogger();
  let inbox: Awaited<ReturnType<typeof startSandboxWebhookInbox>>;
  beforeAll(async () => {
    inbox = await startSandboxWebhookInbox(
      { host: '127.0.0.1', port: await freePort(), secret, merchantId: 'mch_demo' },
      logger,
    );
  });
  afterAll(() => inbox?.close());

  const deliver = (id: string, payload: Record<string, unknown>, secrets = [secret]) => {
    const body = JSON.stringify(payload);
    const headers = signWebhook({ id, timestamp: new Date(), body, secrets });
    return fetch(inbox.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
  };
  const lineOf = (id: string) =>
    text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.webhookId === id);

  it('logs payment.payout_sent with the base units the merchant and the treasury received', async () => {
    const answer = await deliver('evt_payout', {
      event: 'payment.payout_sent',
      payment_id: 'p1',
      status: 'paid',
      merchant_received_base_units: '26730000',
      treasury_received_base_units: '270000',
    });
    expect(answer.status).toBe(204);
    expect(lineOf('evt_payout')).toMatchObject({
      msg: 'sandbox merchant received a webhook (signature verified)',
      event: 'payment.payout_sent',
      paymentId: 'p1',
      merchantReceivedBaseUnits: '26730000',
      treasuryReceivedBaseUnits: '270000',
    });
  });

  it('says whose inbox it is, so that another sandbox does not take it for its own', async () => {
    const { port } = new URL(inbox.url);
    expect(await sandboxInboxMerchant('127.0.0.1', Number(port))).toBe('mch_demo');
    expect(await sandboxInboxMerchant('127.0.0.1', await freePort())).toBeUndefined();
  });

  it('logs other events without them, and refuses a signature it cannot verify', async () => {
    expect(
      (await deliver('evt_paid', { event: 'payment.paid', payment_id: 'p1', status: 'paid' })).status,
    ).toBe(204);
    expect(lineOf('evt_paid')).not.toHaveProperty('merchantReceivedBaseUnits');
    const forged = await deliver('evt_forged', { event: 'payment.paid' }, [
      `whsec_${randomBytes(24).toString('base64')}`,
    ]);
    expect(forged.status).toBe(400);
    expect(lineOf('evt_forged')?.msg).toBe(
      'sandbox merchant received a webhook whose signature does not verify',
    );
  });
});
