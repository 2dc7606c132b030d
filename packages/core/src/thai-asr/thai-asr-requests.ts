/**
 * The recognition service's routes: the config and session requests (x-api-key, every session field
 * checked against the spec's ranges before sending) and the connection to a session's WebSocket.
 */
import type { z } from 'zod';
import { THAI_ASR_API_PATH } from '../constants/service-table.js';
import { ThaiAsrConfig, ThaiAsrSession, ThaiAsrSessionRequest } from '../contracts/thai-asr.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { requestOptionsOf, startCall } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import { createStreamingSession } from '../streaming/create-streaming-session.js';
import type { StreamingSession } from '../streaming/streaming-session-types.js';
import type { ThaiAsrCallOptions, ThaiAsrConnectOptions } from './thai-asr-types.js';

export async function readThaiAsrConfig(
  http: HttpClient,
  call: ThaiAsrCallOptions = {},
): Promise<ThaiAsrConfig> {
  const response = await http.request({
    method: 'GET',
    path: `${THAI_ASR_API_PATH}/config`,
    schema: ThaiAsrConfig,
    idempotent: true,
    ...requestOptionsOf(call),
  });
  return response.data;
}

export async function createThaiAsrSession(
  http: HttpClient,
  request: ThaiAsrSessionRequest = {},
  call: ThaiAsrCallOptions = {},
): Promise<ThaiAsrSession> {
  const parsed = ThaiAsrSessionRequest.safeParse(request);
  if (!parsed.success) throw sessionValidationError(parsed.error, request);
  const response = await http.request({
    method: 'POST',
    path: `${THAI_ASR_API_PATH}/sessions`,
    json: parsed.data,
    schema: ThaiAsrSession,
    // Not idempotent: a session holds one of the key's few concurrent realtime slots, and the spec does
    // not say when an unused one is released. A creation that may have arrived is not sent again; one
    // that provably never arrived (refused, DNS) or was declined with a 429 is.
    idempotent: false,
    ...requestOptionsOf(call),
  });
  return response.data;
}

/** Connects to a session's `ws_url`, which must be on the platform's own host: the key travels in it. */
export function connectThaiAsrSession(
  platform: { http: HttpClient; apiKey: string },
  session: ThaiAsrSession,
  connectOptions: ThaiAsrConnectOptions = {},
): Promise<StreamingSession> {
  const call = startCall(connectOptions);
  const base = new URL(platform.http.baseUrl);
  const wsUrl = new URL(session.ws_url, `${base.protocol === 'https:' ? 'wss:' : 'ws:'}//${base.host}`);
  if (wsUrl.host !== base.host || !['ws:', 'wss:'].includes(wsUrl.protocol)) {
    throw new ValidationError(
      `The session's ws_url points at ${wsUrl.protocol}//${wsUrl.host}, not the platform's host; refusing to send the key there.`,
      [{ path: 'ws_url', message: 'not the platform host' }],
    );
  }
  return createStreamingSession({
    wsUrl: wsUrl.toString(),
    apiKey: platform.apiKey,
    ...(call.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: call.readyTimeoutMs }),
    ...(call.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: call.idleTimeoutMs }),
    ...(call.audioEncoding ? { audioEncoding: call.audioEncoding } : {}),
    ...(call.deadline === undefined ? {} : { deadline: call.deadline }),
    ...(call.signal ? { signal: call.signal } : {}),
  });
}

export function sessionValidationError(error: z.ZodError, input: unknown): ValidationError {
  const issues = describeIssues(error, input);
  return new ValidationError(`Invalid recognition session: ${listIssues(issues)}. Nothing was sent.`, issues);
}
