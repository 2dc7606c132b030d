/**
 * Sample-rate conversion with a windowed-sinc (Blackman) low-pass interpolator, fed block by block: a long
 * recording is converted as it is read, with only the kernel's reach of input kept between blocks. The
 * output is band-limited to the lower of the two Nyquist frequencies, so downsampling (48 kHz → 16 kHz)
 * does not fold high frequencies back into the speech band the way linear interpolation does. 16 zero
 * crossings per side; the kernel is normalised per phase so that silence stays silence and DC passes
 * unchanged.
 *
 * Fed in blocks of any sizes, it produces exactly the samples (bit for bit) that one pass over the whole
 * signal produces: output sample `i` sits at input position `i × from / to`, computed with integers, and
 * input beyond either end counts as silence.
 */

const ZERO_CROSSINGS = 16;
/** Phases kept in a table when the rate ratio reduces to at most this many (all common rates do). */
const MAX_TABLE_PHASES = 4096;

export interface StreamingResampler {
  /** Takes the next block of input; returns the output samples it completes (possibly none). */
  push(input: Float32Array): Float32Array;
  /** Ends the input: returns the remaining output, `floor(total input × to / from)` samples in all. */
  end(): Float32Array;
}

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const arg = Math.PI * x;
  return Math.sin(arg) / arg;
}

export function createStreamingResampler(options: { from: number; to: number }): StreamingResampler {
  const { from, to } = options;
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1 || to < 1) {
    throw new RangeError(`Sample rates must be positive integers (got ${from} → ${to}).`);
  }
  if (from === to) {
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
  const divisor = gcd(from, to);
  const up = to / divisor;
  const down = from / divisor;
  // Cut-off relative to the input rate: the output's Nyquist when downsampling, else the input's.
  const scale = Math.min(1, to / from);
  const half = Math.ceil(ZERO_CROSSINGS / scale);
  const taps = 2 * half;

  const weightsAt = (fraction: number): Float64Array => {
    const weights = new Float64Array(taps);
    let sum = 0;
    for (let tap = 0; tap < taps; tap++) {
      // Distance from the output position to input sample (base - half + 1 + tap).
      const x = tap - half + 1 - fraction;
      const t = x / half;
      const window =
        Math.abs(t) >= 1 ? 0 : 0.42 + 0.5 * Math.cos(Math.PI * t) + 0.08 * Math.cos(2 * Math.PI * t);
      const weight = scale * sinc(scale * x) * window;
      weights[tap] = weight;
      sum += weight;
    }
    if (sum !== 0) for (let tap = 0; tap < taps; tap++) weights[tap] = (weights[tap] ?? 0) / sum;
    return weights;
  };
  const table = up <= MAX_TABLE_PHASES ? new Map<number, Float64Array>() : undefined;

  /** Input kept for outputs still to come; `history[0]` is input sample `historyStart`. */
  let history = new Float32Array(0);
  let historyStart = 0;
  /** Input samples received so far. */
  let received = 0;
  /** Index of the next output sample. */
  let produced = 0;
  let ended = false;

  /** Output samples `produced` up to `until` (exclusive); input not (yet) received counts as silence. */
  function run(until: number): Float32Array {
    const count = Math.max(0, until - produced);
    const out = new Float32Array(count);
    for (let offset = 0; offset < count; offset++) {
      const index = produced + offset;
      // Exact integer arithmetic for the position: no drift over long recordings.
      const numerator = index * down;
      const base = Math.floor(numerator / up);
      const phase = numerator - base * up;
      let weights = table?.get(phase);
      if (!weights) {
        weights = weightsAt(phase / up);
        table?.set(phase, weights);
      }
      const first = base - half + 1;
      // The same terms in the same order as one pass over the whole signal: taps outside it are skipped.
      const start = Math.max(0, -first);
      const stop = Math.min(taps, received - first);
      const shift = first - historyStart;
      let acc = 0;
      for (let tap = start; tap < stop; tap++) acc += (weights[tap] ?? 0) * (history[shift + tap] ?? 0);
      out[offset] = acc;
    }
    produced += count;
    return out;
  }

  /** Drops input that no further output reaches. */
  function trim(): void {
    const needed = Math.floor((produced * down) / up) - half + 1;
    const drop = Math.min(history.length, Math.max(0, needed - historyStart));
    if (drop > 0) {
      history = history.slice(drop);
      historyStart += drop;
    }
  }

  return {
    push(input) {
      if (ended) throw new Error('The resampler has ended.');
      if (input.length === 0) return new Float32Array(0);
      const joined = new Float32Array(history.length + input.length);
      joined.set(history, 0);
      joined.set(input, history.length);
      history = joined;
      received += input.length;
      // Output i is complete once its last tap (base + half) has arrived: base ≤ received - half - 1.
      const lastBase = received - half - 1;
      const until = lastBase < 0 ? produced : Math.floor(((lastBase + 1) * up - 1) / down) + 1;
      const out = run(until);
      trim();
      return out;
    },
    end() {
      if (ended) return new Float32Array(0);
      ended = true;
      const out = run(Math.floor((received * up) / down));
      history = new Float32Array(0);
      return out;
    },
  };
}
