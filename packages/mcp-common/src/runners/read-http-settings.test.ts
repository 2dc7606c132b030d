import { describe, expect, it } from 'vitest';
import { readHttpSettings } from './read-http-settings.js';

describe('readHttpSettings', () => {
  const noFlags = { sessions: false, allowedHosts: [] };

  it('is stateless unless --sessions or POLYMODAL_HTTP_SESSIONS=1, with 1,000 sessions, 100 per tenant and 30 min idle by default', () => {
    expect(readHttpSettings(noFlags, {}).sessions).toBe(false);
    expect(readHttpSettings(noFlags, { POLYMODAL_HTTP_SESSIONS: '0' }).sessions).toBe(false);
    expect(readHttpSettings({ ...noFlags, sessions: true }, {}).sessions).toEqual({
      maxSessions: 1000,
      maxSessionsPerTenant: 100,
      idleMs: 30 * 60 * 1000,
    });
    expect(
      readHttpSettings(noFlags, {
        POLYMODAL_HTTP_SESSIONS: '1',
        POLYMODAL_HTTP_MAX_SESSIONS: '50',
        POLYMODAL_HTTP_MAX_SESSIONS_PER_TENANT: '5',
        POLYMODAL_HTTP_SESSION_IDLE_SECONDS: '90',
      }).sessions,
    ).toEqual({ maxSessions: 50, maxSessionsPerTenant: 5, idleMs: 90_000 });
  });

  it('has no metrics listener unless a port is given (flag before variable), on loopback by default', () => {
    expect(readHttpSettings(noFlags, {}).metrics).toBeUndefined();
    expect(readHttpSettings(noFlags, { POLYMODAL_METRICS_PORT: '9464' }).metrics).toEqual({
      port: 9464,
      host: '127.0.0.1',
    });
    expect(
      readHttpSettings(
        { ...noFlags, metricsPort: 9100, metricsHost: '10.0.0.5' },
        { POLYMODAL_METRICS_PORT: '9464', POLYMODAL_METRICS_HOST: '10.9.9.9' },
      ).metrics,
    ).toEqual({ port: 9100, host: '10.0.0.5' });
    expect(() => readHttpSettings(noFlags, { POLYMODAL_METRICS_PORT: '70000' })).toThrow(
      /POLYMODAL_METRICS_PORT/,
    );
  });

  it('joins --allowed-host and POLYMODAL_ALLOWED_HOSTS', () => {
    expect(
      readHttpSettings(
        { sessions: false, allowedHosts: ['mcp.example.com'] },
        { POLYMODAL_ALLOWED_HOSTS: ' a.example.com, ,b.example.com ' },
      ).allowedHosts,
    ).toEqual(['mcp.example.com', 'a.example.com', 'b.example.com']);
  });

  it('refuses values that are not numbers or switches, naming the variable', () => {
    expect(() => readHttpSettings(noFlags, { POLYMODAL_HTTP_SESSIONS: 'maybe' })).toThrow(
      /POLYMODAL_HTTP_SESSIONS/,
    );
    const sessions = { ...noFlags, sessions: true };
    expect(() => readHttpSettings(sessions, { POLYMODAL_HTTP_MAX_SESSIONS: '0' })).toThrow(
      /POLYMODAL_HTTP_MAX_SESSIONS/,
    );
    expect(() => readHttpSettings(sessions, { POLYMODAL_HTTP_MAX_SESSIONS_PER_TENANT: '2.5' })).toThrow(
      /POLYMODAL_HTTP_MAX_SESSIONS_PER_TENANT/,
    );
    expect(() => readHttpSettings(sessions, { POLYMODAL_HTTP_SESSION_IDLE_SECONDS: 'soon' })).toThrow(
      /POLYMODAL_HTTP_SESSION_IDLE_SECONDS/,
    );
  });
});
