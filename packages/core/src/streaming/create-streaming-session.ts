/**
 * A streaming-recognition WebSocket session with bounded waits everywhere: `connect` rejects when `ready`
 * does not come in time, sends respect back-pressure (`bufferedAmount`) and fail clearly when the server
 * stops reading, `close` cannot hang, keepalive pings run while open, and no socket error escapes
 * uncaught. The URL carries the key as `api_key` (browsers cannot set headers on WebSockets), so the URL
 * and the socket are never logged or put in an error: errors name only the host and path.
 */
import type { WebSocket as WebSocketType } from 'ws';
import { ThaiAsrEvent } from '../contracts/thai-asr.js';
import { StreamingError } from '../errors/index.js';

export interface StreamingSessionOptions {
  /** `ws_url` as the session route returned it; `api_key` is appended here. */
  wsUrl: string;
  apiKey: string;
  /** Wait for `ready` at most this long (default 10 s). */
  readyTimeoutMs?: number;
  /** Pause sending above this many buffered bytes (default 1 MiB). */
  maxBufferedBytes?: number;
  /** Fail when the buffer does not drain for this long (default 10 s). */
  stallTimeoutMs?: number;
  /** Ping interval while open (default 15 s). */
  keepaliveMs?: number;
  /** `close()` waits at most this long for the peer, then terminates (default 2 s). */
  closeTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface StreamingSession {
  readonly ready: ThaiAsrEvent;
  /** Every server event, in order; returns an unsubscribe function. */
  onEvent(listener: (event: ThaiAsrEvent) => void): () => void;
  /** Sends a JSON control message (`start`, `flush`, `end`, `reset`, ...). */
  sendJson(message: Record<string, unknown>): void;
  /** Sends PCM16LE bytes as one binary frame, waiting while the socket's buffer is full. */
  sendAudio(samples: Int16Array): Promise<void>;
  /** Resolves with the next event of this type, rejects on an `error` event, a close or the timeout. */
  next(type: string, timeoutMs?: number): Promise<ThaiAsrEvent>;
  close(): Promise<void>;
}

/** ws is loaded on the first session, not when core is imported: servers that never stream start faster. */
let wsModule: Promise<typeof import('ws')> | undefined;

export async function createStreamingSession(options: StreamingSessionOptions): Promise<StreamingSession> {
  wsModule ??= import('ws');
  const { WebSocket } = await wsModule;
  const url = new URL(options.wsUrl);
  const where = `${url.host}${url.pathname}`;
  url.searchParams.set('api_key', options.apiKey);
  const maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
  const stallTimeoutMs = options.stallTimeoutMs ?? 10_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 2_000;
  const listeners = new Set<(event: ThaiAsrEvent) => void>();
  const closeListeners = new Set<(reason: StreamingError) => void>();
  let closedWith: StreamingError | undefined;

  const socket: WebSocketType = new WebSocket(url, { handshakeTimeout: options.readyTimeoutMs ?? 10_000 });
  // Errors are reported through `closedWith`; an 'error' listener keeps them from being thrown.
  socket.on('error', (error: Error & { code?: string }) => {
    closedWith ??= new StreamingError(
      `WebSocket to ${where} failed${error.code ? ` (${error.code})` : ''}.`,
      { code: 'socket_error' },
    );
  });
  socket.on('unexpected-response', (_request, response) => {
    closedWith = new StreamingError(`WebSocket to ${where} was refused with HTTP ${response.statusCode}.`, {
      code: `http_${response.statusCode}`,
    });
    response.resume();
    socket.terminate();
  });
  socket.on('message', (data, isBinary) => {
    if (isBinary) return;
    let event: ThaiAsrEvent;
    try {
      event = ThaiAsrEvent.parse(JSON.parse(String(data)));
    } catch {
      event = {
        type: 'error',
        code: 'malformed_frame',
        error: 'the server sent a frame that is not a JSON event',
      };
    }
    for (const listener of listeners) listener(event);
  });
  socket.on('close', (code) => {
    closedWith ??= new StreamingError(`WebSocket to ${where} closed (code ${code}).`, {
      code: `close_${code}`,
    });
    for (const listener of closeListeners) listener(closedWith);
  });

  const next = (type: string, timeoutMs = 10_000) =>
    new Promise<ThaiAsrEvent>((resolve, reject) => {
      if (closedWith) {
        reject(closedWith);
        return;
      }
      const finish = () => {
        clearTimeout(timer);
        listeners.delete(onEvent);
        closeListeners.delete(onClose);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const onEvent = (event: ThaiAsrEvent) => {
        if (event.type === type) {
          finish();
          resolve(event);
        } else if (event.type === 'error') {
          finish();
          reject(
            new StreamingError(
              `Recognition error ${event.code ?? ''}: ${event.error ?? 'no message'}`.trim(),
              { code: event.code ?? 'error' },
            ),
          );
        }
      };
      const onClose = (reason: StreamingError) => {
        finish();
        reject(reason);
      };
      const onAbort = () => {
        finish();
        reject(options.signal?.reason);
      };
      const timer = setTimeout(() => {
        finish();
        reject(
          new StreamingError(`No ${type} event from ${where} within ${timeoutMs} ms.`, { code: 'timeout' }),
        );
      }, timeoutMs);
      listeners.add(onEvent);
      closeListeners.add(onClose);
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });

  const terminate = () => {
    if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
  };
  let ready: ThaiAsrEvent;
  try {
    ready = await next('ready', options.readyTimeoutMs ?? 10_000);
  } catch (error) {
    terminate();
    throw error;
  }
  const keepalive = setInterval(() => {
    if (socket.readyState === WebSocket.OPEN) socket.ping();
  }, options.keepaliveMs ?? 15_000);
  keepalive.unref();
  socket.on('close', () => clearInterval(keepalive));

  const ensureOpen = () => {
    if (closedWith) throw closedWith;
    if (socket.readyState !== WebSocket.OPEN)
      throw new StreamingError(`WebSocket to ${where} is not open.`, { code: 'not_open' });
  };

  return {
    ready,
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    sendJson(message) {
      ensureOpen();
      socket.send(JSON.stringify(message));
    },
    async sendAudio(samples) {
      ensureOpen();
      const waitedSince = Date.now();
      while (socket.bufferedAmount > maxBuffered) {
        if (Date.now() - waitedSince > stallTimeoutMs) {
          terminate();
          throw new StreamingError(
            `The server stopped reading audio from ${where} (${socket.bufferedAmount} bytes waiting for ${stallTimeoutMs} ms).`,
            { code: 'stalled' },
          );
        }
        options.signal?.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, 10));
        ensureOpen();
      }
      socket.send(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
    },
    next,
    async close() {
      clearInterval(keepalive);
      if (socket.readyState === WebSocket.CLOSED) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          terminate();
          resolve();
        }, closeTimeoutMs);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        if (socket.readyState === WebSocket.OPEN) socket.close(1000);
        else terminate();
      });
    },
  };
}
