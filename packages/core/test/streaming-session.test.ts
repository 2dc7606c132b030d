/**
 * The streaming session against misbehaving WebSocket servers on loopback: every wait is bounded (by its
 * own timer, by the idle timer when the server stops answering, and by the caller's deadline), errors are
 * StreamingErrors (or deadline TimeoutErrors) that never show the key, and nothing escapes uncaught.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { StreamingError, TimeoutError } from '../src/index.js';
import { createStreamingSession } from '../src/streaming.js';

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

  it('skips and counts a malformed frame, and the utterance still ends with its final', async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', () => {
        socket.send('{"type":"partial","text":');
        socket.send(JSON.stringify({ type: 'final', text: 'ครบ' }));
      });
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY });
    const final = await session.end({ timeoutMs: 2000 });
    expect(final.text).toBe('ครบ');
    expect(session.skippedEvents).toBe(1);
    await session.close();
  });

  it('fails with malformed_frame once a server sends more frames that are not events than allowed', async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', () => {
        for (let index = 0; index < 4; index++) socket.send('<html>not a recogniser</html>');
      });
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY, maxSkippedEvents: 3 });
    await expectStreamingError(session.end({ timeoutMs: 5000 }), 'malformed_frame');
    expect(session.skippedEvents).toBe(4);
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

describe('streaming session protocol', () => {
  it('runs start → binary audio → flush → end → final, then reset → reset_ok on the same socket', async () => {
    const received: (string | number[])[] = [];
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready', sample_rate: 16000, limits: { concurrent_sessions: 3 } }));
      socket.on('message', (data, isBinary) => {
        if (isBinary) {
          const bytes = data as Buffer;
          received.push(
            Array.from(new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))),
          );
          return;
        }
        const message = JSON.parse(String(data)) as { type: string };
        received.push(message.type);
        const reply: Record<string, object> = {
          start: { type: 'started' },
          flush: { type: 'partial', text: 'สวัส', audio_ms: 40 },
          end_utterance: { type: 'final', text: 'สวัสดี', segments: [{ start: 0, end: 0.5, text: 'สวัสดี' }] },
          reset: { type: 'reset_ok' },
        };
        if (reply[message.type]) socket.send(JSON.stringify(reply[message.type]));
      });
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY });
    expect(session.ready.limits?.concurrent_sessions).toBe(3);
    const partials: string[] = [];
    session.onEvent((event) => {
      if (event.type === 'partial') partials.push(event.text ?? '');
    });
    await session.start({ sample_rate: 16000, vad: true });
    await session.sendAudio(Int16Array.from([1, -2, 32767]));
    session.flush();
    const final = await session.end({ message: 'end_utterance' });
    expect(final.text).toBe('สวัสดี');
    expect(final.segments?.[0]).toEqual({ start: 0, end: 0.5, text: 'สวัสดี' });
    expect(partials).toEqual(['สวัส']);
    expect((await session.reset()).type).toBe('reset_ok');
    expect(received).toEqual(['start', [1, -2, 32767], 'flush', 'end_utterance', 'reset']);
    await session.close();
  });

  it('sends audio as JSON audio_b64 when asked (the fallback)', async () => {
    const messages: { type: string; audio_b64?: string }[] = [];
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', (data, isBinary) => {
        expect(isBinary).toBe(false);
        messages.push(JSON.parse(String(data)));
        if (messages.length === 2) socket.send(JSON.stringify({ type: 'final', text: 'ok' }));
      });
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY, audioEncoding: 'base64' });
    const final = session.next('final', 2000);
    await session.sendAudio(Int16Array.from([256, -1]));
    session.sendJson({ type: 'end' });
    await final;
    expect(messages[0]).toEqual({
      type: 'audio',
      audio_b64: Buffer.from([0, 1, 255, 255]).toString('base64'),
    });
    await session.close();
  });

  it('reports a server error event as a StreamingError with its code, at the next wait or send', async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', () =>
        socket.send(JSON.stringify({ type: 'error', code: 'bad_audio', error: 'odd bytes' })),
      );
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY });
    const started = session.start();
    const error = await expectStreamingError(started, 'bad_audio');
    expect(error.message).toContain('odd bytes');
    // An error that arrives while nobody waits surfaces at the next send.
    const errors: string[] = [];
    session.onEvent((event) => {
      if (event.type === 'error') errors.push(event.code ?? '');
    });
    session.sendJson({ type: 'flush' });
    await vi.waitFor(() => expect(errors).toEqual(['bad_audio']));
    await expectStreamingError(session.sendAudio(new Int16Array(4)), 'bad_audio');
    await session.close();
  });

  it('survives binary and non-event frames and a throwing listener without an uncaught error', async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', () => {
        socket.send(Buffer.from([1, 2, 3]));
        socket.send(JSON.stringify({ text: 'no type' }));
        socket.send(JSON.stringify({ type: 'partial', text: 'x' }));
      });
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY });
    const types: string[] = [];
    session.onEvent((event) => {
      types.push(event.type);
      if (event.type === 'partial') throw new Error('listener bug');
    });
    session.sendJson({ type: 'flush' });
    await vi.waitFor(() => expect(types).toEqual(['partial']));
    expect(session.skippedEvents).toBe(2);
    await expectStreamingError(session.next('final', 2000), /listener_error|close/);
    await session.close();
  });

  it('pings while open to keep the connection alive, and stops after close', async () => {
    let pings = 0;
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('ping', () => {
        pings++;
      });
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY, keepaliveMs: 40 });
    await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(2), { timeout: 2000 });
    await session.close();
    const afterClose = pings;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(pings).toBe(afterClose);
  });

  it('aborting the signal ends a wait at once with the caller reason', async () => {
    const url = await serve((socket) => socket.send(JSON.stringify({ type: 'ready' })));
    const controller = new AbortController();
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY, signal: controller.signal });
    const waiting = session.next('final', 10_000);
    controller.abort(new Error('user cancelled'));
    await expect(waiting).rejects.toThrow('user cancelled');
    await session.close();
  });

  it('never puts the key in an error, even for a refused connection', async () => {
    const error = await expectStreamingError(
      createStreamingSession({
        wsUrl: 'ws://127.0.0.1:1/api/thai-asr/stream?session_id=s',
        apiKey: KEY,
        readyTimeoutMs: 1000,
      }),
      /socket_error|close|timeout/,
    );
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect(String(error.stack)).not.toContain(KEY);
  });
});

describe('streaming session: a server that stops answering, and the deadline', () => {
  it('reports stalled within the idle timeout when the server sends ready and then nothing, while still accepting audio', async () => {
    let audioBytes = 0;
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', (data, isBinary) => {
        if (isBinary) audioBytes += (data as Buffer).length;
      });
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY, idleTimeoutMs: 300 });
    const started = Date.now();
    const final = session.next('final', 20_000);
    final.catch(() => {});
    const sending = (async () => {
      for (let frame = 0; frame < 1000; frame++) {
        await session.sendAudio(new Int16Array(320));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const error = await expectStreamingError(sending, 'stalled');
    expect(error.message).toMatch(/stopped answering: no event for 300 ms/);
    await expectStreamingError(final, 'stalled');
    // Noticed by the silence, not by a full buffer: the server was reading the audio all along.
    expect(audioBytes).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5000);
    await session.close();
  });

  it('keeps a session alive while events flow, and rests the idle timer after final', async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      let partials: NodeJS.Timeout | undefined;
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string };
        if (message.type === 'start') {
          socket.send(JSON.stringify({ type: 'started' }));
          partials = setInterval(() => socket.send(JSON.stringify({ type: 'partial', text: 'ก' })), 100);
        }
        if (message.type === 'end') {
          clearInterval(partials);
          socket.send(JSON.stringify({ type: 'final', text: 'ก' }));
        }
        if (message.type === 'reset') socket.send(JSON.stringify({ type: 'reset_ok' }));
      });
      socket.on('close', () => clearInterval(partials));
    });
    const session = await createStreamingSession({ wsUrl: url, apiKey: KEY, idleTimeoutMs: 1000 });
    await session.start();
    // Two and a half idle timeouts of partials, then the final.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await session.end()).text).toBe('ก');
    // After final the server owes nothing: a quiet client is not a stalled server.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await session.reset()).type).toBe('reset_ok');
    await session.close();
  });

  it("ends a wait at the caller's deadline with a deadline TimeoutError, and closes without waiting for a mute peer", async () => {
    const url = await serve((socket) => {
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', () => {
        (socket as unknown as { _socket: { pause(): void } })._socket.pause();
      });
    });
    const started = Date.now();
    const session = await createStreamingSession({
      wsUrl: url,
      apiKey: KEY,
      deadline: started + 800,
      idleTimeoutMs: 0,
      closeTimeoutMs: 10_000,
    });
    const error = await session.end({ timeoutMs: 30_000 }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as TimeoutError).deadlineReached).toBe(true);
    expect(String((error as Error).message)).not.toContain(KEY);
    await session.close();
    // 30 s for final and 10 s for close were asked for; the deadline (0.8 s) bounded both.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses to connect once the deadline has passed', async () => {
    let connections = 0;
    const url = await serve(() => {
      connections++;
    });
    const attempt = createStreamingSession({ wsUrl: url, apiKey: KEY, deadline: Date.now() - 1 });
    await expect(attempt).rejects.toSatisfy(
      (error: unknown) => TimeoutError.isInstance(error) && error.deadlineReached,
    );
    expect(connections).toBe(0);
  });
});
