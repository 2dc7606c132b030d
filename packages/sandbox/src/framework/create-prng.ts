/**
 * A seeded pseudo-random generator (mulberry32), so that fault rates and generated content are the
 * same on every run with the same seed.
 */
export type Prng = () => number;

/** Returns a generator of floats in [0, 1). */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from the first bytes of a digest (e.g. a file's sha256). */
export function seedFromDigest(digest: Buffer): number {
  return digest.readUInt32LE(0);
}
