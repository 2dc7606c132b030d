/**
 * Recognition sessions and the per-key limits they count against: the session request (its fields are
 * also the overrides a stream's `start` message may send), defaults, the service's fixed limits and
 * latency targets, and the state shared by the HTTP routes and the open streams.
 */
import type { WebSocket } from 'ws';
import { z } from 'zod';

export const BACKEND = 'persistent_decoder';
export const LIMITS = { requests_per_minute: 120, concurrent_sessions: 3, daily_audio_seconds: 3600 };
export const DEFAULTS = {
  sample_rate: 16_000,
  frame_ms: 20,
  stream_chunk_ms: 80,
  partial_interval_ms: 40,
  min_decode_audio_ms: 240,
  decode_window_ms: 1600,
  vad: true,
};
export const SLA = { speech_detected_p95_ms: 60, first_partial_p95_ms: 250, final_after_eou_p95_ms: 800 };

export const SessionRequest = z.strictObject({
  sample_rate: z.number().int().min(8000).max(48_000).optional(),
  frame_ms: z.number().int().min(10).max(200).optional(),
  partial_interval_ms: z.number().int().min(20).max(1000).optional(),
  min_decode_audio_ms: z.number().int().min(100).max(5000).optional(),
  decode_window_ms: z.number().int().min(200).max(15_000).optional(),
  vad: z.boolean().optional(),
  benchmark_label: z.string().max(200).nullable().optional(),
});
export type SessionConfig = Required<Omit<z.infer<typeof SessionRequest>, 'benchmark_label'>> & {
  benchmark_label: string | null;
};

export interface Session {
  id: string;
  userId: string;
  config: SessionConfig;
}

export interface ThaiAsrState {
  sessions: Map<string, Session>;
  /** Open streams per user: the concurrent-sessions limit counts these. */
  openSockets: Map<string, Set<WebSocket>>;
  /** Seconds of audio streamed per user, against the daily limit. */
  audioSecondsToday: Map<string, number>;
}

/** The limits as reported to a user, with the audio seconds they used today. */
export function limitsOf(state: ThaiAsrState, userId: string) {
  return {
    ...LIMITS,
    today_audio_seconds_used: Math.round(state.audioSecondsToday.get(userId) ?? 0),
  };
}
