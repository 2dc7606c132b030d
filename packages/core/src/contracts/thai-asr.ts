/**
 * Wire contracts of streaming Thai recognition (`/api/thai-asr`), from spec/speech-and-language.md.
 * Session requests are strict (every range of the spec, checked before sending); the config, the session
 * response and the WebSocket events are lenient, because the spec leaves their further fields "not shown".
 */
import { z } from 'zod';

/** The documented session defaults (config `defaults`), used when a field is omitted. */
export const THAI_ASR_DEFAULTS = {
  sample_rate: 16_000,
  frame_ms: 20,
  stream_chunk_ms: 80,
  partial_interval_ms: 40,
  min_decode_audio_ms: 240,
  decode_window_ms: 1600,
  vad: true,
} as const;

export const ThaiAsrSessionRequest = z.strictObject({
  sample_rate: z.number().int().min(8000).max(48_000).optional(),
  frame_ms: z.number().int().min(10).max(200).optional(),
  partial_interval_ms: z.number().int().min(20).max(1000).optional(),
  min_decode_audio_ms: z.number().int().min(100).max(5000).optional(),
  decode_window_ms: z.number().int().min(200).max(15_000).optional(),
  vad: z.boolean().optional(),
  benchmark_label: z.string().max(200).optional(),
});
export type ThaiAsrSessionRequest = z.infer<typeof ThaiAsrSessionRequest>;

export const ThaiAsrLimits = z.looseObject({
  requests_per_minute: z.number().optional(),
  concurrent_sessions: z.number().optional(),
  daily_audio_seconds: z.number().optional(),
  today_audio_seconds_used: z.number().optional(),
});
export type ThaiAsrLimits = z.infer<typeof ThaiAsrLimits>;

export const ThaiAsrTenant = z.looseObject({
  team_id: z.string().optional(),
  team_name: z.string().optional(),
  key_prefix: z.string().optional(),
});
export type ThaiAsrTenant = z.infer<typeof ThaiAsrTenant>;

export const ThaiAsrConfig = z.looseObject({
  language: z.string().optional(),
  mode: z.string().optional(),
  backend: z.string().optional(),
  engine: z.string().optional(),
  defaults: z
    .looseObject({
      sample_rate: z.number().optional(),
      frame_ms: z.number().optional(),
      stream_chunk_ms: z.number().optional(),
      partial_interval_ms: z.number().optional(),
      min_decode_audio_ms: z.number().optional(),
      decode_window_ms: z.number().optional(),
      vad: z.boolean().optional(),
    })
    .optional(),
  notes: z.array(z.string()).optional(),
  tenant: ThaiAsrTenant.optional(),
  limits: ThaiAsrLimits.optional(),
});
export type ThaiAsrConfig = z.infer<typeof ThaiAsrConfig>;

export const ThaiAsrSession = z.looseObject({
  session_id: z.string().min(1),
  mode: z.string().optional(),
  language: z.string().optional(),
  engine: z.string().optional(),
  backend: z.string().optional(),
  ws_url: z.string().min(1),
  config: z
    .looseObject({ sample_rate: z.number().optional(), benchmark_label: z.string().nullish() })
    .optional(),
  sla_targets: z
    .looseObject({
      speech_detected_p95_ms: z.number().optional(),
      first_partial_p95_ms: z.number().optional(),
      final_after_eou_p95_ms: z.number().optional(),
    })
    .optional(),
  tenant: ThaiAsrTenant.optional(),
});
export type ThaiAsrSession = z.infer<typeof ThaiAsrSession>;

export const ThaiAsrSegment = z.looseObject({ start: z.number(), end: z.number(), text: z.string() });
export type ThaiAsrSegment = z.infer<typeof ThaiAsrSegment>;

/** Server event types of the spec; other types are passed through as they come. */
export const THAI_ASR_EVENT_TYPES = [
  'ready',
  'started',
  'speech_start',
  'partial',
  'stabilized_partial',
  'final',
  'error',
  'reset_ok',
] as const;
export type ThaiAsrEventType = (typeof THAI_ASR_EVENT_TYPES)[number];

/**
 * One server event. Fields are typed where the spec names them: `partial`/`stabilized_partial`/`final`
 * carry `text`, `segments` and the latency fields; `speech_start` carries `offset_ms`, `latency_ms`;
 * `error` carries `code` and `error`; `ready` the team, backend, limits and sample rate.
 */
export const ThaiAsrEvent = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  segments: z.array(ThaiAsrSegment).optional(),
  session_id: z.string().optional(),
  engine: z.string().optional(),
  backend: z.string().optional(),
  offset_ms: z.number().optional(),
  audio_ms: z.number().optional(),
  latency_ms: z.number().optional(),
  queue_ms: z.number().optional(),
  decode_ms: z.number().optional(),
  processing_time_ms: z.number().optional(),
  audio_duration_ms: z.number().optional(),
  sample_rate: z.number().optional(),
  limits: ThaiAsrLimits.optional(),
  /** The spec does not say whether codes are strings or numbers: both are read as strings. */
  code: z
    .union([z.string(), z.number()])
    .transform((value) => String(value))
    .optional(),
  error: z.string().optional(),
});
export type ThaiAsrEvent = z.infer<typeof ThaiAsrEvent>;
