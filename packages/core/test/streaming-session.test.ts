/**
 * The streaming session against misbehaving WebSocket servers on loopback: every wait is bounded, errors
 * are StreamingErrors that never show the key, and nothing escapes uncaught.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { createStreamingSession, StreamingError } from '../src/index.js';

const KEY = 'pm_live_streamsecret';
let server: WebSocketServer | undefined;

afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(onConnection: (socket: WebSocket) => void): Promise<string> {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  server.on('connection', onConnection);
  await new Promise((resolve) => server?.once('listening', resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/thai-asr/stream?session_id=s1`;
}

const expectStreamingError = async (promise: Promise<unknown>, code: string | RegExp) => {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(StreamingError.isInstance(error)).toBe(true);
  expect((error as StreamingError).code).toMatch(code);
  expect(String((error as Error).message)).not.toContain(KEY);
  return error as StreamingError;
};

describe('streaming session', () => {
  it('sends the key as api_key and resolves once ready arrives', async () => {
    let seenUrl = '';
    const url = await serve((socket) => socket.send(JSON.stringify({ type: 'ready', limits: {} })));
    server?.on('connection', (_socket, request) => {
      seenUrl = request.url ?? '';
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY });
    expect(session.ready.type).toBe('ready');
    expect(seenUrl).toContain(`api_key=${KEY}`);
    expect(seenUrl).toContain('session_id=s1');
    await session.close();
  });

  it('rejects within the bound when ready never comes', async () => {
    const url = await serve(() => {});
    const started = Date.now();
    await expectStreamingError(
      createStreamingSession({ wsUrl: url, apiKey: KEY, readyTimeoutMs: 200 }),
      'timeout',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a server that closes mid-stream, and a refused upgrade, without the key', async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', () => socket.close(1011, 'boom'));
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY });
    const final = session.next('final', 2000);
    session.sendJson({ type: 'end' });
    await expectStreamingError(final, /close_1011/);
    await session.close();

    const refusing = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      verifyClient: (_info, done) => done(false, 401),
    });
    await new Promise((resolve) => refusing.once('listening', resolve));
    const refusedUrl = `ws://127.0.0.1:${(refusing.address() as AddressInfo).port}/stream`;
    await expectStreamingError(
      createStreamingSession({ wsUrl: refusedUrl, apiKey: KEY, readyTimeoutMs: 1000 }),
      /http_401|close|socket/,
    );
    await new Promise((resolve) => refusing.close(resolve));
  });

  it('turns a malformed frame into an error event, not a crash', async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', () => socket.send('{not json'));
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY });
    const final = session.next('final', 2000);
    session.sendJson({ type: 'end' });
    await expectStreamingError(final, 'malformed_frame');
    await session.close();
  });

  it('fails clearly when the server stops reading, with a bounded buffer', async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      (socket as unknown as { _socket: { pause(): void } })._socket.pause();
    });
    const session = await createStreamingSession({
      wsUrl: url,
      apiKey: KEY,
      maxBufferedBytes: 256 * 1024,
      stallTimeoutMs: 300,
    });
    const chunk = new Int16Array(512 * 1024);
    const sending = (async () => {
      for (let round = 0; round < 200; round++) await session.sendAudio(chunk);
    })();
    await expectStreamingError(sending, 'stalled');
    await session.close();
  });

  it('closes within the bound even when the peer never answers the close', async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      (socket as unknown as { _socket: { pause(): void } })._socket.pause();
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY, closeTimeoutMs: 200 });
    const started = Date.now();
    await session.close();
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
