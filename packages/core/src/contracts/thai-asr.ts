/**
 * Wire contracts of streaming Thai recognition (`/api/thai-asr`), from spec/speech-and-language.md.
 * Session requests are strict (every range of the spec); responses and events are lenient.
 */
import { z } from 'zod';

export const THAI_ASR_API_PATH = '/api/thai-asr';

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

export const ThaiAsrConfig = z.looseObject({
  language: z.string().optional(),
  engine: z.string().optional(),
  backend: z.string().optional(),
  defaults: z
    .looseObject({ sample_rate: z.number().optional(), stream_chunk_ms: z.number().optional() })
    .optional(),
  limits: z.looseObject({}).optional(),
  tenant: z.looseObject({}).optional(),
});
export type ThaiAsrConfig = z.infer<typeof ThaiAsrConfig>;

export const ThaiAsrSession = z.looseObject({
  session_id: z.string().min(1),
  ws_url: z.string().min(1),
  config: z.looseObject({ sample_rate: z.number().optional() }).optional(),
});
export type ThaiAsrSession = z.infer<typeof ThaiAsrSession>;

export const ThaiAsrSegment = z.looseObject({ start: z.number(), end: z.number(), text: z.string() });
export type ThaiAsrSegment = z.infer<typeof ThaiAsrSegment>;

export const ThaiAsrEvent = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  segments: z.array(ThaiAsrSegment).optional(),
  code: z.string().optional(),
  error: z.string().optional(),
});
export type ThaiAsrEvent = z.infer<typeof ThaiAsrEvent>;
