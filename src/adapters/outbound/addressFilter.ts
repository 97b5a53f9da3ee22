import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { type AddressPolicy, blockedAddressPhrase, blockedAddressReason } from '../../domain/ipAddress.ts';

/** A connection refused because of where it would go. Its message names the host and address, nothing else. */
class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
  readonly code = 'EPAYLINKBLOCKED';
}

export function blockedError(host: string, address: string, reason: string): BlockedAddressError {
  const target = host === address ? address : `${host} resolves to ${address}, which`;
  return new BlockedAddressError(`refused: ${target} is ${blockedAddressPhrase(reason)}`);
}

type LookupAll = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for sockets that resolves every address of the name and refuses the connection if any of them
 * is blocked — checked on the addresses the socket will actually use, so a name that resolved to a public
 * address when configured and to 127.0.0.1 now (DNS rebinding) is still refused. All of them, not only the
 * first: otherwise a name with one public and one private address could win the race to the private one.
 */
export function filteringLookup(
  policy: AddressPolicy,
  base: LookupAll = dnsLookup as LookupAll,
): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      if (addresses.length === 0) {
        const none: NodeJS.ErrnoException = new Error(`DNS: ${hostname} has no address`);
        none.code = 'ENOTFOUND';
        return callback(none, '');
      }
      for (const { address } of addresses) {
        const reason = blockedAddressReason(address, policy);
        if (reason) return callback(blockedError(hostname, address, reason), '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
