/**
 * Client of streaming Thai recognition: the config and session routes (x-api-key), and a task verb,
 * `transcribe`, that decodes a file, opens a session, streams 80 ms frames at real-time pace (or faster),
 * ends the utterance and returns the `final` text and segments. Partials are reported as they come,
 * following the spec's caption rule: the stabilized partial when there is one, otherwise the partial;
 * the transcript itself comes only from `final`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  THAI_ASR_API_PATH,
  ThaiAsrConfig,
  type ThaiAsrEvent,
  type ThaiAsrSegment,
  ThaiAsrSession,
  ThaiAsrSessionRequest,
} from '../contracts/thai-asr.js';
import { ValidationError } from '../errors/index.js';
import type { FileAccess } from '../files/index.js';
import type { HttpClient } from '../http/index.js';
import { createStreamingSession } from '../streaming/index.js';
import { decodeAudioFile } from './decode-audio-file.js';

const FRAME_MS = 80;

export interface TranscribeOptions {
  /** Local audio file: WAV of any rate/depth/channels, or anything ffmpeg reads. */
  file?: string;
  /** Or PCM16 mono samples already at `session.sample_rate` (default 16 kHz). */
  samples?: Int16Array;
  session?: ThaiAsrSessionRequest;
  /** 1 = real time (default), 4 = four times faster, 0 = as fast as the socket takes it. */
  speed?: number;
  /** Caption updates: the stabilized partial when available, else the partial. */
  onCaption?: (text: string, event: ThaiAsrEvent) => void;
  onEvent?: (event: ThaiAsrEvent) => void;
  signal?: AbortSignal;
  /** Wait for `final` after `end` at most this long (default 30 s). */
  finalTimeoutMs?: number;
}

export interface TranscribeResult {
  sessionId: string;
  text: string;
  segments: ThaiAsrSegment[];
  audioSeconds: number;
  final: ThaiAsrEvent;
}

export interface ThaiAsrClient {
  config(options?: { signal?: AbortSignal }): Promise<ThaiAsrConfig>;
  createSession(request?: ThaiAsrSessionRequest, options?: { signal?: AbortSignal }): Promise<ThaiAsrSession>;
  transcribe(options: TranscribeOptions): Promise<TranscribeResult>;
}

export function createThaiAsrClient(options: {
  http: HttpClient;
  apiKey: string;
  files?: FileAccess;
}): ThaiAsrClient {
  const { http, files } = options;

  async function createSession(request: ThaiAsrSessionRequest = {}, call: { signal?: AbortSignal } = {}) {
    const parsed = ThaiAsrSessionRequest.safeParse(request);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message: issue.message,
      }));
      throw new ValidationError(
        `Invalid recognition session: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}. Nothing was sent.`,
        issues,
      );
    }
    const response = await http.request({
      method: 'POST',
      path: `${THAI_ASR_API_PATH}/sessions`,
      json: parsed.data,
      schema: ThaiAsrSession,
      // A session costs nothing until audio flows; repeating a lost creation only leaves an unused session.
      idempotent: true,
      ...(call.signal ? { signal: call.signal } : {}),
    });
    return response.data;
  }

  return {
    async config(call = {}) {
      const response = await http.request({
        method: 'GET',
        path: `${THAI_ASR_API_PATH}/config`,
        schema: ThaiAsrConfig,
        idempotent: true,
        ...(call.signal ? { signal: call.signal } : {}),
      });
      return response.data;
    },
    createSession,
    async transcribe(request) {
      if ((request.file === undefined) === (request.samples === undefined)) {
        throw new ValidationError('Give either file or samples to transcribe.', [
          { path: 'file', message: 'file XOR samples' },
        ]);
      }
      const speed = request.speed ?? 1;
      if (!Number.isFinite(speed) || speed < 0)
        throw new ValidationError('speed must be 0 (unpaced) or more.');
      const sampleRate = request.session?.sample_rate ?? 16_000;
      // Decoded (and checked) before a session exists: a bad file costs nothing.
      const samples =
        request.samples ??
        (await decodeAudioFile(
          files ? await files.resolveReadable(request.file as string) : (request.file as string),
          sampleRate,
          request.signal,
        ));
      const session = await createSession(
        { ...request.session, sample_rate: sampleRate },
        { ...(request.signal ? { signal: request.signal } : {}) },
      );
      const wsUrl = new URL(session.ws_url, http.baseUrl.replace(/^http/, 'ws'));
      // The key travels in the WebSocket URL: never to another host than the platform's.
      if (wsUrl.host !== new URL(http.baseUrl).host || !['ws:', 'wss:'].includes(wsUrl.protocol)) {
        throw new ValidationError(
          `The session's ws_url points at ${wsUrl.protocol}//${wsUrl.host}, not the platform's host; refusing to send the key there.`,
        );
      }
      const stream = await createStreamingSession({
        wsUrl: wsUrl.toString(),
        apiKey: options.apiKey,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      try {
        let stabilized = '';
        stream.onEvent((event) => {
          request.onEvent?.(event);
          if (!event.text) return;
          if (event.type === 'stabilized_partial') {
            stabilized = event.text;
            request.onCaption?.(event.text, event);
          } else if (event.type === 'partial' && event.text !== stabilized) {
            request.onCaption?.(event.text, event);
          }
        });
        const started = stream.next('started');
        stream.sendJson({ type: 'start', ...request.session, sample_rate: sampleRate });
        await started;
        const frame = Math.round((sampleRate * FRAME_MS) / 1000);
        const began = performance.now();
        for (let offset = 0; offset < samples.length; offset += frame) {
          request.signal?.throwIfAborted();
          const chunk = samples.subarray(offset, offset + frame);
          if (speed > 0) {
            // Like a live microphone: a frame goes out once its last sample would have been captured.
            const due = ((offset + chunk.length) / sampleRate) * (1000 / speed);
            const wait = due - (performance.now() - began);
            if (wait > 0) await delay(wait, undefined, request.signal ? { signal: request.signal } : {});
          }
          await stream.sendAudio(chunk);
        }
        const finalEvent = stream.next('final', request.finalTimeoutMs ?? 30_000);
        stream.sendJson({ type: 'end' });
        const final = await finalEvent;
        return {
          sessionId: session.session_id,
          text: final.text ?? '',
          segments: final.segments ?? [],
          audioSeconds: samples.length / sampleRate,
          final,
        };
      } finally {
        await stream.close();
      }
    },
  };
}
