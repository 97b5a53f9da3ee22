import { ValidationError } from './errors.ts';

/** The longest redirect URL taken, as for webhook URLs: longer ones break browsers and proxies on the way. */
export const MAX_REDIRECT_URL_LENGTH = 2048;

/**
 * A URL the customer's browser is sent to (a payment's `success_url` or `cancel_url`, a link's image): never
 * fetched by the service, so no host is resolved or refused, but https only (plain http is for the sandbox and
 * local development, as for webhook URLs), at most 2048 characters, and no credentials (they would be shown to
 * every customer and logged by every proxy).
 */
export function parseRedirectUrl(field: string, input: string, options: { allowInsecure: boolean }): string {
  const text = input.trim();
  if (text.length > MAX_REDIRECT_URL_LENGTH)
    throw new ValidationError(field, `must be at most ${MAX_REDIRECT_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ValidationError(field, 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(options.allowInsecure && url.protocol === 'http:')) {
    throw new ValidationError(
      field,
      options.allowInsecure ? 'must be an http(s) URL' : 'must be an https URL',
    );
  }
  if (url.username || url.password) throw new ValidationError(field, 'must not contain credentials');
  return url.toString();
}

/**
 * Where the customer goes: the merchant's URL with `payment_id=<id>` in its query, after the merchant's own
 * parameters (a `payment_id` of the merchant's is replaced: the payment's id is the one the page must trust to
 * look the payment up), the fragment kept.
 */
export function withPaymentId(url: string, paymentId: string): string {
  const target = new URL(url);
  target.searchParams.set('payment_id', paymentId);
  return target.toString();
}

/** {@link parseRedirectUrl} of a field a client may leave out: absent or blank, there is none (null). */
export function optionalRedirectUrl(
  field: string,
  input: string | undefined,
  options: { allowInsecure: boolean },
): string | null {
  return input?.trim() ? parseRedirectUrl(field, input, options) : null;
}
