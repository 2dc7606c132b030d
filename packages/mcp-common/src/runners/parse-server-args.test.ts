import { describe, expect, it } from 'vitest';
import { parseServerArgs } from './parse-server-args.js';

describe('parseServerArgs', () => {
  it('defaults to stdio on loopback', () => {
    expect(parseServerArgs([])).toEqual({
      transport: 'stdio',
      port: 3000,
      host: '127.0.0.1',
      sessions: false,
      allowedHosts: [],
      help: false,
      version: false,
    });
  });

  it('reads --http, --port and --host', () => {
    expect(parseServerArgs(['--http', '--port', '8080', '--host', 'localhost'])).toMatchObject({
      transport: 'http',
      port: 8080,
      host: 'localhost',
    });
    expect(parseServerArgs(['--http', '--port=0'], { port: 3101 }).port).toBe(0);
    expect(parseServerArgs(['--http'], { port: 3101 }).port).toBe(3101);
  });

  it('reads --metrics-port and --metrics-host, refusing a port that is not one', () => {
    expect(parseServerArgs(['--http', '--metrics-port', '9464'])).toMatchObject({
      metricsPort: 9464,
      metricsHost: undefined,
    });
    expect(parseServerArgs(['--http', '--metrics-port=0', '--metrics-host', '10.0.0.5'])).toMatchObject({
      metricsPort: 0,
      metricsHost: '10.0.0.5',
    });
    expect(() => parseServerArgs(['--http', '--metrics-port', 'ninety'])).toThrow(/--metrics-port/);
  });

  it('reads --sessions, repeated --allowed-host and --version', () => {
    const args = parseServerArgs([
      '--http',
      '--sessions',
      '--allowed-host',
      'mcp.example.com',
      '--allowed-host=10.0.0.5',
    ]);
    expect(args).toMatchObject({ sessions: true, allowedHosts: ['mcp.example.com', '10.0.0.5'] });
    expect(parseServerArgs(['--version']).version).toBe(true);
  });

  it('refuses unknown flags, bad ports and host names that are URLs', () => {
    expect(() => parseServerArgs(['--verbose'])).toThrow();
    expect(() => parseServerArgs(['--port', '70000'])).toThrow(/--port/);
    expect(() => parseServerArgs(['--port', 'abc'])).toThrow(/--port/);
    expect(() => parseServerArgs(['--http', '--stdio'])).toThrow(/one transport/);
    expect(() => parseServerArgs(['--allowed-host', 'https://mcp.example.com/'])).toThrow(/--allowed-host/);
  });

  it('reads --log-format json|text and refuses anything else', () => {
    expect(parseServerArgs(['--http', '--log-format', 'TEXT']).logFormat).toBe('text');
    expect(parseServerArgs(['--log-format', 'json']).logFormat).toBe('json');
    expect(parseServerArgs([]).logFormat).toBeUndefined();
    expect(() => parseServerArgs(['--log-format', 'yaml'])).toThrow(/--log-format must be json or text/);
  });
});
