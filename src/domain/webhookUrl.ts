import { ValidationError } from './errors.ts';
import { blockedAddressPhrase, blockedAddressReason, parseIpAddress } from './ipAddress.ts';

/**
 * Names that can only mean a machine on our side: `localhost` (RFC 6761), mDNS `.local`, `.internal`
 * (ICANN's private-use name, e.g. metadata.google.internal), `.home.arpa`, and single-label names, which
 * resolve through the resolver's search domains to internal hosts.
 */
function internalHostName(host: string): boolean {
  const name = host.replace(/\.$/, '').toLowerCase();
  return !name.includes('.') || name === 'localhost' || /\.(localhost|local|internal|home\.arpa)$/.test(name);
}

/**
 * A webhook URL as configured. Plain http is for local development only; credentials in a URL would be
 * logged by every proxy on the way, so they are refused. Unless private addresses are allowed (local
 * development and tests), a host written as an IP address — in any spelling, which `new URL` normalizes —
 * must be a public one, and a name must not be one that only exists inside a network. Names are resolved and
 * checked again when configured (app/webhooks/checkWebhookHost.ts) and at every connection (adapters/outbound).
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
  if (parseIpAddress(url.hostname)) {
    const reason = blockedAddressReason(url.hostname, { allowPrivate: options.allowInsecure });
    if (reason) throw new ValidationError(field, `must not point to ${blockedAddressPhrase(reason)}`);
  } else if (!options.allowInsecure && internalHostName(url.hostname)) {
    throw new ValidationError(field, 'must name a public host');
  }
  return url.toString();
}
