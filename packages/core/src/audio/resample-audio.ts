/**
 * Sample-rate conversion of a whole signal in one call: the streaming windowed-sinc resampler (see
 * createStreamingResampler) fed one block, so both paths give the same samples.
 */
import { createStreamingResampler } from './create-streaming-resampler.js';

/**
 * Resamples mono float samples from `from` Hz to `to` Hz. The output has `floor(length × to / from)`
 * samples; output sample `i` sits at input position `i × from / to`.
 */
export function resampleAudio(samples: Float32Array, options: { from: number; to: number }): Float32Array {
  const resampler = createStreamingResampler(options);
  const head = resampler.push(samples);
  const tail = resampler.end();
  if (tail.length === 0) return head;
  const out = new Float32Array(head.length + tail.length);
  out.set(head, 0);
  out.set(tail, head.length);
  return out;
}
