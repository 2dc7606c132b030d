import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/polymodal-error.js';
import { assertPublicHttpUrl } from './assert-public-http-url.js';

function refusal(url: string): unknown {
  try {
    assertPublicHttpUrl(url, { field: 'image.url' });
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('assertPublicHttpUrl', () => {
  it.each([
    'http://[::ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[64:ff9b:1::a9fe:a9fe]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    'http://[fec0::1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://0177.0.0.1/',
    'http://192.0.2.10/',
    'https://198.51.100.7/a.png',
    'http://127.0.0.1./',
  ])('refuses %s, whatever the spelling of the address, before sending', (url) => {
    const error = refusal(url);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^image\.url: \S+ is a private, .*non-public host .*Nothing was sent\.$/,
    );
  });

  it('names the range, and the IPv4 address inside an IPv6 one', () => {
    expect((refusal('http://[2002:7f00:1::]/') as Error).message).toContain(
      '6to4, carrying 127.0.0.1: loopback',
    );
    expect((refusal('http://0x7f.1/') as Error).message).toContain('127.0.0.1 is a private');
  });

  it.each([
    'http://localhost/',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'http://printer.local/',
    'http://db.internal/',
    'http://intranet/',
    'http://router.lan/',
    'http://nas.home.arpa/',
    'http://10.1.2.3/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://[fd00::1]/',
  ])('keeps refusing %s', (url) => {
    expect(ValidationError.isInstance(refusal(url))).toBe(true);
  });

  it('refuses other schemes and credentials, and https-only fields refuse http', () => {
    expect(refusal('file:///etc/passwd')).toBeDefined();
    expect(refusal('http://user:secret@cdn.example/a.png')).toBeDefined();
    expect(() =>
      assertPublicHttpUrl('http://cdn.example/a.wav', { field: 'clone_audio', httpsOnly: true }),
    ).toThrow(/https:\/\//);
  });

  it.each([
    'https://cdn.example.com/a.png',
    'http://93.184.216.34/a.png',
    'http://[2606:4700::1111]/a.png',
    'http://[::ffff:8.8.8.8]/a.png',
  ])('admits %s', (url) => {
    expect(assertPublicHttpUrl(url, { field: 'image.url' }).href).toBe(new URL(url).href);
  });
});
