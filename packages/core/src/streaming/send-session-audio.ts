/**
 * Sending audio into a session with back-pressure: above the high-water mark of `bufferedAmount` the
 * sender waits for the socket to drain, and gives up (terminating the socket, so memory stays bounded)
 * when the server has not read anything for too long.
 */
import { StreamingError } from '../errors/polymodal-error.js';
import { sleep } from '../util/sleep.js';
import { ensureOpen } from './next-session-event.js';
import type { SessionSocket } from './session-socket.js';

export async function sendSessionAudio(
  state: SessionSocket,
  samples: Int16Array,
  options: {
    maxBufferedBytes: number;
    stallTimeoutMs: number;
    audioEncoding: 'binary' | 'base64' | undefined;
  },
): Promise<void> {
  const { socket } = state;
  ensureOpen(state);
  let lastBuffered = socket.bufferedAmount;
  let progressAt = Date.now();
  const waitStarted = Date.now();
  while (socket.bufferedAmount > options.maxBufferedBytes) {
    if (socket.bufferedAmount < lastBuffered) {
      lastBuffered = socket.bufferedAmount;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > options.stallTimeoutMs) {
      const waiting = socket.bufferedAmount;
      state.closedWith ??= new StreamingError(
        `The server stopped reading audio from ${state.where}: ${waiting} bytes unsent for ${options.stallTimeoutMs} ms.`,
        { code: 'stalled' },
      );
      state.terminate();
      throw state.closedWith;
    }
    if (state.untilDeadline() <= 0) {
      throw state.deadlineError('Audio was still not taken', Date.now() - waitStarted);
    }
    await sleep(Math.max(0, Math.min(10, state.untilDeadline())), state.signal);
    ensureOpen(state);
  }
  const bytes = Buffer.alloc(samples.length * 2);
  for (let index = 0; index < samples.length; index++) bytes.writeInt16LE(samples[index] ?? 0, index * 2);
  if (options.audioEncoding === 'base64')
    socket.send(JSON.stringify({ type: 'audio', audio_b64: bytes.toString('base64') }));
  else socket.send(bytes);
  state.armIdle();
}
