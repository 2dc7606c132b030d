/** The options and the interface of a streaming-recognition session (see `create-streaming-session.ts`). */
import type { ThaiAsrEvent, ThaiAsrEventType, ThaiAsrSessionRequest } from '../contracts/thai-asr.js';

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
