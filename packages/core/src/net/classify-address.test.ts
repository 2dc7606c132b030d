import { describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress } from './classify-address.js';
import { isPrivateAddress } from './private-network.js';

const NOT_PUBLIC = [
  // IPv4 special ranges
  '127.0.0.1',
  '127.255.255.254',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '255.255.255.255',
  '224.0.0.1',
  '240.0.0.1',
  '192.0.0.9',
  '192.0.2.1',
  '192.88.99.1',
  '198.18.0.1',
  '198.51.100.7',
  '203.0.113.9',
  '192.175.48.1',
  '192.52.193.1',
  // IPv4 spellings that sockets and resolvers still accept
  '2130706433',
  '0x7f000001',
  '0x7f.1',
  '127.1',
  '0177.0.0.1',
  // IPv6 special ranges
  '::1',
  '::',
  'fe80::1',
  'fe80::1%eth0',
  'fc00::1',
  'fd12:3456::1',
  'fec0::1',
  'ff02::1',
  '100::1',
  '2001:db8::1',
  '2001:2::1',
  '2001:3::1',
  '2001:4:112::1',
  '2001:10::1',
  '2001:20::1',
  '[::1]',
  // IPv6 carrying a non-public IPv4 address
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::127.0.0.1',
  '::7f00:1',
  '::a00:1',
  '::ffff:0:7f00:1',
  '2002:7f00:1::',
  '2002:a00:1::1',
  '64:ff9b::7f00:1',
  '64:ff9b::127.0.0.1',
  '64:ff9b:1::7f00:1',
  '2001:0::',
  '2001:0:4136:e378:8000:63bf:80ff:fffe',
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '172.32.0.1',
  '2606:4700::1111',
  '2001:4860:4860::8888',
  '[2606:4700::1111]',
  '::ffff:8.8.8.8',
];

const NOT_ADDRESSES = ['', 'example.com', 'localhost', '1.2.3.4.5', '::g', ' 8.8.8.8', '8.8.8.8/32'];

describe('isPublicAddress', () => {
  it.each(NOT_PUBLIC)('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
    // The older guard, still used by the sandbox, must agree.
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(PUBLIC)('admits %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
    expect(isPrivateAddress(address)).toBe(false);
  });

  it.each(NOT_ADDRESSES)('refuses %j, which is not an address', (value) => {
    expect(isPublicAddress(value)).toBe(false);
    expect(classifyAddress(value)).toBeUndefined();
  });

  it('refuses a translation prefix even when the IPv4 address it carries is public', () => {
    // 6to4, NAT64 and Teredo go through relays or gateways we cannot vouch for.
    expect(isPublicAddress('2002:808:808::1')).toBe(false);
    expect(isPublicAddress('64:ff9b::808:808')).toBe(false);
  });
});

describe('classifyAddress', () => {
  it('names the range and the IPv4 address an IPv6 address carries', () => {
    expect(classifyAddress('2002:7f00:1::')).toEqual({
      address: '2002:7f00:1::',
      range: '6to4',
      embedded: { address: '127.0.0.1', range: 'loopback' },
      public: false,
    });
    expect(classifyAddress('::7f00:1')).toMatchObject({
      range: 'unicast',
      embedded: { address: '127.0.0.1', range: 'loopback' },
      public: false,
    });
    expect(classifyAddress('64:ff9b::a9fe:a9fe')).toMatchObject({
      range: 'rfc6052',
      embedded: { address: '169.254.169.254', range: 'linkLocal' },
    });
  });

  it('decodes the inverted client address of a Teredo address', () => {
    // RFC 4380's layout; the example from its documentation: client 192.0.2.45 behind server 65.54.227.120.
    expect(classifyAddress('2001:0:4136:e378:8000:63bf:3fff:fdd2')?.embedded).toEqual({
      address: '192.0.2.45',
      range: 'reserved',
    });
  });

  it('gives an IPv4-mapped address as the IPv4 address it maps to', () => {
    expect(classifyAddress('::ffff:7f00:1')).toEqual({
      address: '127.0.0.1',
      range: 'loopback',
      public: false,
    });
    expect(classifyAddress('0x7f.1')).toEqual({ address: '127.0.0.1', range: 'loopback', public: false });
  });
});
