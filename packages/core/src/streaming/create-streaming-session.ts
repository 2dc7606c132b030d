/**
 * A streaming-recognition WebSocket session with bounded waits everywhere: `connect` (the factory)
 * rejects when `ready` does not come in time, audio sends respect back-pressure (`bufferedAmount`) and
 * fail clearly when the server stops reading, a server that stops *answering* is noticed by an idle timer,
 * every wait also ends at the caller's deadline, `close` cannot hang, keepalive pings run while open, and no
 * socket error escapes uncaught. The URL carries the key as `api_key` (browsers cannot set headers on
 * WebSockets), so the URL and the socket are never logged or put in an error: errors name only the host
 * and path.
 *
 * Choices where the spec is silent (see `session-socket.ts`): a server that sends no event for
 * `idleTimeoutMs` (default 10 s) while it owes one is stalled, and frames that are not JSON events are
 * skipped and counted, up to `maxSkippedEvents` (default 10). Partials are optional in the spec, so a
 * recording with more than `idleTimeoutMs` of silence streamed in real time can look like a stall: raise
 * the timeout or stream faster for such audio.
 */
import { StreamingError } from '../errors/polymodal-error.js';
import { ask, nextSessionEvent, sendJson } from './next-session-event.js';
import { sendSessionAudio } from './send-session-audio.js';
import { type SessionSocket, sessionDeadlineError, watchSessionSocket } from './session-socket.js';
import type { StreamingSession, StreamingSessionOptions } from './streaming-session-types.js';

/** After the deadline, `close()` still gives the close frame this long to go out before terminating. */
const CLOSE_GRACE_AFTER_DEADLINE_MS = 250;

/** ws is loaded on the first session, not when core is imported: servers that never stream start faster. */
let wsModule: Promise<typeof import('ws')> | undefined;

/** Opens the session and resolves once the server's `ready` arrives (the spec's "connect"). */
export async function createStreamingSession(options: StreamingSessionOptions): Promise<StreamingSession> {
  options.signal?.throwIfAborted();
  wsModule ??= import('ws');
  const { WebSocket } = await wsModule;
  const url = sessionUrl(options.wsUrl);
  const where = `${url.host}${url.pathname}`;
  url.searchParams.set('api_key', options.apiKey);
  const { deadline } = options;
  if (deadline !== undefined && deadline - Date.now() <= 0) {
    throw sessionDeadlineError(where, 'No connection', 0);
  }
  const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
  const untilDeadline = deadline === undefined ? Number.POSITIVE_INFINITY : deadline - Date.now();
  const state = watchSessionSocket({
    socket: new WebSocket(url, { handshakeTimeout: Math.max(1, Math.min(readyTimeoutMs, untilDeadline)) }),
    where,
    deadline,
    idleTimeoutMs: options.idleTimeoutMs ?? 10_000,
    maxSkippedEvents: options.maxSkippedEvents ?? 10,
    signal: options.signal,
  });
  let ready: Awaited<ReturnType<typeof nextSessionEvent>>;
  try {
    ready = await nextSessionEvent(state, 'ready', readyTimeoutMs);
  } catch (error) {
    state.terminate();
    throw error;
  }
  const keepalive = setInterval(() => {
    if (state.socket.readyState === state.socket.OPEN) state.socket.ping();
  }, options.keepaliveMs ?? 15_000);
  keepalive.unref();
  state.socket.on('close', () => clearInterval(keepalive));
  return openSession(state, { options, ready, keepalive });
}

function sessionUrl(wsUrl: string): URL {
  let url: URL;
  try {
    url = new URL(wsUrl);
  } catch {
    throw new StreamingError('The session ws_url is not a valid URL.', { code: 'bad_url' });
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new StreamingError(`The session ws_url must be ws: or wss:, not ${url.protocol}`, {
      code: 'bad_url',
    });
  }
  return url;
}

/** The session's methods, over a socket whose `ready` has come. */
function openSession(
  state: SessionSocket,
  opened: { options: StreamingSessionOptions; ready: StreamingSession['ready']; keepalive: NodeJS.Timeout },
): StreamingSession {
  const { options } = opened;
  const audio = {
    maxBufferedBytes: options.maxBufferedBytes ?? 1024 * 1024,
    stallTimeoutMs: options.stallTimeoutMs ?? 10_000,
    audioEncoding: options.audioEncoding,
  };
  return {
    ready: opened.ready,
    get skippedEvents() {
      return state.skippedEvents;
    },
    onEvent(listener) {
      state.listeners.add(listener);
      return () => {
        state.listeners.delete(listener);
      };
    },
    start: async (config = {}, call = {}) =>
      ask(state, { type: 'start', ...config }, 'started', call.timeoutMs),
    sendAudio: (samples) => sendSessionAudio(state, samples, audio),
    flush: () => sendJson(state, { type: 'flush' }),
    end: async (call = {}) => ask(state, { type: call.message ?? 'end' }, 'final', call.timeoutMs ?? 30_000),
    reset: async (call = {}) => ask(state, { type: 'reset' }, 'reset_ok', call.timeoutMs),
    sendJson: (message) => sendJson(state, message),
    next: (type, timeoutMs) => nextSessionEvent(state, type, timeoutMs),
    close: (call = {}) =>
      closeSession(state, {
        keepalive: opened.keepalive,
        timeoutMs: call.timeoutMs ?? options.closeTimeoutMs ?? 2_000,
      }),
  };
}

/** Closes politely, terminating the socket when the peer does not answer in time; never rejects. */
async function closeSession(
  state: SessionSocket,
  options: { keepalive: NodeJS.Timeout; timeoutMs: number },
): Promise<void> {
  const { socket } = state;
  clearInterval(options.keepalive);
  state.stopIdle();
  if (socket.readyState === socket.CLOSED) return;
  const boundMs = Math.min(options.timeoutMs, Math.max(CLOSE_GRACE_AFTER_DEADLINE_MS, state.untilDeadline()));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      state.terminate();
      resolve();
    }, boundMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    if (socket.readyState === socket.OPEN) socket.close(1000);
    else state.terminate();
  });
}
