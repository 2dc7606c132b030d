/**
 * Sample-rate conversion with a windowed-sinc (Blackman) low-pass interpolator, fed block by block: a long
 * recording is converted as it is read, with only the kernel's reach of input kept between blocks. The
 * output is band-limited to the lower of the two Nyquist frequencies (see `resample-kernel.ts`), so
 * downsampling (48 kHz → 16 kHz) does not fold high frequencies back into the speech band the way linear
 * interpolation does.
 *
 * Fed in blocks of any sizes, it produces exactly the samples (bit for bit) that one pass over the whole
 * signal produces: output sample `i` sits at input position `i × from / to`, computed with integers, and
 * input beyond either end counts as silence.
 */

import { createResampleKernel, type ResampleKernel } from './resample-kernel.js';

export interface StreamingResampler {
  /** Takes the next block of input; returns the output samples it completes (possibly none). */
  push(input: Float32Array): Float32Array;
  /** Ends the input: returns the remaining output, `floor(total input × to / from)` samples in all. */
  end(): Float32Array;
}

/** What the resampler holds between blocks. */
interface ResamplerState {
  /** Input kept for outputs still to come; `history[0]` is input sample `historyStart`. */
  history: Float32Array;
  historyStart: number;
  /** Input samples received so far. */
  received: number;
  /** Index of the next output sample. */
  produced: number;
  ended: boolean;
}

export function createStreamingResampler(options: { from: number; to: number }): StreamingResampler {
  const { from, to } = options;
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1 || to < 1) {
    throw new RangeError(`Sample rates must be positive integers (got ${from} → ${to}).`);
  }
  if (from === to) return createPassThrough();
  const kernel = createResampleKernel(from, to);
  const state: ResamplerState = {
    history: new Float32Array(0),
    historyStart: 0,
    received: 0,
    produced: 0,
    ended: false,
  };
  return {
    push(input) {
      if (state.ended) throw new Error('The resampler has ended.');
      if (input.length === 0) return new Float32Array(0);
      const joined = new Float32Array(state.history.length + input.length);
      joined.set(state.history, 0);
      joined.set(input, state.history.length);
      state.history = joined;
      state.received += input.length;
      // Output i is complete once its last tap (base + half) has arrived: base ≤ received - half - 1.
      const lastBase = state.received - kernel.half - 1;
      const until =
        lastBase < 0 ? state.produced : Math.floor(((lastBase + 1) * kernel.up - 1) / kernel.down) + 1;
      const out = produce(state, kernel, until);
      trim(state, kernel);
      return out;
    },
    end() {
      if (state.ended) return new Float32Array(0);
      state.ended = true;
      const out = produce(state, kernel, Math.floor((state.received * kernel.up) / kernel.down));
      state.history = new Float32Array(0);
      return out;
    },
  };
}

/** Equal rates: the input as it comes. */
function createPassThrough(): StreamingResampler {
  let ended = false;
  return {
    push(input) {
      if (ended) throw new Error('The resampler has ended.');
      return input.slice();
    },
    end() {
      ended = true;
      return new Float32Array(0);
    },
  };
}

/** Output samples `produced` up to `until` (exclusive); input not (yet) received counts as silence. */
function produce(state: ResamplerState, kernel: ResampleKernel, until: number): Float32Array {
  const { up, down, half, taps } = kernel;
  const { history, historyStart, received } = state;
  const count = Math.max(0, until - state.produced);
  const out = new Float32Array(count);
  for (let offset = 0; offset < count; offset++) {
    const index = state.produced + offset;
    // Exact integer arithmetic for the position: no drift over long recordings.
    const numerator = index * down;
    const base = Math.floor(numerator / up);
    const weights = kernel.weights(numerator - base * up);
    const first = base - half + 1;
    // The same terms in the same order as one pass over the whole signal: taps outside it are skipped.
    const start = Math.max(0, -first);
    const stop = Math.min(taps, received - first);
    const shift = first - historyStart;
    let acc = 0;
    for (let tap = start; tap < stop; tap++) acc += (weights[tap] ?? 0) * (history[shift + tap] ?? 0);
    out[offset] = acc;
  }
  state.produced += count;
  return out;
}

/** Drops input that no further output reaches. */
function trim(state: ResamplerState, kernel: ResampleKernel): void {
  const needed = Math.floor((state.produced * kernel.down) / kernel.up) - kernel.half + 1;
  const drop = Math.min(state.history.length, Math.max(0, needed - state.historyStart));
  if (drop > 0) {
    state.history = state.history.slice(drop);
    state.historyStart += drop;
  }
}
