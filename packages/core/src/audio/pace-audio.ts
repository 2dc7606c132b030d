/**
 * Cuts PCM16 samples into fixed-length frames (20 ms by default) and yields them at the pace of a live
 * microphone: a frame comes out once its last sample would have been captured. `speed` 2 is twice real
 * time; 0 yields every frame at once. Deadlines are measured from the start, so slow consumers do not
 * accumulate drift.
 *
 * The samples can come as one array or as blocks from a streaming decoder: blocks are taken only as
 * frames are due, so a paced stream reads (and decodes) its source at the same pace, and frames that
 * straddle two blocks are joined.
 */
import { sleep } from '../util/sleep.js';

export interface PaceAudioOptions {
  sampleRate: number;
  /** Frame length (default 20 ms). */
  frameMs?: number;
  /** 1 = real time (default), 4 = four times faster, 0 = unpaced. */
  speed?: number;
  signal?: AbortSignal;
}

export async function* paceAudio(
  source: Int16Array | AsyncIterable<Int16Array> | Iterable<Int16Array>,
  options: PaceAudioOptions,
): AsyncGenerator<Int16Array, void, undefined> {
  const frameMs = options.frameMs ?? 20;
  const speed = options.speed ?? 1;
  if (!Number.isFinite(speed) || speed < 0) throw new RangeError('speed must be 0 (unpaced) or more.');
  if (!Number.isInteger(options.sampleRate) || options.sampleRate < 1)
    throw new RangeError('sampleRate must be a positive integer.');
  if (!(frameMs > 0)) throw new RangeError('frameMs must be more than 0.');
  const frame = Math.max(1, Math.round((options.sampleRate * frameMs) / 1000));
  const blocks = source instanceof Int16Array ? [source] : source;
  const began = performance.now();
  let emitted = 0;

  async function* due(chunk: Int16Array) {
    options.signal?.throwIfAborted();
    if (speed > 0) {
      const at = (((emitted + chunk.length) / options.sampleRate) * 1000) / speed;
      const wait = at - (performance.now() - began);
      if (wait > 0) await sleep(wait, options.signal);
    }
    emitted += chunk.length;
    yield chunk;
  }

  /** The start of a frame that the previous block ended in the middle of. */
  let partial: Int16Array | undefined;
  let partialLength = 0;
  for await (const block of blocks) {
    let offset = 0;
    if (partial) {
      const take = Math.min(frame - partialLength, block.length);
      partial.set(block.subarray(0, take), partialLength);
      partialLength += take;
      offset = take;
      if (partialLength < frame) continue;
      const joined = partial;
      partial = undefined;
      partialLength = 0;
      yield* due(joined);
    }
    for (; offset + frame <= block.length; offset += frame)
      yield* due(block.subarray(offset, offset + frame));
    if (offset < block.length) {
      partial = new Int16Array(frame);
      partial.set(block.subarray(offset), 0);
      partialLength = block.length - offset;
    }
  }
  if (partial) yield* due(partial.subarray(0, partialLength));
}
