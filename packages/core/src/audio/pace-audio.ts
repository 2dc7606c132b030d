/**
 * Cuts PCM16 samples into fixed-length frames (20 ms by default) and yields them at the pace of a live
 * microphone: a frame comes out once its last sample would have been captured. `speed` 2 is twice real
 * time; 0 yields every frame at once. Deadlines are measured from the start, so slow consumers do not
 * accumulate drift.
 */
import { sleep } from '../util/index.js';

export interface PaceAudioOptions {
  sampleRate: number;
  /** Frame length (default 20 ms). */
  frameMs?: number;
  /** 1 = real time (default), 4 = four times faster, 0 = unpaced. */
  speed?: number;
  signal?: AbortSignal;
}

export async function* paceAudio(
  samples: Int16Array,
  options: PaceAudioOptions,
): AsyncGenerator<Int16Array, void, undefined> {
  const frameMs = options.frameMs ?? 20;
  const speed = options.speed ?? 1;
  if (!Number.isFinite(speed) || speed < 0) throw new RangeError('speed must be 0 (unpaced) or more.');
  if (!Number.isInteger(options.sampleRate) || options.sampleRate < 1)
    throw new RangeError('sampleRate must be a positive integer.');
  if (!(frameMs > 0)) throw new RangeError('frameMs must be more than 0.');
  const frame = Math.max(1, Math.round((options.sampleRate * frameMs) / 1000));
  const began = performance.now();
  for (let offset = 0; offset < samples.length; offset += frame) {
    options.signal?.throwIfAborted();
    const chunk = samples.subarray(offset, offset + frame);
    if (speed > 0) {
      const due = (((offset + chunk.length) / options.sampleRate) * 1000) / speed;
      const wait = due - (performance.now() - began);
      if (wait > 0) await sleep(wait, options.signal);
    }
    yield chunk;
  }
}
