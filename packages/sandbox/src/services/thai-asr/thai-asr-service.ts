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
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import type { KeyScheme } from '../../framework/authenticator.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router, UpgradeContext } from '../../framework/router.js';
import { json } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { StreamRecognizer } from './stream-recognizer.js';

export const THAI_ASR_PATH = '/api/thai-asr';
const HTTP_KEYS: readonly KeyScheme[] = ['x-api-key'];
const BACKEND = 'persistent_decoder';
const LIMITS = { requests_per_minute: 120, concurrent_sessions: 3, daily_audio_seconds: 3600 };
const DEFAULTS = {
  sample_rate: 16_000,
  frame_ms: 20,
  stream_chunk_ms: 80,
  partial_interval_ms: 40,
  min_decode_audio_ms: 240,
  decode_window_ms: 1600,
  vad: true,
};
const SLA = { speech_detected_p95_ms: 60, first_partial_p95_ms: 250, final_after_eou_p95_ms: 800 };

const SessionRequest = z.strictObject({
  sample_rate: z.number().int().min(8000).max(48_000).optional(),
  frame_ms: z.number().int().min(10).max(200).optional(),
  partial_interval_ms: z.number().int().min(20).max(1000).optional(),
  min_decode_audio_ms: z.number().int().min(100).max(5000).optional(),
  decode_window_ms: z.number().int().min(200).max(15_000).optional(),
  vad: z.boolean().optional(),
  benchmark_label: z.string().max(200).nullable().optional(),
});
type SessionConfig = Required<Omit<z.infer<typeof SessionRequest>, 'benchmark_label'>> & {
  benchmark_label: string | null;
};

interface Session {
  id: string;
  userId: string;
  config: SessionConfig;
}

export function createThaiAsrService(context: ServiceContext): SandboxService {
  const sessions = new Map<string, Session>();
  const openSockets = new Map<string, Set<WebSocket>>();
  const audioSecondsToday = new Map<string, number>();

  const tenant = (user: { id: string; name?: string }, key: string) => ({
    team_id: user.id,
    team_name: user.name ?? user.id,
    key_prefix: key.split('_').slice(0, 2).join('_'),
  });
  const limits = (userId: string) => ({
    ...LIMITS,
    today_audio_seconds_used: Math.round(audioSecondsToday.get(userId) ?? 0),
  });
  const keyOf = (request: { headers: Record<string, unknown> }) => String(request.headers['x-api-key'] ?? '');

  function config(request: RequestContext) {
    const { user } = request.authenticate(HTTP_KEYS);
    return json(200, {
      language: 'th',
      mode: 'benchmark_spike',
      backend: BACKEND,
      engine: 'engine_t',
      defaults: DEFAULTS,
      notes: ['Sandbox: recognises the tone-coded phrases of createThaiSpeech(), not real speech.'],
      tenant: tenant(user, keyOf(request.request)),
      limits: limits(user.id),
    });
  }

  async function createSession(request: RequestContext) {
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
    sessions.set(session.id, session);
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

  function stream(upgrade: UpgradeContext) {
    const { user } = upgrade.authenticate(['query']);
    const session = sessions.get(upgrade.url.searchParams.get('session_id') ?? '');
    if (!session || session.userId !== user.id)
      throw new HttpError(404, 'unknown session_id; create a session first');
    return (socket: WebSocket) => runSocket(socket, session);
  }

  function runSocket(socket: WebSocket, session: Session): void {
    const send = (event: Record<string, unknown>) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(event));
    };
    const fail = (code: string, error: string, close = false) => {
      send({ type: 'error', code, error });
      if (close) socket.close(1008, code);
    };
    // `ready` always comes first, even when a limit then ends the session.
    send({
      type: 'ready',
      session_id: session.id,
      team_id: session.userId,
      backend: BACKEND,
      limits: limits(session.userId),
      sample_rate: session.config.sample_rate,
    });
    const open = openSockets.get(session.userId) ?? new Set<WebSocket>();
    openSockets.set(session.userId, open);
    if (open.size >= LIMITS.concurrent_sessions) {
      fail(
        'concurrent_sessions_exceeded',
        `at most ${LIMITS.concurrent_sessions} concurrent sessions per key`,
        true,
      );
      return;
    }
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => open.delete(socket));

    let config = session.config;
    let started = false;
    let recognizer = new StreamRecognizer(config.sample_rate);
    let speechAnnounced = false;
    let lastPartialAudioMs = 0;
    let lastPartial = '';
    let repeats = 0;
    let stabilized = '';

    const reset = () => {
      recognizer = new StreamRecognizer(config.sample_rate);
      speechAnnounced = false;
      lastPartialAudioMs = 0;
      lastPartial = '';
      repeats = 0;
      stabilized = '';
    };

    const partial = (received: number, force: boolean) => {
      const began = performance.now();
      const heard = recognizer.current(config.min_decode_audio_ms);
      const decodeMs = performance.now() - began;
      if (!heard.text) return;
      const timing = {
        audio_ms: Math.round(recognizer.audioMs),
        latency_ms: Math.round((performance.now() - received) * 10) / 10,
        queue_ms: 0,
        decode_ms: Math.round(decodeMs),
      };
      send({ type: 'partial', text: heard.text, segments: heard.segments, ...timing });
      repeats = heard.text === lastPartial ? repeats + 1 : 1;
      lastPartial = heard.text;
      if ((repeats >= 3 || force) && heard.text !== stabilized) {
        stabilized = heard.text;
        send({ type: 'stabilized_partial', text: heard.text, segments: heard.segments, ...timing });
      }
    };

    const audio = (samples: Int16Array) => {
      const received = performance.now();
      const used = (audioSecondsToday.get(session.userId) ?? 0) + samples.length / config.sample_rate;
      audioSecondsToday.set(session.userId, used);
      if (used > LIMITS.daily_audio_seconds) {
        fail(
          'daily_audio_limit',
          `the key used its ${LIMITS.daily_audio_seconds} audio seconds for today`,
          true,
        );
        return;
      }
      recognizer.push(samples);
      if (config.vad && !speechAnnounced && recognizer.speechStartSample !== undefined) {
        speechAnnounced = true;
        send({
          type: 'speech_start',
          offset_ms: Math.round((recognizer.speechStartSample * 1000) / config.sample_rate),
          latency_ms: Math.round((performance.now() - received) * 10) / 10,
        });
      }
      if (recognizer.audioMs - lastPartialAudioMs >= config.partial_interval_ms) {
        lastPartialAudioMs = recognizer.audioMs;
        partial(received, false);
      }
    };

    const finalize = () => {
      const began = performance.now();
      const heard = recognizer.finish();
      const processing = Math.round(performance.now() - began);
      send({
        type: 'final',
        session_id: session.id,
        engine: 'engine_t',
        backend: BACKEND,
        text: heard.text,
        segments: heard.segments,
        audio_ms: Math.round(recognizer.audioMs),
        latency_ms: processing,
        queue_ms: 0,
        decode_ms: processing,
        processing_time_ms: processing,
        audio_duration_ms: Math.round(recognizer.audioMs),
      });
      reset();
    };

    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
        if (!started) return fail('not_started', 'send {"type":"start"} before audio');
        if (bytes.length % 2 !== 0)
          return fail('bad_audio', 'binary frames must be PCM16LE: an even number of bytes');
        return audio(new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
      }
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(String(data)) as Record<string, unknown>;
        if (typeof message !== 'object' || message === null) throw new Error('not an object');
      } catch {
        return fail('bad_message', 'messages must be JSON objects with a "type"');
      }
      switch (message.type) {
        case 'start': {
          if (started) return fail('already_started', 'start is sent once');
          const overrides = SessionRequest.safeParse(
            Object.fromEntries(Object.entries(message).filter(([key]) => key !== 'type')),
          );
          if (!overrides.success)
            return fail('bad_message', `invalid start config: ${overrides.error.issues[0]?.message}`);
          const { benchmark_label, ...fields } = overrides.data;
          config = { ...config, ...fields, benchmark_label: benchmark_label ?? config.benchmark_label };
          started = true;
          reset();
          return send({ type: 'started', session_id: session.id, config });
        }
        case 'audio': {
          if (!started) return fail('not_started', 'send {"type":"start"} before audio');
          const bytes = Buffer.from(String(message.audio_b64 ?? ''), 'base64');
          if (bytes.length === 0 || bytes.length % 2 !== 0)
            return fail('bad_audio', 'audio_b64 must hold PCM16LE bytes');
          return audio(new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
        }
        case 'flush':
          return partial(performance.now(), true);
        case 'end':
        case 'end_utterance':
          if (!started) return fail('not_started', 'send {"type":"start"} first');
          return finalize();
        case 'reset':
          reset();
          return send({ type: 'reset_ok' });
        default:
          return fail('unknown_type', `unknown message type ${String(message.type)}`);
      }
    });
  }

  return {
    name: 'thai-asr',
    register(router: Router) {
      router.route('GET', `${THAI_ASR_PATH}/config`, config);
      router.route('POST', `${THAI_ASR_PATH}/sessions`, createSession);
      router.upgrade(`${THAI_ASR_PATH}/stream`, stream);
    },
    settle() {},
    async reset() {
      sessions.clear();
      audioSecondsToday.clear();
    },
    async close() {
      for (const sockets of openSockets.values()) for (const socket of sockets) socket.terminate();
      sessions.clear();
    },
  };
}
