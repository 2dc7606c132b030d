/**
 * The socket of one recognition session and what is known of it, in one object: how the session ended
 * (`closedWith`), a server `error` event not yet reported (`pendingError`), the frames skipped, the event
 * and close listeners, and the idle timer.
 *
 * Idle: once the client has asked something of the server (start, audio, flush, end, reset), an event is
 * expected within `idleTimeoutMs`; a server that sends nothing for that long is taken as stalled
 * (`StreamingError` code `stalled`, socket terminated). WebSocket pings and pongs do not count: the ws
 * library answers them even when the recogniser behind it is stuck, and the spec gives them no meaning. The
 * timer rests after `final` and `reset_ok` (the server then owes nothing).
 *
 * A frame that is not a JSON event (binary, not JSON, no `type`) is skipped and counted rather than
 * failing the session; past `maxSkippedEvents` the server is taken for something else than the recogniser
 * and the session fails with code `malformed_frame`.
 */
import type { WebSocket as WebSocketType } from 'ws';
import { ThaiAsrEvent } from '../contracts/thai-asr.js';
import { StreamingError, TimeoutError } from '../errors/polymodal-error.js';

export interface SessionSocket {
  readonly socket: WebSocketType;
  /** Host and path of the session, for messages: never the URL, which carries the key. */
  readonly where: string;
  readonly signal: AbortSignal | undefined;
  readonly listeners: Set<(event: ThaiAsrEvent) => void>;
  readonly closeListeners: Set<(reason: StreamingError) => void>;
  closedWith: StreamingError | undefined;
  pendingError: StreamingError | undefined;
  skippedEvents: number;
  /** Milliseconds left until the caller's deadline (infinite without one). */
  untilDeadline(): number;
  deadlineError(what: string, waitedMs: number): TimeoutError;
  terminate(): void;
  /** Arms the idle timer, unless it is running or off: called on every message the client sends. */
  armIdle(): void;
  stopIdle(): void;
  /** The pending server error, if any, handed over once. */
  takePendingError(): StreamingError | undefined;
}

export interface SessionSocketOptions {
  socket: WebSocketType;
  where: string;
  deadline: number | undefined;
  idleTimeoutMs: number;
  maxSkippedEvents: number;
  signal: AbortSignal | undefined;
}

export const errorFromEvent = (event: ThaiAsrEvent) =>
  new StreamingError(
    `Recognition error${event.code ? ` ${event.code}` : ''}: ${event.error ?? 'no message'}.`,
    { code: event.code ?? 'error' },
  );

/** What a wait that the caller's deadline ended rejects with. */
export function sessionDeadlineError(where: string, what: string, waitedMs: number): TimeoutError {
  return new TimeoutError(
    `${what} from ${where} before the call's deadline; nothing more was waited for.`,
    Math.max(0, Math.round(waitedMs)),
    { deadlineReached: true },
  );
}

/** Wraps a new socket and listens to it: its events, errors, refusals and close, and the caller's abort. */
export function watchSessionSocket(options: SessionSocketOptions): SessionSocket {
  const { socket, where, deadline, idleTimeoutMs } = options;
  let idleTimer: NodeJS.Timeout | undefined;
  const state: SessionSocket = {
    socket,
    where,
    signal: options.signal,
    listeners: new Set(),
    closeListeners: new Set(),
    closedWith: undefined,
    pendingError: undefined,
    skippedEvents: 0,
    untilDeadline: () => (deadline === undefined ? Number.POSITIVE_INFINITY : deadline - Date.now()),
    deadlineError: (what, waitedMs) => sessionDeadlineError(where, what, waitedMs),
    terminate: () => {
      if (socket.readyState !== socket.CLOSED) socket.terminate();
    },
    armIdle: () => {
      if (idleTimeoutMs <= 0 || idleTimer !== undefined || state.closedWith) return;
      idleTimer = setTimeout(() => {
        idleTimer = undefined;
        state.closedWith ??= new StreamingError(
          `The recognition server at ${where} stopped answering: no event for ${idleTimeoutMs} ms while the ` +
            'session was active. The session was closed; start a new one.',
          { code: 'stalled' },
        );
        state.terminate();
      }, idleTimeoutMs);
    },
    stopIdle: () => {
      clearTimeout(idleTimer);
      idleTimer = undefined;
    },
    takePendingError: () => {
      const error = state.pendingError;
      state.pendingError = undefined;
      return error;
    },
  };
  listenToSocket(state, {
    maxSkippedEvents: options.maxSkippedEvents,
    pushIdleBack: () => idleTimer?.refresh(),
  });
  return state;
}

function listenToSocket(
  state: SessionSocket,
  options: { maxSkippedEvents: number; pushIdleBack: () => void },
): void {
  const { socket, where } = state;
  // Errors are reported through `closedWith`; having an 'error' listener keeps them from being thrown.
  socket.on('error', (error: Error & { code?: string }) => {
    state.closedWith ??= new StreamingError(
      `WebSocket to ${where} failed${error.code ? ` (${error.code})` : ''}.`,
      { code: 'socket_error' },
    );
  });
  socket.on('unexpected-response', (_request, response) => {
    state.closedWith ??= new StreamingError(
      `WebSocket to ${where} was refused with HTTP ${response.statusCode}.`,
      {
        code: `http_${response.statusCode}`,
      },
    );
    response.resume();
    socket.terminate();
  });
  const skip = (what: string) => {
    state.skippedEvents += 1;
    if (state.skippedEvents <= options.maxSkippedEvents) return;
    state.closedWith ??= new StreamingError(
      `The server at ${where} sent ${state.skippedEvents} frames that are not recognition events (the last: ${what}); ` +
        'it does not look like the recognition service. Check the platform address.',
      { code: 'malformed_frame' },
    );
    state.terminate();
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
    emit(state, event.data, options.pushIdleBack);
  });
  socket.on('close', (code) => {
    state.stopIdle();
    state.closedWith ??= new StreamingError(`WebSocket to ${where} closed (code ${code}).`, {
      code: `close_${code}`,
    });
    for (const listener of [...state.closeListeners]) listener(state.closedWith);
  });
  const onSessionAbort = () => state.terminate();
  state.signal?.addEventListener('abort', onSessionAbort, { once: true });
  socket.on('close', () => state.signal?.removeEventListener('abort', onSessionAbort));
}

/** Hands an event to every listener; the idle timer rests once the server owes nothing. */
function emit(state: SessionSocket, event: ThaiAsrEvent, pushIdleBack: () => void): void {
  if (event.type === 'final' || event.type === 'reset_ok') state.stopIdle();
  else pushIdleBack();
  if (event.type === 'error') state.pendingError = errorFromEvent(event);
  for (const listener of [...state.listeners]) {
    try {
      listener(event);
    } catch (error) {
      // A throwing listener must not become an uncaught exception inside the socket's data handler.
      state.closedWith ??= new StreamingError(
        `An event listener threw: ${error instanceof Error ? error.message : String(error)}`,
        { code: 'listener_error', cause: error },
      );
      state.socket.terminate();
    }
  }
}
