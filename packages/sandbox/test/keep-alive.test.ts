/**
 * Idle keep-alive connections outlast a client's stalls. A client reuses an idle connection for the time
 * the server's `Keep-Alive: timeout` announces, less a margin (undici: 2 s), measured by its own timers;
 * when its event loop stalls past that margin (a busy machine; the tests' sandbox even shares a process
 * with the client), it sends on a connection the server closed meanwhile, and a POST fails with an
 * ECONNRESET that nobody may retry. Node's default (5 s, closed after 6) made that a failure under load.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const JOBS = '/api/conference-summary/v1/jobs';

/** Sends one HTTP/1.1 request on `socket` and resolves with the head of its answer once it is complete. */
function exchange(socket: Socket, head: string, body = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/^content-length: *(\d+)/im.exec(received.slice(0, end))?.[1] ?? 0);
      if (received.length < end + 4 + length) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(received.slice(0, end));
    };
    const onClose = () => reject(new Error(`the connection was closed; received: ${received || 'nothing'}`));
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(`${head}\r\n\r\n${body}`);
  });
}

it('keeps an idle connection open past 6 s, announcing a 75 s keep-alive', async () => {
  const url = new URL(sandbox.url);
  const socket = connect(Number(url.port), url.hostname);
  try {
    const host = `Host: ${url.host}\r\nx-api-key: ${sandbox.apiKey}`;
    const first = await exchange(socket, `GET ${JOBS} HTTP/1.1\r\n${host}`);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toMatch(/^keep-alive: timeout=75$/im);
    // Idle longer than Node's default lets a connection live, so a client stalled that long still finds it.
    await delay(6_500);
    expect(socket.readyState).toBe('open');
    const second = await exchange(
      socket,
      `POST ${JOBS} HTTP/1.1\r\n${host}\r\ncontent-type: application/json\r\ncontent-length: 2`,
      '{}',
    );
    expect(second).toMatch(/^HTTP\/1\.1 400 /);
    expect(sandbox.control.requests({ method: 'POST', path: `${JOBS}$` })).toHaveLength(1);
  } finally {
    socket.destroy();
  }
});
