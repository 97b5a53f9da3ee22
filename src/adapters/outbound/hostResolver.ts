import { lookup } from 'node:dns/promises';
import type { HostResolver } from '../../app/webhooks/ports.ts';

/**
 * The system resolver (getaddrinfo: /etc/hosts, then DNS), as the connection itself will resolve, bounded in
 * time so that saving a merchant or creating a payment never hangs on a slow name server.
 */
export function systemHostResolver(timeoutMs = 2_000): HostResolver {
  return {
    async resolve(hostname) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`DNS: no answer for ${hostname} within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        const addresses = await Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]);
        return addresses.map((a) => a.address);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
