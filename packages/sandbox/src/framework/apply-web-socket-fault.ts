/**
 * Applies a WebSocket fault to an open socket before the service gets it, by wrapping the socket's `send`,
 * so that every WebSocket route fails the same way without the services knowing. Only what the server
 * sends changes: the socket stays open and the service keeps reading what the client sends.
 */
import type { WebSocket } from 'ws';
import { DEFAULT_MALFORMED_FRAME, type FaultRule } from './fault-rule.js';

type SendArguments = [data: unknown, optionsOrCallback?: unknown, callback?: unknown];

export function applyWebSocketFault(socket: WebSocket, rule: FaultRule): void {
  if (rule.kind !== 'ws-stall' && rule.kind !== 'ws-malformed') return;
  const kind = rule.kind;
  const afterEvents = rule.afterEvents ?? 1;
  const frame = rule.frame ?? DEFAULT_MALFORMED_FRAME;
  const send = socket.send.bind(socket) as (...args: SendArguments) => void;
  let sent = 0;
  let malformedSent = false;

  const sendMalformedOnce = () => {
    if (malformedSent || sent < afterEvents) return;
    malformedSent = true;
    send(frame);
  };

  if (kind === 'ws-malformed') sendMalformedOnce();
  socket.send = ((...args: SendArguments) => {
    if (kind === 'ws-stall' && sent >= afterEvents) {
      // Swallowed, but a sender waiting on its callback is told the frame went out, as it would be by a
      // server whose event loop stalled after the write.
      const callback = [args[1], args[2]].find((value) => typeof value === 'function') as
        | ((error?: Error) => void)
        | undefined;
      if (callback) queueMicrotask(() => callback());
      return;
    }
    send(...args);
    sent++;
    if (kind === 'ws-malformed') sendMalformedOnce();
  }) as WebSocket['send'];
}
