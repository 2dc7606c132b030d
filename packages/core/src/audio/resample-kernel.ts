/**
 * The windowed-sinc (Blackman) kernel of the streaming resampler: for a rate ratio reduced to `up/down`,
 * the weights of the `taps` input samples around an output position, one set per phase. The cut-off is
 * the lower of the two Nyquist frequencies, with 16 zero crossings per side; each phase is normalised so
 * that silence stays silence and DC passes unchanged.
 */

const ZERO_CROSSINGS = 16;
/** Phases kept in a table when the rate ratio reduces to at most this many (all common rates do). */
const MAX_TABLE_PHASES = 4096;

export interface ResampleKernel {
  /** Output rate over input rate, reduced: output `i` sits at input position `i × down / up`. */
  up: number;
  down: number;
  /** Input samples on each side of an output position that the kernel reaches. */
  half: number;
  taps: number;
  /** The weights of phase `phase` (0 ≤ phase < up); tap `t` weighs input sample `base - half + 1 + t`. */
  weights(phase: number): Float64Array;
}

export function createResampleKernel(from: number, to: number): ResampleKernel {
  const divisor = gcd(from, to);
  const up = to / divisor;
  const down = from / divisor;
  // Cut-off relative to the input rate: the output's Nyquist when downsampling, else the input's.
  const scale = Math.min(1, to / from);
  const half = Math.ceil(ZERO_CROSSINGS / scale);
  const taps = 2 * half;
  const table = up <= MAX_TABLE_PHASES ? new Map<number, Float64Array>() : undefined;
  return {
    up,
    down,
    half,
    taps,
    weights(phase) {
      let weights = table?.get(phase);
      if (!weights) {
        weights = weightsAt({ fraction: phase / up, scale, half, taps });
        table?.set(phase, weights);
      }
      return weights;
    },
  };
}

function weightsAt(kernel: { fraction: number; scale: number; half: number; taps: number }): Float64Array {
  const { fraction, scale, half, taps } = kernel;
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
