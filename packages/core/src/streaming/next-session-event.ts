/**
 * Waiting for the next event of a type, bounded everywhere: it rejects on a server `error` event (or one
 * received since the last wait), a close or stall, the caller's abort, its own timeout, or the deadline.
 */
import type { ThaiAsrEvent } from '../contracts/thai-asr.js';
import { StreamingError } from '../errors/polymodal-error.js';
import { errorFromEvent, type SessionSocket } from './session-socket.js';

export function nextSessionEvent(
  state: SessionSocket,
  type: string,
  timeoutMs = 10_000,
): Promise<ThaiAsrEvent> {
  return new Promise<ThaiAsrEvent>((resolve, reject) => {
    const { signal } = state;
    if (signal?.aborted) return reject(signal.reason);
    if (state.pendingError && type !== 'error') return reject(state.takePendingError());
    if (state.closedWith) return reject(state.closedWith);
    const remaining = state.untilDeadline();
    const cutByDeadline = remaining <= timeoutMs;
    const waitMs = Math.max(0, Math.min(timeoutMs, remaining));
    const finish = () => {
      clearTimeout(timer);
      state.listeners.delete(onEvent);
      state.closeListeners.delete(onClose);
      signal?.removeEventListener('abort', onAbort);
    };
    const onEvent = (event: ThaiAsrEvent) => {
      if (event.type === type) {
        if (type === 'error') state.pendingError = undefined;
        finish();
        resolve(event);
      } else if (event.type === 'error') {
        state.pendingError = undefined;
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
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      finish();
      reject(
        cutByDeadline
          ? state.deadlineError(`No ${type} event`, waitMs)
          : new StreamingError(`No ${type} event from ${state.where} within ${timeoutMs} ms.`, {
              code: 'timeout',
            }),
      );
    }, waitMs);
    state.listeners.add(onEvent);
    state.closeListeners.add(onClose);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Throws what ended the session (or a server error not yet reported); the socket must be open. */
export function ensureOpen(state: SessionSocket): void {
  state.signal?.throwIfAborted();
  const pending = state.takePendingError();
  if (pending) throw pending;
  if (state.closedWith) throw state.closedWith;
  if (state.socket.readyState !== state.socket.OPEN)
    throw new StreamingError(`WebSocket to ${state.where} is not open.`, { code: 'not_open' });
}

export function sendJson(state: SessionSocket, message: Record<string, unknown>): void {
  ensureOpen(state);
  state.socket.send(JSON.stringify(message));
  state.armIdle();
}

/** Sends a control message and waits for its answer; the wait starts first so no answer is missed. */
export function ask(
  state: SessionSocket,
  message: Record<string, unknown>,
  answer: string,
  timeoutMs?: number,
): Promise<ThaiAsrEvent> {
  const answered = nextSessionEvent(state, answer, timeoutMs);
  try {
    sendJson(state, message);
  } catch (error) {
    answered.catch(() => {});
    throw error;
  }
  return answered;
}
