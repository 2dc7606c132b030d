/**
 * Streaming Thai recognition: `GET /api/thai-asr/config`, `POST /api/thai-asr/sessions` (x-api-key) and the
 * WebSocket `/api/thai-asr/stream?session_id=…&api_key=…` with the ready → start → audio → end → final
 * protocol, flush, reset, binary PCM16LE frames or JSON `audio_b64`, VAD `speech_start`, partials every
 * `partial_interval_ms` of audio, `stabilized_partial` once a partial repeats three times, and per-key
 * limits (concurrent sessions, daily audio seconds) reported and enforced.
 *
 * Sandbox choices where the spec is silent: invalid session fields → 400 `{error}`; an unknown or another
 * key's session → the upgrade is refused with 404; limit breaches and protocol mistakes arrive as `error`
 * events (`concurrent_sessions_exceeded` and `daily_audio_limit` then close the socket with 1008;
 * `bad_message`, `not_started`, `already_started`, `bad_audio`, `unknown_type` keep it open).
 *
 * This module holds the HTTP routes and the upgrade; one stream's protocol is in recognition-stream.ts.
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { KeyScheme } from '../../framework/authenticator.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router, UpgradeContext } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import {
  BACKEND,
  DEFAULTS,
  limitsOf,
  type Session,
  type SessionConfig,
  SessionRequest,
  SLA,
  type ThaiAsrState,
} from './asr-sessions.js';
import { openRecognitionStream } from './recognition-stream.js';

export const THAI_ASR_PATH = '/api/thai-asr';
const HTTP_KEYS: readonly KeyScheme[] = ['x-api-key'];

/** Who the key belongs to, as reported back (the key itself only by its non-secret prefix). */
function tenant(user: { id: string; name?: string }, key: string) {
  return {
    team_id: user.id,
    team_name: user.name ?? user.id,
    key_prefix: key.split('_').slice(0, 2).join('_'),
  };
}

const keyOf = (request: { headers: Record<string, unknown> }) => String(request.headers['x-api-key'] ?? '');

function config(state: ThaiAsrState, request: RequestContext): SandboxResponse {
  const { user } = request.authenticate(HTTP_KEYS);
  return json(200, {
    language: 'th',
    mode: 'benchmark_spike',
    backend: BACKEND,
    engine: 'engine_t',
    defaults: DEFAULTS,
    notes: ['Sandbox: recognises the tone-coded phrases of createThaiSpeech(), not real speech.'],
    tenant: tenant(user, keyOf(request.request)),
    limits: limitsOf(state, user.id),
  });
}

async function createSession(state: ThaiAsrState, request: RequestContext): Promise<SandboxResponse> {
  const { user } = request.authenticate(HTTP_KEYS);
  const body = await request.readJson();
  const parsed = SessionRequest.safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(
      400,
      `invalid session request: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const { benchmark_label, ...fields } = parsed.data;
  const session: Session = {
    id: `asr_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
    userId: user.id,
    config: { ...DEFAULTS, ...fields, benchmark_label: benchmark_label ?? null } as SessionConfig,
  };
  state.sessions.set(session.id, session);
  const host = request.request.headers.host ?? 'localhost';
  return json(201, {
    session_id: session.id,
    mode: 'benchmark_spike',
    language: 'th',
    engine: 'engine_t',
    backend: BACKEND,
    ws_url: `ws://${host}${THAI_ASR_PATH}/stream?session_id=${session.id}`,
    config: session.config,
    sla_targets: SLA,
    tenant: tenant(user, keyOf(request.request)),
  });
}

/** The upgrade to a stream: only for the caller's own session (anything else is refused with 404). */
function stream(state: ThaiAsrState, upgrade: UpgradeContext) {
  const { user } = upgrade.authenticate(['query']);
  const session = state.sessions.get(upgrade.url.searchParams.get('session_id') ?? '');
  if (!session || session.userId !== user.id)
    throw new HttpError(404, 'unknown session_id; create a session first');
  return (socket: WebSocket) => openRecognitionStream(state, socket, session);
}

export function createThaiAsrService(_context: ServiceContext): SandboxService {
  const state: ThaiAsrState = { sessions: new Map(), openSockets: new Map(), audioSecondsToday: new Map() };
  return {
    name: 'thai-asr',
    register(router: Router) {
      router.route('GET', `${THAI_ASR_PATH}/config`, (request) => config(state, request));
      router.route('POST', `${THAI_ASR_PATH}/sessions`, (request) => createSession(state, request));
      router.upgrade(`${THAI_ASR_PATH}/stream`, (upgrade) => stream(state, upgrade));
    },
    settle() {},
    async reset() {
      state.sessions.clear();
      state.audioSecondsToday.clear();
    },
    async close() {
      for (const sockets of state.openSockets.values()) for (const socket of sockets) socket.terminate();
      state.sessions.clear();
    },
  };
}
