import { PassThrough } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/server';
import { ConfigError } from '@polymodal/core';
import { describe, expect, it } from 'vitest';
import { runStdioServer } from './run-stdio-server.js';

describe('runStdioServer', () => {
  it('prints the configuration problem to stderr and exits 1 when the server cannot be built', async () => {
    const lines: string[] = [];
    const codes: number[] = [];
    const stdout = new PassThrough();
    const written: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => written.push(chunk));
    await runStdioServer(
      () => {
        throw new ConfigError('POLYMODAL_API_KEY', 'POLYMODAL_API_KEY is not set. Set it to your key.');
      },
      {
        name: 'srv',
        stdin: new PassThrough(),
        stdout,
        exit: (code) => codes.push(code),
        writeError: (line) => lines.push(line),
      },
    );
    expect(codes).toEqual([1]);
    expect(lines).toEqual(['srv: configuration error: POLYMODAL_API_KEY is not set. Set it to your key.']);
    expect(Buffer.concat(written).length).toBe(0);
  });

  it('runs cleanup once and exits 0 when stdin ends', async () => {
    const stdin = new PassThrough();
    const codes: number[] = [];
    let cleanups = 0;
    await runStdioServer(
      () => ({
        server: new McpServer({ name: 't', version: '1' }),
        cleanup: async () => {
          cleanups += 1;
        },
      }),
      { stdin, stdout: new PassThrough(), exit: (code) => codes.push(code), writeError: () => {} },
    );
    stdin.end();
    await expect.poll(() => codes).toEqual([0]);
    expect(cleanups).toBe(1);
  });
});
