import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the signature is
 * `v1,` + base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")), where the key is the base64
 * part of the merchant's `whsec_…` secret. Written out here (a dozen lines) rather than taken from the
 * `standardwebhooks` package, so the tests, which verify with that package as a merchant would, check an
 * independent implementation.
 */
export type WebhookSignatureHeaders = {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

const SECRET_PREFIX = 'whsec_';

function secretKey(secret: string): Buffer {
  const base64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(base64, 'base64');
  // An empty or garbled key would sign with nothing: refuse rather than send a worthless signature.
  if (key.length < 16) throw new Error('webhook secret is not a whsec_ base64 key');
  return key;
}

export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8');
  return `v1,${mac.digest('base64')}`;
}

/**
 * The three headers for one attempt. With several secrets (a rotation's overlap) there is one signature per
 * secret, space-separated, newest first: a receiver holding either secret verifies the message.
 */
export function signWebhook(input: {
  readonly id: string;
  readonly timestamp: Date;
  readonly body: string;
  readonly secrets: readonly string[];
}): WebhookSignatureHeaders {
  if (input.secrets.length === 0) throw new Error('no secret to sign with');
  // Standard Webhooks ids and timestamps are single tokens: a separator inside would change the signed text.
  if (!/^[\w-]{1,255}$/.test(input.id)) throw new Error('webhook id must be a plain token');
  const timestampSeconds = Math.floor(input.timestamp.getTime() / 1000);
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': input.secrets
      .map((secret) => webhookSignature(secret, input.id, timestampSeconds, input.body))
      .join(' '),
  };
}

/**
 * The secrets to sign with now: the current one, plus the previous one until its overlap ends (after a
 * rotation, so merchants can switch their verification over without dropping a webhook).
 */
export function signingSecrets(
  current: string,
  previous: { readonly secret: string; readonly until: Date } | null,
  now: Date,
): string[] {
  return previous && previous.until.getTime() > now.getTime() && previous.secret !== current
    ? [current, previous.secret]
    : [current];
}
