/**
 * Sample-rate conversion with a windowed-sinc (Blackman) low-pass interpolator: band-limited to the
 * lower of the two Nyquist frequencies, so downsampling (48 kHz → 16 kHz) does not fold high frequencies
 * back into the speech band the way linear interpolation does. 16 zero crossings per side; the kernel is
 * normalised per phase so that silence stays silence and DC passes unchanged.
 */

const ZERO_CROSSINGS = 16;
/** Phases kept in a table when the rate ratio reduces to at most this many (all common rates do). */
const MAX_TABLE_PHASES = 4096;

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

/**
 * Resamples mono float samples from `from` Hz to `to` Hz. The output has `floor(length × to / from)`
 * samples; output sample `i` sits at input position `i × from / to`.
 */
export function resampleAudio(samples: Float32Array, options: { from: number; to: number }): Float32Array {
  const { from, to } = options;
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1 || to < 1) {
    throw new RangeError(`Sample rates must be positive integers (got ${from} → ${to}).`);
  }
  if (from === to) return samples.slice();
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

  const length = Math.floor((samples.length * to) / from);
  const out = new Float32Array(length);
  for (let index = 0; index < length; index++) {
    // Exact integer arithmetic for the position: no drift over long recordings.
    const numerator = index * down;
    const base = Math.floor(numerator / up);
    const phase = numerator - base * up;
    let weights = table?.get(phase);
    if (!weights) {
      weights = weightsAt(phase / up);
      table?.set(phase, weights);
    }
    let acc = 0;
    const first = base - half + 1;
    const start = Math.max(0, -first);
    const stop = Math.min(taps, samples.length - first);
    for (let tap = start; tap < stop; tap++) acc += (weights[tap] ?? 0) * (samples[first + tap] ?? 0);
    out[index] = acc;
  }
  return out;
}
