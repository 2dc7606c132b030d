import { describe, expect, it } from 'vitest';
import { parseServerArgs } from './parse-server-args.js';

describe('parseServerArgs', () => {
  it('defaults to stdio on loopback', () => {
    expect(parseServerArgs([])).toEqual({ transport: 'stdio', port: 3000, host: '127.0.0.1', help: false });
  });

  it('reads --http, --port and --host', () => {
    expect(parseServerArgs(['--http', '--port', '8080', '--host', 'localhost'])).toEqual({
      transport: 'http',
      port: 8080,
      host: 'localhost',
      help: false,
    });
    expect(parseServerArgs(['--http', '--port=0'], { port: 3101 }).port).toBe(0);
    expect(parseServerArgs(['--http'], { port: 3101 }).port).toBe(3101);
  });

  it('refuses unknown flags and bad ports', () => {
    expect(() => parseServerArgs(['--verbose'])).toThrow();
    expect(() => parseServerArgs(['--port', '70000'])).toThrow(/--port/);
    expect(() => parseServerArgs(['--port', 'abc'])).toThrow(/--port/);
    expect(() => parseServerArgs(['--http', '--stdio'])).toThrow(/one transport/);
  });
});
