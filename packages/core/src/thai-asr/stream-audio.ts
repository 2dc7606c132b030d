/**
 * Streaming audio into a recognition session at a given pace, as the source yields it: the loop that
 * `transcribe` runs between `start` and `end`.
 */
import { paceAudio } from '../audio/pace-audio.js';
import type { StreamingSession } from '../streaming/streaming-session-types.js';

/**
 * Samples in memory, or a decoder started with a signal that ends it (at the caller's abort, and at the
 * point where streaming must stop for the deadline, even while it waits on a slow ffmpeg).
 */
export type AudioSource = Int16Array | ((signal: AbortSignal) => AsyncIterable<Int16Array>);

/** Samples sent so far, and whether the input ran out; kept up to date also when streaming fails. */
export interface StreamProgress {
  sentSamples: number;
  ended: boolean;
}

/**
 * Streams the audio at the given pace, as the source yields it, until it runs out (`done`), `stopAt`
 * (epoch ms) comes (`stopped`) or `maxSamples` were sent (`limit`), counting what went out in `progress`
 * as it goes (a failure half-way still leaves the count right). The caller's abort is rethrown; `stopAt`
 * only ends the loop. Leaving the loop early stops the source (and its decoder).
 */
export async function streamAudio(
  stream: StreamingSession,
  source: AudioSource,
  progress: StreamProgress,
  options: {
    sampleRate: number;
    chunkMs: number;
    speed: number;
    maxSamples: number;
    stopAt?: number;
    signal?: AbortSignal;
  },
): Promise<'done' | 'stopped' | 'limit'> {
  const stop = new AbortController();
  const timer =
    options.stopAt === undefined
      ? undefined
      : setTimeout(() => stop.abort(), Math.max(0, options.stopAt - Date.now()));
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  try {
    for await (const frame of paceAudio(typeof source === 'function' ? source(signal) : source, {
      sampleRate: options.sampleRate,
      frameMs: options.chunkMs,
      speed: options.speed,
      signal,
    })) {
      if (stop.signal.aborted) return 'stopped';
      const room = options.maxSamples - progress.sentSamples;
      if (room <= 0) return 'limit';
      const part = frame.length > room ? frame.subarray(0, room) : frame;
      await stream.sendAudio(part);
      progress.sentSamples += part.length;
      if (part.length < frame.length) return 'limit';
    }
    progress.ended = true;
    return 'done';
  } catch (error) {
    if (options.signal?.aborted || !stop.signal.aborted) throw error;
    return 'stopped';
  } finally {
    clearTimeout(timer);
  }
}
