import { describe, expect, it } from 'vitest';
import { isPrivateAddress, isPrivateHostname } from './private-network.js';

describe('isPrivateHostname', () => {
  it.each([
    'localhost',
    'api.localhost',
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '[::1]',
    '[fd00::1]',
    '[fe80::1]',
    '[::ffff:127.0.0.1]',
    'printer.local',
    'db.internal',
    'intranet',
  ])('refuses %s', (host) => {
    expect(isPrivateHostname(host)).toBe(true);
  });

  it.each(['media.example', 'cdn.example.com', '93.184.216.34', '[2606:4700::1111]', '172.32.0.1'])(
    'admits %s',
    (host) => {
      expect(isPrivateHostname(host)).toBe(false);
    },
  );

  it('normalised WHATWG forms of loopback are still loopback', () => {
    expect(isPrivateHostname(new URL('http://2130706433/').hostname)).toBe(true);
    expect(isPrivateHostname(new URL('http://0x7f.1/').hostname)).toBe(true);
  });

  it('isPrivateAddress ignores names', () => {
    expect(isPrivateAddress('example.com')).toBe(false);
    expect(isPrivateAddress('10.0.0.8')).toBe(true);
  });
});
