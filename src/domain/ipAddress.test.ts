import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockedAddressPhrase, blockedAddressReason, formatIpAddress, parseIpAddress } from './ipAddress.ts';

const refuse = (text: string) => blockedAddressReason(text, { allowPrivate: false });
const refuseInDev = (text: string) => blockedAddressReason(text, { allowPrivate: true });

describe('parseIpAddress', () => {
  it('reads every IPv4 spelling inet_aton and browsers accept', () => {
    for (const spelling of [
      '127.0.0.1',
      '2130706433',
      '0x7f000001',
      '0x7f.1',
      '0177.0.0.1',
      '127.1',
      '127.0.1',
    ]) {
      const parsed = parseIpAddress(spelling);
      expect(parsed && formatIpAddress(parsed), spelling).toBe('127.0.0.1');
    }
    expect(formatIpAddress(parseIpAddress('0xa9.0xfe.0xa9.0xfe')!)).toBe('169.254.169.254');
  });

  it('reads IPv6 with compression, brackets, an IPv4 tail and a zone', () => {
    expect(formatIpAddress(parseIpAddress('[::1]')!)).toBe('0:0:0:0:0:0:0:1');
    expect(formatIpAddress(parseIpAddress('::ffff:127.0.0.1')!)).toBe('0:0:0:0:0:ffff:7f00:1');
    expect(formatIpAddress(parseIpAddress('fe80::1%eth0')!)).toBe('fe80:0:0:0:0:0:0:1');
    expect(formatIpAddress(parseIpAddress('2606:4700:4700::1111')!)).toBe('2606:4700:4700:0:0:0:0:1111');
  });

  it('is not fooled by names and malformed text', () => {
    for (const text of [
      'example.com',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.4294967296',
      '08.1.1.1',
      ':::',
      '1::2::3',
      '',
      'ff::g',
    ]) {
      expect(parseIpAddress(text), text).toBeUndefined();
    }
  });

  it('round-trips any IPv4 and IPv6 address', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(formatIpAddress(parseIpAddress(ip)!)).toBe(ip);
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const parsed = parseIpAddress(ip)!;
        expect(parseIpAddress(formatIpAddress(parsed))).toStrictEqual(parsed);
      }),
    );
  });
});

describe('blockedAddressReason', () => {
  it('refuses each family that leads into our own network, IPv4 and IPv6', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['2130706433', 'loopback'],
      ['0x7f.1', 'loopback'],
      ['::1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['fd12:3456::1', 'private'],
      ['169.254.1.1', 'link-local'],
      ['fe80::1', 'link-local'],
      ['100.64.0.1', 'carrier-grade NAT'],
      ['100.127.255.254', 'carrier-grade NAT'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['169.254.169.254', 'cloud metadata'],
      ['fd00:ec2::254', 'cloud metadata'],
      ['100.100.100.200', 'cloud metadata'],
      ['168.63.129.16', 'cloud metadata'],
      ['::ffff:127.0.0.1', 'IPv4-mapped'],
      ['::ffff:7f00:1', 'IPv4-mapped'],
      ['::ffff:8.8.8.8', 'IPv4-mapped'],
      ['64:ff9b::a00:1', 'NAT64'],
      ['2002:7f00:1::', '6to4'],
      ['255.255.255.255', 'broadcast'],
      ['192.0.2.1', 'reserved'],
    ];
    for (const [address, reason] of cases) expect(refuse(address), address).toBe(reason);
  });

  it('allows public unicast addresses', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450::1',
    ]) {
      expect(refuse(address), address).toBeUndefined();
    }
  });

  it('allows private addresses for local development, but never cloud metadata', () => {
    expect(refuseInDev('127.0.0.1')).toBeUndefined();
    expect(refuseInDev('10.0.0.1')).toBeUndefined();
    expect(refuseInDev('169.254.169.254')).toBe('cloud metadata');
    expect(refuseInDev('fd00:ec2::254')).toBe('cloud metadata');
  });

  it('refuses text that is not an address', () => {
    expect(refuse('localhost')).toBe('not an IP address');
  });
});

describe('blockedAddressPhrase', () => {
  it('gives each reason the article it is spoken with', () => {
    expect(blockedAddressPhrase('loopback')).toBe('a loopback address');
    expect(blockedAddressPhrase('carrier-grade NAT')).toBe('a carrier-grade NAT address');
    expect(blockedAddressPhrase('6to4')).toBe('a 6to4 address');
    expect(blockedAddressPhrase('IPv4-mapped')).toBe('an IPv4-mapped address');
    expect(blockedAddressPhrase('IPv4-compatible')).toBe('an IPv4-compatible address');
    expect(blockedAddressPhrase('unspecified')).toBe('an unspecified address');
    expect(blockedAddressPhrase('NAT64')).toBe('an NAT64 address');
    expect(blockedAddressPhrase('not an IP address')).toBe('not an IP address');
  });
});

describe('parseIpAddress at the edges of each spelling', () => {
  const v4 = (text: string) => {
    const address = parseIpAddress(text);
    return address ? formatIpAddress(address) : undefined;
  };

  it('reads a bare 0x part as 0, and a 12-character part', () => {
    expect(v4('0x7f.0x.0.1')).toBe('127.0.0.1');
    expect(v4(`${'0'.repeat(11)}1`)).toBe('0.0.0.1');
  });

  it('refuses parts that are not wholly hex, octal or decimal', () => {
    for (const text of [
      '120x5',
      '0x1g',
      '018',
      '1.2.3.4.0',
      `${'0'.repeat(12)}1`,
      `1.${'0'.repeat(12)}1`,
      '1.2.3.256',
      '1.2.65536',
    ]) {
      expect(parseIpAddress(text), text).toBeUndefined();
    }
  });

  it('refuses malformed IPv6: bad tails, bad groups, too many or too few groups', () => {
    for (const text of [
      '::ffff:1.2.3',
      '::ffff:1.2.3.256',
      '::ffff:1.2.3.01',
      '::ffff:1.2.3.a4',
      '::ffff:1.2.3.4a',
      '::1.2.3.4:1',
      '::12345',
      '1:2:3:4::5:6:7:8',
      '1:2:3:4:5:6:7:8::1::2',
      '1:2:3',
      'fe80::1%eth0:1',
      '[::1',
      'x::1]',
    ]) {
      expect(parseIpAddress(text), text).toBeUndefined();
    }
  });

  it('reads an IPv4 tail up to 255 and a zone', () => {
    expect(parseIpAddress('::ffff:1.2.3.255')).toStrictEqual({ family: 6, value: 0xffff01_0203ffn });
    expect(parseIpAddress('fe80::1%eth0')).toStrictEqual({ family: 6, value: (0xfe80n << 112n) | 1n });
    expect(parseIpAddress('[::1]')).toStrictEqual({ family: 6, value: 1n });
  });
});
