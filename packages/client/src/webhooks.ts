import { WebhookVerificationError } from './errors.ts';
import type { WebhookEvent } from './webhookEvents.ts';

/**
 * Standard Webhooks verification (https://www.standardwebhooks.com) with WebCrypto only, so the package needs
 * nothing but the platform: `webhook-signature` holds one or more `v1,<base64 HMAC-SHA256>` (two during a secret
 * rotation), each over `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64 part of `whsec_…`.
 */

export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way (default 300 s): older messages are replays. */
  readonly toleranceSeconds?: number;
  /** "Now" for the tolerance (default the system clock). */
  readonly now?: Date;
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

/**
 * The event, once the signature matches one of `secret` (several during your own rotation) and the timestamp
 * is recent; otherwise a `WebhookVerificationError`. Pass the body exactly as received, before any JSON
 * parsing: re-serialized JSON has other bytes and never verifies.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'INVALID_HEADERS',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    );
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError('INVALID_HEADERS', 'webhook-timestamp must be Unix seconds');
  }
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('TIMESTAMP_OUT_OF_TOLERANCE', 'webhook-timestamp is too far from now');
  }

  const body = bodyBytes(rawBody);
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), body);
  const candidates = signatures
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => base64Bytes(part.slice('v1,'.length)))
    .filter((bytes) => bytes !== undefined);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0)
    throw new WebhookVerificationError('INVALID_SECRET', 'No webhook secret was given');
  const keys = await Promise.all(secrets.map(hmacKey));
  let matched = false;
  for (const key of keys) {
    for (const candidate of candidates) {
      // WebCrypto's verify compares in constant time: the time taken tells nothing of how much matched.
      if (await globalThis.crypto.subtle.verify('HMAC', key, candidate, signed)) matched = true;
    }
  }
  if (!matched) throw new WebhookVerificationError('INVALID_SIGNATURE', 'No signature matches the secret');

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'The body is not JSON');
  }
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof (event as { event?: unknown }).event !== 'string'
  ) {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'The body is not a webhook event');
  }
  return event as WebhookEvent;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  // Node lower-cases header names; a hand-made object might not.
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === 'string' ? value : value?.[0];
}

function bodyBytes(rawBody: string | Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> {
  if (typeof rawBody === 'string') return encoder.encode(rawBody);
  return new Uint8Array(rawBody instanceof ArrayBuffer ? rawBody : rawBody.slice());
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

// Its type is inferred: `CryptoKey` is a DOM name, which Node's types call otherwise.
async function hmacKey(secret: string) {
  const bytes = base64Bytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  // As the server refuses to sign with one: an empty or garbled key would accept anyone's signature of nothing.
  if (bytes === undefined || bytes.length < 16) {
    throw new WebhookVerificationError('INVALID_SECRET', 'The webhook secret is not a whsec_ base64 key');
  }
  return globalThis.crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
}
