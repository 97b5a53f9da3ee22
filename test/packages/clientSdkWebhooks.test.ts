import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  type PaymentStatusEvent,
  type PayoutDelayedEvent,
  type PayoutSentEvent,
  type RefundEvent,
  type SubscriptionEvent,
  type UnacceptedTransferEvent,
  verifyWebhook,
  type WebhookEventType,
  WebhookVerificationError,
} from '../../packages/client/src/index.ts';
import { dispatchWebhooks } from '../../src/app/webhooks/dispatchWebhooks.ts';
import { rotateWebhookSecret } from '../../src/app/webhooks/rotateWebhookSecret.ts';
import type { PaymentEventType } from '../../src/domain/paymentStatus.ts';
import type { RefundEventBody } from '../../src/domain/refundEvent.ts';
import type { SubscriptionEventBody } from '../../src/domain/subscriptionEvent.ts';
import type {
  PayoutDelayedFields,
  PayoutSentFields,
  UnacceptedTransferFields,
  WebhookEventBody,
} from '../../src/domain/webhookEvent.ts';
import { signWebhook } from '../../src/domain/webhookSignature.ts';
import { dialects } from '../helpers/database.ts';
import { startWebhookHarness, type WebhookHarness } from '../helpers/webhookHarness.ts';

type Sent<Body, Event> = Omit<Body, 'event'> & { readonly event: Event };

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const BODY = JSON.stringify({ id: 'evt_1', event: 'payment.paid', payment_id: 'p-1', amount: '10.00' });
const NOW = new Date('2026-11-21T12:00:00Z');

/** Headers as the `standardwebhooks` library signs them, for one secret. */
function signedByLibrary(secret: string, body = BODY, at = NOW, id = 'evt_1') {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof WebhookVerificationError ? error.code : error),
  );

describe('verifyWebhook', () => {
  const secret = newSecret();

  it('types the bodies the server writes, every kind of event (checked by tsc in `npm run lint`)', () => {
    expectTypeOf<Sent<WebhookEventBody, PaymentStatusEvent['event']>>().toExtend<PaymentStatusEvent>();
    expectTypeOf<
      Sent<WebhookEventBody & PayoutSentFields, 'payment.payout_sent'>
    >().toExtend<PayoutSentEvent>();
    expectTypeOf<
      Sent<WebhookEventBody & PayoutDelayedFields, 'payment.payout_delayed'>
    >().toExtend<PayoutDelayedEvent>();
    expectTypeOf<
      Sent<WebhookEventBody & UnacceptedTransferFields, 'payment.unaccepted_transfer'>
    >().toExtend<UnacceptedTransferEvent>();
    expectTypeOf<Sent<RefundEventBody, RefundEvent['event']>>().toExtend<RefundEvent>();
    expectTypeOf<Sent<SubscriptionEventBody, SubscriptionEvent['event']>>().toExtend<SubscriptionEvent>();
    expectTypeOf<PaymentEventType>().toEqualTypeOf<WebhookEventType>();
  });

  it('accepts what standardwebhooks signs: the body as text or bytes, headers as an object or Headers', async () => {
    const headers = signedByLibrary(secret);
    const event = await verifyWebhook(BODY, headers, secret, { now: NOW });
    expect(event).toStrictEqual(JSON.parse(BODY));
    await expect(verifyWebhook(Buffer.from(BODY), headers, secret, { now: NOW })).resolves.toStrictEqual(
      event,
    );
    const bytes = new TextEncoder().encode(BODY);
    await expect(
      verifyWebhook(bytes.buffer, new Headers(headers), secret, { now: NOW }),
    ).resolves.toStrictEqual(event);
    // Header names in any case, values as Node gives repeated headers.
    const mixedCase = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': [headers['webhook-timestamp']],
      'webhook-signature': headers['webhook-signature'],
    };
    await expect(verifyWebhook(BODY, mixedCase, secret, { now: NOW })).resolves.toStrictEqual(event);
    // The secret without its prefix, as some configurations hold it.
    await expect(
      verifyWebhook(BODY, headers, secret.slice('whsec_'.length), { now: NOW }),
    ).resolves.toStrictEqual(event);
  });

  it('refuses a tampered body, another id or timestamp, and another secret', async () => {
    const headers = signedByLibrary(secret);
    expect(
      await refusal(verifyWebhook(BODY.replace('10.00', '1000.00'), headers, secret, { now: NOW })),
    ).toBe('INVALID_SIGNATURE');
    expect(
      await refusal(verifyWebhook(BODY, { ...headers, 'webhook-id': 'evt_2' }, secret, { now: NOW })),
    ).toBe('INVALID_SIGNATURE');
    const aSecondLater = String(Number(headers['webhook-timestamp']) + 1);
    expect(
      await refusal(
        verifyWebhook(BODY, { ...headers, 'webhook-timestamp': aSecondLater }, secret, { now: NOW }),
      ),
    ).toBe('INVALID_SIGNATURE');
    expect(await refusal(verifyWebhook(BODY, headers, newSecret(), { now: NOW }))).toBe('INVALID_SIGNATURE');
    // A signature of another scheme, or not base64, matches nothing.
    const signature = headers['webhook-signature'].slice('v1,'.length);
    for (const other of [`v1a,${signature}`, 'v1,***', '']) {
      expect(
        await refusal(verifyWebhook(BODY, { ...headers, 'webhook-signature': other }, secret, { now: NOW })),
      ).toBe(other === '' ? 'INVALID_HEADERS' : 'INVALID_SIGNATURE');
    }
  });

  it('refuses a timestamp more than five minutes from now, either way', async () => {
    const minutes = (n: number) => new Date(NOW.getTime() + n * 60_000);
    for (const [signedAt, accepted] of [
      [minutes(-5), true],
      [minutes(5), true],
      [minutes(-6), false],
      [minutes(6), false],
    ] as const) {
      const result = await refusal(
        verifyWebhook(BODY, signedByLibrary(secret, BODY, signedAt), secret, { now: NOW }),
      );
      expect(result, signedAt.toISOString()).toBe(accepted ? undefined : 'TIMESTAMP_OUT_OF_TOLERANCE');
    }
    const staleByAnHour = signedByLibrary(secret, BODY, minutes(-60));
    expect(
      await verifyWebhook(BODY, staleByAnHour, secret, { now: NOW, toleranceSeconds: 3_600 }),
    ).toMatchObject({ id: 'evt_1' });
    // Without `now`, the system clock.
    const signedNow = signedByLibrary(secret, BODY, new Date());
    expect(await verifyWebhook(BODY, signedNow, secret)).toMatchObject({ id: 'evt_1' });
    const signedTenMinutesAgo = signedByLibrary(secret, BODY, new Date(Date.now() - 600_000));
    expect(await refusal(verifyWebhook(BODY, signedTenMinutesAgo, secret))).toBe(
      'TIMESTAMP_OUT_OF_TOLERANCE',
    );
  });

  it('accepts either signature of a rotation’s overlap, with either secret or both', async () => {
    const previous = newSecret();
    const headers = signWebhook({ id: 'evt_1', timestamp: NOW, body: BODY, secrets: [secret, previous] });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const held of [secret, previous, [previous, secret], [newSecret(), secret]]) {
      await expect(verifyWebhook(BODY, headers, held, { now: NOW })).resolves.toMatchObject({ id: 'evt_1' });
    }
    expect(await refusal(verifyWebhook(BODY, headers, [newSecret(), newSecret()], { now: NOW }))).toBe(
      'INVALID_SIGNATURE',
    );
  });

  it('names what is wrong: missing headers, an unusable secret, a body that is not an event', async () => {
    const headers = signedByLibrary(secret);
    const { 'webhook-id': _, ...withoutId } = headers;
    expect(await refusal(verifyWebhook(BODY, withoutId, secret, { now: NOW }))).toBe('INVALID_HEADERS');
    expect(
      await refusal(verifyWebhook(BODY, { ...headers, 'webhook-timestamp': '17e8' }, secret, { now: NOW })),
    ).toBe('INVALID_HEADERS');
    for (const unusable of ['whsec_', 'whsec_c2hvcnQ=', 'whsec_not base64!', [], [secret, 'whsec_']]) {
      expect(await refusal(verifyWebhook(BODY, headers, unusable, { now: NOW }))).toBe('INVALID_SECRET');
    }
    for (const body of ['not json', '[1, 2]', '{"id": "evt_1"}']) {
      expect(await refusal(verifyWebhook(body, signedByLibrary(secret, body), secret, { now: NOW }))).toBe(
        'INVALID_PAYLOAD',
      );
    }
  });

  it('never puts the secret in its errors', async () => {
    const headers = signedByLibrary(secret);
    const error = await verifyWebhook(BODY, headers, newSecret(), { now: NOW }).catch((e: unknown) => e);
    const badSecret = 'whsec_c2hvcnQ=';
    const secretError = await verifyWebhook(BODY, headers, badSecret, { now: NOW }).catch((e: unknown) => e);
    for (const [thrown, used] of [
      [error, secret],
      [secretError, badSecret],
    ] as const) {
      expect(thrown).toBeInstanceOf(WebhookVerificationError);
      expect(String(thrown) + JSON.stringify(thrown)).not.toContain(used.slice('whsec_'.length));
    }
  });
});

describe.each(dialects)('verifyWebhook on what the server delivers, on %s', (dialect) => {
  let h: WebhookHarness;
  beforeAll(async () => {
    h = await startWebhookHarness(dialect);
  });
  afterAll(() => h?.close());

  it('verifies a delivery signed with both secrets during a rotation, then with the new one only', async () => {
    const previous = h.merchant.webhookSecret;
    const { webhookSecret: current } = await rotateWebhookSecret(
      { ...h.api.stores, clock: h.api.clock },
      h.merchant.id,
      3_600_000,
    );
    const paymentId = await h.createPayment();
    await h.pay(paymentId);
    await dispatchWebhooks(h.dispatcher());
    // Signed at the server's (hand-moved) clock: verified at that moment.
    const now = h.api.clock.now();
    const during = h.receiver.received[0]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const held of [current, previous]) {
      expect(await verifyWebhook(during.body, during.headers, held, { now })).toMatchObject({
        event: 'payment.paid',
        payment_id: paymentId,
        status: 'paid',
      });
    }

    h.api.clock.advance(3_600_000);
    await h.pay(await h.createPayment());
    await dispatchWebhooks(h.dispatcher());
    const after = h.receiver.received[1]!;
    const later = h.api.clock.now();
    expect(await verifyWebhook(after.body, after.headers, current, { now: later })).toMatchObject({
      event: 'payment.paid',
    });
    expect(await refusal(verifyWebhook(after.body, after.headers, previous, { now: later }))).toBe(
      'INVALID_SIGNATURE',
    );
  });
});
