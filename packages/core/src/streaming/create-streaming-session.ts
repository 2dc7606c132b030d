/**
 * A streaming-recognition WebSocket session with bounded waits everywhere: `connect` (the factory)
 * rejects when `ready` does not come in time, audio sends respect back-pressure (`bufferedAmount`) and
 * fail clearly when the server stops reading, `close` cannot hang, keepalive pings run while open, and no
 * socket error escapes uncaught. The URL carries the key as `api_key` (browsers cannot set headers on
 * WebSockets), so the URL and the socket are never logged or put in an error: errors name only the host
 * and path.
 */
import type { WebSocket as WebSocketType } from 'ws';
import { ThaiAsrEvent, type ThaiAsrEventType, type ThaiAsrSessionRequest } from '../contracts/thai-asr.js';
import { StreamingError } from '../errors/index.js';
import { sleep } from '../util/index.js';

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
  /**
   * How audio goes out: binary PCM16LE frames (`binary`, the spec's preferred way, default) or the JSON
   * fallback `{type: 'audio', audio_b64}` (`base64`) for transports that cannot carry binary frames.
   */
  audioEncoding?: 'binary' | 'base64';
  /** Aborting ends any wait at once and terminates the socket. */
  signal?: AbortSignal;
}

export interface StreamingSession {
  /** The server's first event. */
  readonly ready: ThaiAsrEvent;
  /** Every server event, in order; returns an unsubscribe function. */
  onEvent(listener: (event: ThaiAsrEvent) => void): () => void;
  /** `start` with the session fields, then waits for `started`. */
  start(config?: ThaiAsrSessionRequest, options?: { timeoutMs?: number }): Promise<ThaiAsrEvent>;
  /** Sends PCM16LE mono samples, waiting while the socket's buffer is above the high-water mark. */
  sendAudio(samples: Int16Array): Promise<void>;
  /** Asks for a best-effort partial from the buffered audio. */
  flush(): void;
  /** `end` (or `end_utterance`), then waits for `final` (default 30 s). */
  end(options?: { message?: 'end' | 'end_utterance'; timeoutMs?: number }): Promise<ThaiAsrEvent>;
  /** `reset`, then waits for `reset_ok`: the socket can run another utterance. */
  reset(options?: { timeoutMs?: number }): Promise<ThaiAsrEvent>;
  /** Sends any JSON control message as is. */
  sendJson(message: Record<string, unknown>): void;
  /**
   * Resolves with the next event of this type; rejects on a server `error` event (or one received since
   * the last wait), a close, the abort signal or the timeout (default 10 s).
   */
  next(type: ThaiAsrEventType | (string & {}), timeoutMs?: number): Promise<ThaiAsrEvent>;
  /** Closes politely, terminating the socket if the peer does not answer in time. Never rejects. */
  close(): Promise<void>;
}

/** ws is loaded on the first session, not when core is imported: servers that never stream start faster. */
let wsModule: Promise<typeof import('ws')> | undefined;

const errorFromEvent = (event: ThaiAsrEvent) =>
  new StreamingError(
    `Recognition error${event.code ? ` ${event.code}` : ''}: ${event.error ?? 'no message'}.`,
    { code: event.code ?? 'error' },
  );

/** Opens the session and resolves once the server's `ready` arrives (the spec's "connect"). */
export async function createStreamingSession(options: StreamingSessionOptions): Promise<StreamingSession> {
  options.signal?.throwIfAborted();
  wsModule ??= import('ws');
  const { WebSocket } = await wsModule;
  let url: URL;
  try {
    url = new URL(options.wsUrl);
  } catch {
    throw new StreamingError('The session ws_url is not a valid URL.', { code: 'bad_url' });
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new StreamingError(`The session ws_url must be ws: or wss:, not ${url.protocol}`, {
      code: 'bad_url',
    });
  }
  const where = `${url.host}${url.pathname}`;
  url.searchParams.set('api_key', options.apiKey);
  const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
  const maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
  const stallTimeoutMs = options.stallTimeoutMs ?? 10_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 2_000;
  const listeners = new Set<(event: ThaiAsrEvent) => void>();
  const closeListeners = new Set<(reason: StreamingError) => void>();
  let closedWith: StreamingError | undefined;
  /** A server `error` event not yet reported through a wait or a send. */
  let pendingError: StreamingError | undefined;

  const socket: WebSocketType = new WebSocket(url, { handshakeTimeout: readyTimeoutMs });
  // Errors are reported through `closedWith`; having an 'error' listener keeps them from being thrown.
  socket.on('error', (error: Error & { code?: string }) => {
    closedWith ??= new StreamingError(
      `WebSocket to ${where} failed${error.code ? ` (${error.code})` : ''}.`,
      { code: 'socket_error' },
    );
  });
  socket.on('unexpected-response', (_request, response) => {
    closedWith ??= new StreamingError(`WebSocket to ${where} was refused with HTTP ${response.statusCode}.`, {
      code: `http_${response.statusCode}`,
    });
    response.resume();
    socket.terminate();
  });
  const emit = (event: ThaiAsrEvent) => {
    if (event.type === 'error') pendingError = errorFromEvent(event);
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        // A throwing listener must not become an uncaught exception inside the socket's data handler.
        closedWith ??= new StreamingError(
          `An event listener threw: ${error instanceof Error ? error.message : String(error)}`,
          { code: 'listener_error', cause: error },
        );
        socket.terminate();
      }
    }
  };
  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      emit({
        type: 'error',
        code: 'malformed_frame',
        error: 'the server sent a binary frame, not a JSON event',
      });
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(data));
    } catch {
      emit({ type: 'error', code: 'malformed_frame', error: 'the server sent a frame that is not JSON' });
      return;
    }
    const event = ThaiAsrEvent.safeParse(parsed);
    emit(
      event.success
        ? event.data
        : {
            type: 'error',
            code: 'malformed_frame',
            error: 'the server sent a JSON frame that is not an event',
          },
    );
  });
  socket.on('close', (code) => {
    closedWith ??= new StreamingError(`WebSocket to ${where} closed (code ${code}).`, {
      code: `close_${code}`,
    });
    for (const listener of [...closeListeners]) listener(closedWith);
  });
  const terminate = () => {
    if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
  };
  const onSessionAbort = () => terminate();
  options.signal?.addEventListener('abort', onSessionAbort, { once: true });
  socket.on('close', () => options.signal?.removeEventListener('abort', onSessionAbort));

  const next = (type: string, timeoutMs = 10_000) =>
    new Promise<ThaiAsrEvent>((resolve, reject) => {
      if (options.signal?.aborted) return reject(options.signal.reason);
      if (pendingError && type !== 'error') {
        const error = pendingError;
        pendingError = undefined;
        return reject(error);
      }
      if (closedWith) return reject(closedWith);
      const finish = () => {
        clearTimeout(timer);
        listeners.delete(onEvent);
        closeListeners.delete(onClose);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const onEvent = (event: ThaiAsrEvent) => {
        if (event.type === type) {
          if (type === 'error') pendingError = undefined;
          finish();
          resolve(event);
        } else if (event.type === 'error') {
          pendingError = undefined;
          finish();
          reject(errorFromEvent(event));
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

  let ready: ThaiAsrEvent;
  try {
    ready = await next('ready', readyTimeoutMs);
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
    options.signal?.throwIfAborted();
    if (pendingError) {
      const error = pendingError;
      pendingError = undefined;
      throw error;
    }
    if (closedWith) throw closedWith;
    if (socket.readyState !== WebSocket.OPEN)
      throw new StreamingError(`WebSocket to ${where} is not open.`, { code: 'not_open' });
  };
  const sendJson = (message: Record<string, unknown>) => {
    ensureOpen();
    socket.send(JSON.stringify(message));
  };

  return {
    ready,
    onEvent(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async start(config = {}, call = {}) {
      const started = next('started', call.timeoutMs);
      try {
        sendJson({ type: 'start', ...config });
      } catch (error) {
        started.catch(() => {});
        throw error;
      }
      return started;
    },
    async sendAudio(samples) {
      ensureOpen();
      // Back-pressure: wait for the socket to drain below the high-water mark, and give up (terminating
      // the socket, so memory stays bounded) when the server has not read anything for too long.
      let lastBuffered = socket.bufferedAmount;
      let progressAt = Date.now();
      while (socket.bufferedAmount > maxBuffered) {
        if (socket.bufferedAmount < lastBuffered) {
          lastBuffered = socket.bufferedAmount;
          progressAt = Date.now();
        } else if (Date.now() - progressAt > stallTimeoutMs) {
          const waiting = socket.bufferedAmount;
          closedWith ??= new StreamingError(
            `The server stopped reading audio from ${where}: ${waiting} bytes unsent for ${stallTimeoutMs} ms.`,
            { code: 'stalled' },
          );
          terminate();
          throw closedWith;
        }
        await sleep(10, options.signal);
        ensureOpen();
      }
      const bytes = Buffer.alloc(samples.length * 2);
      for (let index = 0; index < samples.length; index++) bytes.writeInt16LE(samples[index] ?? 0, index * 2);
      if (options.audioEncoding === 'base64')
        socket.send(JSON.stringify({ type: 'audio', audio_b64: bytes.toString('base64') }));
      else socket.send(bytes);
    },
    flush() {
      sendJson({ type: 'flush' });
    },
    async end(call = {}) {
      const final = next('final', call.timeoutMs ?? 30_000);
      try {
        sendJson({ type: call.message ?? 'end' });
      } catch (error) {
        final.catch(() => {});
        throw error;
      }
      return final;
    },
    async reset(call = {}) {
      const acknowledged = next('reset_ok', call.timeoutMs);
      try {
        sendJson({ type: 'reset' });
      } catch (error) {
        acknowledged.catch(() => {});
        throw error;
      }
      return acknowledged;
    },
    sendJson,
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
