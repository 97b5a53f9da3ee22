import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { newWebhookSecret } from './credentials.ts';
import { signingSecrets, signWebhook, webhookSignature } from './webhookSignature.ts';

const body = '{"id":"evt_1","event":"payment.paid","amount":"10.00","note":"é ✓"}';

/** Verifies as a merchant would, with the reference library, at the moment the message was signed. */
function verify(secret: string, headers: Record<string, string>, payload = body, at = new Date()) {
  vi.useFakeTimers({ toFake: ['Date'], now: at });
  try {
    return new Webhook(secret).verify(payload, headers);
  } finally {
    vi.useRealTimers();
  }
}

describe('signWebhook', () => {
  const timestamp = new Date('2026-11-21T12:00:00.750Z');

  it('produces Standard Webhooks headers that the standardwebhooks library verifies', () => {
    const secret = newWebhookSecret();
    const headers = signWebhook({ id: 'evt_1', timestamp, body, secrets: [secret] });
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(timestamp.getTime() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verify(secret, { ...headers }, body, timestamp)).toStrictEqual(JSON.parse(body));
  });

  it('matches the library’s own signature byte for byte', () => {
    const secret = newWebhookSecret();
    const headers = signWebhook({ id: 'evt_1', timestamp, body, secrets: [secret] });
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('evt_1', timestamp, body));
  });

  it('is refused for another secret, another body, another id', () => {
    const secret = newWebhookSecret();
    const headers = signWebhook({ id: 'evt_1', timestamp, body, secrets: [secret] });
    expect(() => verify(newWebhookSecret(), { ...headers }, body, timestamp)).toThrow();
    expect(() => verify(secret, { ...headers }, body.replace('10.00', '1000.00'), timestamp)).toThrow();
    expect(() => verify(secret, { ...headers, 'webhook-id': 'evt_2' }, body, timestamp)).toThrow();
  });

  it('carries one signature per secret during a rotation, each verifying on its own', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signWebhook({ id: 'evt_1', timestamp, body, secrets: [current, previous] });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verify(current, { ...headers }, body, timestamp)).toBeTruthy();
    expect(verify(previous, { ...headers }, body, timestamp)).toBeTruthy();
  });

  it('refuses to sign without a usable secret or with an id that would change the signed text', () => {
    expect(() => signWebhook({ id: 'evt_1', timestamp, body, secrets: [] })).toThrow();
    expect(() => signWebhook({ id: 'evt_1', timestamp, body, secrets: ['whsec_'] })).toThrow();
    expect(() => signWebhook({ id: 'evt.1', timestamp, body, secrets: [newWebhookSecret()] })).toThrow();
  });
});

describe('signingSecrets', () => {
  const now = new Date('2026-11-21T12:00:00.000Z');
  it('adds the previous secret until its overlap ends', () => {
    const until = new Date(now.getTime() + 1000);
    expect(signingSecrets('whsec_new', { secret: 'whsec_old', until }, now)).toStrictEqual([
      'whsec_new',
      'whsec_old',
    ]);
    expect(signingSecrets('whsec_new', { secret: 'whsec_old', until: now }, now)).toStrictEqual([
      'whsec_new',
    ]);
    expect(signingSecrets('whsec_new', null, now)).toStrictEqual(['whsec_new']);
  });
});

describe('signing, at its edges', () => {
  const timestamp = new Date('2026-11-21T12:00:00Z');

  it('signs with a key of 16 bytes, and refuses a shorter one', () => {
    const sixteen = `whsec_${Buffer.alloc(16, 7).toString('base64')}`;
    const key = Buffer.alloc(16, 7);
    const expected = createHmac('sha256', key).update('evt_1.1.body').digest('base64');
    expect(webhookSignature(sixteen, 'evt_1', 1, 'body')).toBe(`v1,${expected}`);
    expect(() =>
      webhookSignature(`whsec_${Buffer.alloc(15, 7).toString('base64')}`, 'evt_1', 1, 'b'),
    ).toThrow('webhook secret is not a whsec_ base64 key');
  });

  it('says why it refuses to sign', () => {
    expect(() => signWebhook({ id: 'evt_1', timestamp, body: '{}', secrets: [] })).toThrow(
      'no secret to sign with',
    );
    expect(() => signWebhook({ id: 'evt 1', timestamp, body: '{}', secrets: [newWebhookSecret()] })).toThrow(
      'webhook id must be a plain token',
    );
  });

  it('signs once when the previous secret is the current one', () => {
    const until = new Date(timestamp.getTime() + 60_000);
    expect(signingSecrets('whsec_a', { secret: 'whsec_a', until }, timestamp)).toStrictEqual(['whsec_a']);
    expect(signingSecrets('whsec_a', { secret: 'whsec_b', until }, timestamp)).toStrictEqual([
      'whsec_a',
      'whsec_b',
    ]);
  });
});
