import { describe, expect, it } from 'vitest';
import { decideMetricsAccess, isLoopbackPeer } from './metrics-access.js';

const local = { listener: 'metrics' as const, remoteAddress: '127.0.0.1', hostAllowed: true, headers: {} };
const remote = { ...local, remoteAddress: '10.1.2.3' };
/** A request to `/metrics` on the MCP endpoint's listener, from this machine (e.g. a reverse proxy). */
const onMcpListener = { ...local, listener: 'mcp' as const };

describe('decideMetricsAccess', () => {
  it("on the MCP endpoint's listener, never trusts loopback: the token is needed from every peer", () => {
    const token = 'scrape-5d1e';
    expect(decideMetricsAccess(onMcpListener, undefined)).toMatchObject({
      ok: false,
      status: 403,
      message: expect.stringContaining('--metrics-port'),
    });
    expect(decideMetricsAccess({ ...onMcpListener, remoteAddress: '::1' }, token)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(
      decideMetricsAccess({ ...onMcpListener, headers: { authorization: `Bearer ${token}` } }, token),
    ).toEqual({ ok: true });
  });

  it('on its own listener, lets a loopback peer read without a token, IPv4, IPv6 and IPv4-mapped alike', () => {
    expect(decideMetricsAccess(local, undefined)).toEqual({ ok: true });
    expect(decideMetricsAccess({ ...local, remoteAddress: '::1' }, undefined)).toEqual({ ok: true });
    expect(decideMetricsAccess({ ...local, remoteAddress: '::ffff:127.0.0.1' }, undefined)).toEqual({
      ok: true,
    });
  });

  it('refuses every peer off loopback with 403 when no metrics token is configured, whatever it sends', () => {
    expect(decideMetricsAccess(remote, undefined)).toMatchObject({ ok: false, status: 403 });
    expect(
      decideMetricsAccess({ ...remote, headers: { authorization: 'Bearer anything' } }, '  '),
    ).toMatchObject({ ok: false, status: 403 });
  });

  it('off loopback wants the exact token: 401 without it or with another one', () => {
    const token = 'scrape-5d1e';
    expect(decideMetricsAccess(remote, token)).toMatchObject({ ok: false, status: 401 });
    expect(
      decideMetricsAccess({ ...remote, headers: { authorization: 'Bearer scrape-5d1' } }, token),
    ).toMatchObject({ ok: false, status: 401 });
    expect(
      decideMetricsAccess({ ...remote, headers: { authorization: 'Bearer scrape-5d1ee' } }, token),
    ).toMatchObject({ ok: false, status: 401 });
    expect(decideMetricsAccess({ ...remote, headers: { authorization: `Bearer ${token}` } }, token)).toEqual({
      ok: true,
    });
  });

  it('treats a proxied loopback request and a rebound Host as off loopback', () => {
    expect(
      decideMetricsAccess({ ...local, headers: { 'x-forwarded-for': '203.0.113.9' } }, undefined),
    ).toMatchObject({ ok: false, status: 403 });
    expect(
      decideMetricsAccess({ ...local, headers: { forwarded: 'for=203.0.113.9' } }, undefined),
    ).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(decideMetricsAccess({ ...local, hostAllowed: false }, undefined)).toMatchObject({
      ok: false,
      status: 403,
    });
  });

  it('knows loopback from other private ranges', () => {
    expect(isLoopbackPeer('127.8.9.10')).toBe(true);
    expect(isLoopbackPeer('192.168.1.2')).toBe(false);
    expect(isLoopbackPeer('fe80::1')).toBe(false);
    expect(isLoopbackPeer(undefined)).toBe(false);
  });
});
