import { hash, randomBytes } from 'node:crypto';

/**
 * Secrets and identifiers we issue. API keys carry 256 random bits; only their SHA-256 is stored, so a leaked
 * database does not leak working keys. Ids that are ours alone are typed and prefixed (mch_, evt_).
 */
export type KeyMode = 'live' | 'test';

/** A mode read back from a stored row or a form field: anything but `test` is `live`. */
export function keyModeOf(value: unknown): KeyMode {
  return value === 'test' ? 'test' : 'live';
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

/** A random base62 token of `length` characters (log2(62) ≈ 5.95 bits each). */
export function randomToken(length: number): string {
  // Ask for more bytes than needed so the leading base62 digits are uniform, then cut to length.
  return base62(randomBytes(Math.ceil(length * 0.75) + 8))
    .padStart(length, '0')
    .slice(-length);
}

/**
 * A new key of `mode`: the secret key `sk_live_…` / `sk_test_…`, a restricted one `rk_live_…` / `rk_test_…`, so
 * a key seen in a log or a repository tells what it is (decision 0056).
 */
export function newApiKey(mode: KeyMode, kind: 'secret' | 'restricted' = 'secret'): string {
  return `${kind === 'secret' ? 'sk' : 'rk'}_${mode}_${randomToken(43)}`; // 43 base62 characters ≈ 256 bits
}

export function apiKeyMode(key: string): KeyMode | undefined {
  if (key.startsWith('sk_live_') || key.startsWith('rk_live_')) return 'live';
  if (key.startsWith('sk_test_') || key.startsWith('rk_test_')) return 'test';
  return undefined;
}

export function hashApiKey(key: string): string {
  // The one-shot form: on every authenticated request, and a third of the cost of createHash's object dance.
  return hash('sha256', key, 'hex');
}

/**
 * Compares two hex digests in constant time: every character is read whatever differs. Character codes rather
 * than crypto's timingSafeEqual, which would need both decoded into buffers on every authenticated request.
 */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** Shown to administrators to tell keys apart; never enough to use one. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, 12);
}

/** A Standard Webhooks signing secret: "whsec_" + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function newMerchantId(): string {
  return `mch_${randomToken(22)}`;
}

export function newEventId(): string {
  return `evt_${randomToken(22)}`;
}
