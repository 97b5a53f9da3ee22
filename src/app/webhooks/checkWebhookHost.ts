import { ValidationError } from '../../domain/errors.ts';
import { blockedAddressPhrase, blockedAddressReason, parseIpAddress } from '../../domain/ipAddress.ts';
import type { HostResolver } from './ports.ts';

/** How a webhook URL is checked where it is saved (a merchant's settings, a payment's own URL). */
export interface WebhookUrlRules {
  /** Private and loopback addresses, and plain http, allowed (the sandbox). */
  readonly webhookAllowPrivate: boolean;
  /** Resolves webhook host names to refuse internal ones when saved; without it only IP literals are checked. */
  readonly hostResolver?: HostResolver | undefined;
}

/**
 * The configuration-time half of the SSRF check that needs DNS: a webhook URL whose host name resolves to a
 * blocked address (`internal.example.com` → 10.0.0.5) is refused when it is saved, so the merchant learns at
 * once rather than through failed deliveries. A name that does not resolve now is accepted — it may be set up
 * later — because every connection is checked again after resolution (adapters/outbound). Without a resolver
 * (tests of other things) only the address literals checked by parseWebhookUrl apply.
 */
export async function checkWebhookHost(
  deps: WebhookUrlRules,
  field: string,
  url: string | null,
): Promise<void> {
  if (url === null || !deps.hostResolver) return;
  const host = new URL(url).hostname;
  if (parseIpAddress(host)) return;
  let addresses: string[];
  try {
    addresses = await deps.hostResolver.resolve(host);
  } catch {
    return;
  }
  for (const address of addresses) {
    const reason = blockedAddressReason(address, { allowPrivate: deps.webhookAllowPrivate });
    if (reason)
      throw new ValidationError(
        field,
        `must not point to ${blockedAddressPhrase(reason)} (${host} resolves to ${address})`,
      );
  }
}
