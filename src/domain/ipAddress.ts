/**
 * Which IP addresses a webhook may never reach. A webhook URL is chosen by a merchant, so without this check
 * anyone with an API key could make the service send requests into its own network (SSRF): the database, the
 * cloud metadata endpoint that hands out credentials, an admin port on localhost.
 *
 * Pure: parses address text (every IPv4 spelling `inet_aton` accepts — `2130706433`, `0x7f.1`, `0177.0.0.1` —
 * and IPv6 with `::`, an embedded IPv4 tail or a zone) and classifies it. The same rules run when a URL is
 * configured and, after DNS resolution, when the connection is made (adapters/outbound).
 */

export type IpAddress =
  | { readonly family: 4; readonly value: number }
  | { readonly family: 6; readonly value: bigint };

interface Range {
  readonly base: IpAddress;
  readonly prefix: number;
  readonly reason: string;
}

/** Cloud metadata endpoints hand out credentials; they stay refused even when private addresses are allowed. */
const METADATA_REASON = 'cloud metadata';

function range(cidr: string, reason: string): Range {
  const [text, prefixText] = cidr.split('/');
  const base = parseIpAddress(text ?? '');
  if (!base || prefixText === undefined) throw new Error(`bad range ${cidr}`);
  return { base, prefix: Number(prefixText), reason };
}

// Order matters: the first matching range names the reason, so the specific ones come first.
const BLOCKED_RANGES: readonly Range[] = [
  range('169.254.169.254/32', METADATA_REASON), // AWS, GCP, Azure, OpenStack, DigitalOcean …
  range('169.254.170.2/32', METADATA_REASON), // AWS ECS task credentials
  range('100.100.100.200/32', METADATA_REASON), // Alibaba Cloud
  range('168.63.129.16/32', METADATA_REASON), // Azure wire server: a public address, so listed explicitly
  range('192.0.0.192/32', METADATA_REASON), // Oracle Cloud
  range('fd00:ec2::254/128', METADATA_REASON), // AWS over IPv6
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'reserved'),
  range('192.88.99.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'reserved'),
  range('203.0.113.0/24', 'reserved'),
  range('224.0.0.0/4', 'multicast'),
  range('255.255.255.255/32', 'broadcast'),
  range('240.0.0.0/4', 'reserved'),
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  // IPv4 inside IPv6 (mapped, compatible, NAT64, 6to4, Teredo) can smuggle any IPv4 address: refused whole,
  // as the connect-time library does too.
  range('::ffff:0:0/96', 'IPv4-mapped'),
  range('::/96', 'IPv4-compatible'),
  range('64:ff9b::/96', 'NAT64'),
  range('64:ff9b:1::/48', 'NAT64'),
  range('100::/64', 'reserved'),
  range('2001::/23', 'reserved'),
  range('2001:db8::/32', 'reserved'),
  range('2002::/16', '6to4'),
  range('fc00::/7', 'private'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'link-local'),
  range('ff00::/8', 'multicast'),
];

/** One IPv4 part as inet_aton reads it: decimal, 0x hex or 0-prefixed octal. */
function parseIpv4Part(part: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return undefined;
}

/**
 * IPv4 in any spelling inet_aton accepts (1 to 4 parts, the last one filling the remaining bytes), which is
 * also what browsers and `new URL` accept: `http://2130706433/` is 127.0.0.1.
 */
function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => p.length === 0 || p.length > 12)) return undefined;
  const numbers = parts.map(parseIpv4Part);
  if (numbers.some((n) => n === undefined || !Number.isSafeInteger(n))) return undefined;
  const values = numbers as number[];
  const last = values[values.length - 1]!;
  const head = values.slice(0, -1);
  if (head.some((n) => n > 255)) return undefined;
  const lastBytes = 4 - head.length;
  if (last >= 2 ** (8 * lastBytes)) return undefined;
  let value = 0;
  for (const byte of head) value = value * 256 + byte;
  return value * 2 ** (8 * lastBytes) + last;
}

function parseIpv6(input: string): bigint | undefined {
  // A zone (fe80::1%eth0) only says which interface; the address decides.
  const text = input.replace(/%[\w.-]+$/, '');
  if (!/^[0-9a-f:.]+$/i.test(text)) return undefined;
  let groups: number[] = [];
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parseGroups = (side: string): number[] | undefined => {
    if (side === '') return [];
    const out: number[] = [];
    const pieces = side.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes('.')) {
        // Dotted IPv4 tail: strictly four decimal parts here (RFC 4291), not the inet_aton forms.
        const bytes = piece.split('.');
        if (bytes.length !== 4 || bytes.some((b) => !/^(0|[1-9]\d{0,2})$/.test(b) || Number(b) > 255)) {
          return undefined;
        }
        const [a, b, c, d] = bytes.map(Number) as [number, number, number, number];
        out.push(a * 256 + b, c * 256 + d);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(piece)) return undefined;
        out.push(Number.parseInt(piece, 16));
      }
    }
    return out;
  };
  const left = parseGroups(halves[0]!);
  const right = halves.length === 2 ? parseGroups(halves[1]!) : [];
  if (!left || !right) return undefined;
  if (halves.length === 2) {
    const missing = 8 - left.length - right.length;
    if (missing < 1) return undefined;
    groups = [...left, ...Array<number>(missing).fill(0), ...right];
  } else {
    groups = left;
  }
  if (groups.length !== 8) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** An IP address literal (IPv6 with or without brackets), or undefined when the text is not one. */
export function parseIpAddress(text: string): IpAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (bare.includes(':')) {
    const value = parseIpv6(bare);
    return value === undefined ? undefined : { family: 6, value };
  }
  const value = parseIpv4(bare);
  return value === undefined ? undefined : { family: 4, value };
}

function inRange(address: IpAddress, r: Range): boolean {
  if (address.family !== r.base.family) return false;
  if (address.family === 4) {
    const size = 2 ** (32 - r.prefix);
    return Math.floor(address.value / size) === Math.floor((r.base.value as number) / size);
  }
  const shift = BigInt(128 - r.prefix);
  return address.value >> shift === (r.base.value as bigint) >> shift;
}

export function formatIpAddress(address: IpAddress): string {
  if (address.family === 4) {
    const v = address.value;
    return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
  }
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((address.value >> BigInt(16 * i)) & 0xffffn).toString(16));
  return groups.join(':');
}

export interface AddressPolicy {
  /** Local development and tests: private, loopback and the like are allowed; cloud metadata never is. */
  readonly allowPrivate: boolean;
}

/**
 * Why a webhook may not be sent to this address ("loopback", "private", "cloud metadata", …), or undefined
 * when it may. Text that is not an IP address is refused as well: callers pass addresses, never names.
 */
/**
 * "a loopback address", "an IPv4-mapped address": the reason as the messages name it, with the article its
 * spoken form takes (NAT64 and IPv4 are spelled out: "an N-A-T", "an I-P").
 */
export function blockedAddressPhrase(reason: string): string {
  if (reason.startsWith('not ')) return reason;
  return `${/^(?:[aeiou]|NAT)/i.test(reason) ? 'an' : 'a'} ${reason} address`;
}

export function blockedAddressReason(text: string, policy: AddressPolicy): string | undefined {
  const address = parseIpAddress(text);
  if (!address) return 'not an IP address';
  const blocked = BLOCKED_RANGES.find((r) => inRange(address, r));
  if (!blocked) return undefined;
  if (policy.allowPrivate && blocked.reason !== METADATA_REASON) return undefined;
  return blocked.reason;
}
