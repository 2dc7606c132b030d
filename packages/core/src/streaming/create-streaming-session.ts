/**
 * A streaming-recognition WebSocket session with bounded waits everywhere: `connect` (the factory)
 * rejects when `ready` does not come in time, audio sends respect back-pressure (`bufferedAmount`) and
 * fail clearly when the server stops reading, a server that stops *answering* is noticed by an idle timer,
 * every wait also ends at the caller's deadline, `close` cannot hang, keepalive pings run while open, and no
 * socket error escapes uncaught. The URL carries the key as `api_key` (browsers cannot set headers on
 * WebSockets), so the URL and the socket are never logged or put in an error: errors name only the host
 * and path.
 *
 * Choices where the spec is silent:
 * - Idle: once the client has asked something of the server (start, audio, flush, end, reset), an event is
 *   expected within `idleTimeoutMs` (default 10 s); a server that sends nothing for that long is taken as
 *   stalled (`StreamingError` code `stalled`, socket terminated). WebSocket pings and pongs do not count:
 *   the ws library answers them even when the recogniser behind it is stuck, and the spec gives them no
 *   meaning. The timer rests after `final` and `reset_ok` (the server then owes nothing). Partials are
 *   optional in the spec, so a recording with more than `idleTimeoutMs` of silence streamed in real time
 *   can look like a stall: raise the timeout or stream faster for such audio.
 * - A frame that is not a JSON event (binary, not JSON, no `type`) is skipped and counted
 *   (`skippedEvents`) rather than failing the session; past `maxSkippedEvents` (default 10) the server is
 *   taken for something else than the recogniser and the session fails with code `malformed_frame`.
 */
import type { WebSocket as WebSocketType } from 'ws';
import { ThaiAsrEvent, type ThaiAsrEventType, type ThaiAsrSessionRequest } from '../contracts/thai-asr.js';
import { StreamingError, TimeoutError } from '../errors/polymodal-error.js';
import { sleep } from '../util/sleep.js';

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
  /**
   * Fail (code `stalled`) when no event arrives for this long while the server owes one: from the first
   * message the client sends until `final` or `reset_ok` (default 10 s; 0 turns it off).
   */
  idleTimeoutMs?: number;
  /**
   * When the caller's time is up (epoch ms). Every wait ends there as well as at its own timer, with a
   * `TimeoutError` whose `deadlineReached` is true; `close()` then waits only a short grace.
   */
  deadline?: number | undefined;
  /** Frames that are not events skipped before the session fails with `malformed_frame` (default 10). */
  maxSkippedEvents?: number;
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
  /** Frames skipped so far because they were not JSON events. */
  readonly skippedEvents: number;
  /** Every server event, in order; returns an unsubscribe function. */
  onEvent(listener: (event: ThaiAsrEvent) => void): () => void;
  /** `start` with the session fields, then waits for `started`. */
  start(config?: ThaiAsrSessionRequest, options?: { timeoutMs?: number }): Promise<ThaiAsrEvent>;
  /** Sends PCM16LE mono samples, waiting while the socket's buffer is above the high-water mark. */
  sendAudio(samples: Int16Array): Promise<void>;
  /** Asks for a best-effort partial from the buffered audio. */
  flush(): void;
  /** `end` (or `end_utterance`), then waits for `final` (default 30 s, and never past the deadline). */
  end(options?: { message?: 'end' | 'end_utterance'; timeoutMs?: number }): Promise<ThaiAsrEvent>;
  /** `reset`, then waits for `reset_ok`: the socket can run another utterance. */
  reset(options?: { timeoutMs?: number }): Promise<ThaiAsrEvent>;
  /** Sends any JSON control message as is. */
  sendJson(message: Record<string, unknown>): void;
  /**
   * Resolves with the next event of this type; rejects on a server `error` event (or one received since
   * the last wait), a close or stall, the abort signal, the timeout (default 10 s) or the deadline.
   */
  next(type: ThaiAsrEventType | (string & {}), timeoutMs?: number): Promise<ThaiAsrEvent>;
  /**
   * Closes politely, terminating the socket if the peer does not answer within `timeoutMs` (default the
   * session's `closeTimeoutMs`), and never waiting much past the deadline. Never rejects.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** After the deadline, `close()` still gives the close frame this long to go out before terminating. */
const CLOSE_GRACE_AFTER_DEADLINE_MS = 250;

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
  const deadline = options.deadline;
  const untilDeadline = () => (deadline === undefined ? Number.POSITIVE_INFINITY : deadline - Date.now());
  const deadlineError = (what: string, waitedMs: number) =>
    new TimeoutError(
      `${what} from ${where} before the call's deadline; nothing more was waited for.`,
      Math.max(0, Math.round(waitedMs)),
      { deadlineReached: true },
    );
  if (untilDeadline() <= 0) throw deadlineError('No connection', 0);
  const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
  const maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
  const stallTimeoutMs = options.stallTimeoutMs ?? 10_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 10_000;
  const maxSkippedEvents = options.maxSkippedEvents ?? 10;
  const closeTimeoutMs = options.closeTimeoutMs ?? 2_000;
  const listeners = new Set<(event: ThaiAsrEvent) => void>();
  const closeListeners = new Set<(reason: StreamingError) => void>();
  let closedWith: StreamingError | undefined;
  /** A server `error` event not yet reported through a wait or a send. */
  let pendingError: StreamingError | undefined;
  let skippedEvents = 0;

  const socket: WebSocketType = new WebSocket(url, {
    handshakeTimeout: Math.max(1, Math.min(readyTimeoutMs, untilDeadline())),
  });
  const terminate = () => {
    if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
  };

  // The idle timer: armed by the first message the client sends, pushed back by every event, at rest once
  // the server has answered everything asked of it (final, reset_ok).
  let idleTimer: NodeJS.Timeout | undefined;
  const stopIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = undefined;
  };
  const armIdle = () => {
    if (idleTimeoutMs <= 0 || idleTimer !== undefined || closedWith) return;
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      closedWith ??= new StreamingError(
        `The recognition server at ${where} stopped answering: no event for ${idleTimeoutMs} ms while the ` +
          'session was active. The session was closed; start a new one.',
        { code: 'stalled' },
      );
      terminate();
    }, idleTimeoutMs);
  };

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
    if (event.type === 'final' || event.type === 'reset_ok') stopIdle();
    else idleTimer?.refresh();
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
  const skip = (what: string) => {
    skippedEvents += 1;
    if (skippedEvents <= maxSkippedEvents) return;
    closedWith ??= new StreamingError(
      `The server at ${where} sent ${skippedEvents} frames that are not recognition events (the last: ${what}); ` +
        'it does not look like the recognition service. Check the platform address.',
      { code: 'malformed_frame' },
    );
    terminate();
  };
  socket.on('message', (data, isBinary) => {
    if (isBinary) return skip('a binary frame');
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(data));
    } catch {
      return skip('a frame that is not JSON');
    }
    const event = ThaiAsrEvent.safeParse(parsed);
    if (!event.success) return skip('a JSON frame without a type');
    emit(event.data);
  });
  socket.on('close', (code) => {
    stopIdle();
    closedWith ??= new StreamingError(`WebSocket to ${where} closed (code ${code}).`, {
      code: `close_${code}`,
    });
    for (const listener of [...closeListeners]) listener(closedWith);
  });
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
      const remaining = untilDeadline();
      const cutByDeadline = remaining <= timeoutMs;
      const waitMs = Math.max(0, Math.min(timeoutMs, remaining));
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
          cutByDeadline
            ? deadlineError(`No ${type} event`, waitMs)
            : new StreamingError(`No ${type} event from ${where} within ${timeoutMs} ms.`, {
                code: 'timeout',
              }),
        );
      }, waitMs);
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
    armIdle();
  };
  /** Sends a control message and waits for its answer; the wait starts first so no answer is missed. */
  const ask = (message: Record<string, unknown>, answer: string, timeoutMs?: number) => {
    const answered = next(answer, timeoutMs);
    try {
      sendJson(message);
    } catch (error) {
      answered.catch(() => {});
      throw error;
    }
    return answered;
  };

  return {
    ready,
    get skippedEvents() {
      return skippedEvents;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async start(config = {}, call = {}) {
      return ask({ type: 'start', ...config }, 'started', call.timeoutMs);
    },
    async sendAudio(samples) {
      ensureOpen();
      // Back-pressure: wait for the socket to drain below the high-water mark, and give up (terminating
      // the socket, so memory stays bounded) when the server has not read anything for too long.
      let lastBuffered = socket.bufferedAmount;
      let progressAt = Date.now();
      const waitStarted = Date.now();
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
        if (untilDeadline() <= 0) throw deadlineError('Audio was still not taken', Date.now() - waitStarted);
        await sleep(Math.max(0, Math.min(10, untilDeadline())), options.signal);
        ensureOpen();
      }
      const bytes = Buffer.alloc(samples.length * 2);
      for (let index = 0; index < samples.length; index++) bytes.writeInt16LE(samples[index] ?? 0, index * 2);
      if (options.audioEncoding === 'base64')
        socket.send(JSON.stringify({ type: 'audio', audio_b64: bytes.toString('base64') }));
      else socket.send(bytes);
      armIdle();
    },
    flush() {
      sendJson({ type: 'flush' });
    },
    async end(call = {}) {
      return ask({ type: call.message ?? 'end' }, 'final', call.timeoutMs ?? 30_000);
    },
    async reset(call = {}) {
      return ask({ type: 'reset' }, 'reset_ok', call.timeoutMs);
    },
    sendJson,
    next,
    async close(call = {}) {
      clearInterval(keepalive);
      stopIdle();
      if (socket.readyState === WebSocket.CLOSED) return;
      const boundMs = Math.min(
        call.timeoutMs ?? closeTimeoutMs,
        Math.max(CLOSE_GRACE_AFTER_DEADLINE_MS, untilDeadline()),
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          terminate();
          resolve();
        }, boundMs);
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
