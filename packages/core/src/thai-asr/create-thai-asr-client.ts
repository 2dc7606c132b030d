/**
 * Client of streaming Thai recognition: the config and session routes and the WebSocket connection
 * (`thai-asr-requests.ts`), and a task verb, `transcribe` (`transcribe.ts`), that checks the audio locally,
 * then opens a session and streams the file at real-time pace (or faster) as it is decoded, and returns
 * the `final` text and segments.
 *
 * Choices where the spec is silent:
 * - Session creation allocates a realtime slot (the key has a few concurrent sessions), so it is not
 *   treated as idempotent: it is sent again only when the failure proves it never arrived (connection
 *   refused, DNS) or after an explicit 429.
 * - A frame that is not a JSON event is skipped and counted (`skippedEvents`), not fatal (see the
 *   streaming session).
 */
import { connectThaiAsrSession, createThaiAsrSession, readThaiAsrConfig } from './thai-asr-requests.js';
import type { ThaiAsrClient, ThaiAsrClientOptions } from './thai-asr-types.js';
import { transcribe } from './transcribe.js';

export function createThaiAsrClient(options: ThaiAsrClientOptions): ThaiAsrClient {
  const { http, apiKey } = options;
  const deps = { http, apiKey, files: options.files };
  return {
    config: (call) => readThaiAsrConfig(http, call),
    createSession: (request, call) => createThaiAsrSession(http, request, call),
    connect: (session, call) => connectThaiAsrSession(deps, session, call),
    transcribe: (request) => transcribe(deps, request),
  };
}
