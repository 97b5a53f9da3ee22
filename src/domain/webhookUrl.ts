import { ValidationError } from './errors.ts';

/**
 * A webhook URL as configured. Plain http is for local development only; credentials in a URL would be
 * logged by every proxy on the way, so they are refused. (Address checks happen again at connect time.)
 */
export function parseWebhookUrl(field: string, input: string, options: { allowInsecure: boolean }): string {
  const text = input.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ValidationError(field, 'must be an absolute URL');
  }
  if (text.length > 2048) throw new ValidationError(field, 'must be at most 2048 characters');
  if (url.protocol !== 'https:' && !(options.allowInsecure && url.protocol === 'http:')) {
    throw new ValidationError(
      field,
      options.allowInsecure ? 'must be an http(s) URL' : 'must be an https URL',
    );
  }
  if (url.username || url.password) throw new ValidationError(field, 'must not contain credentials');
  return url.toString();
}
