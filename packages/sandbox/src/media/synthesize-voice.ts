/**
 * A synthetic voice: real, playable 16-bit PCM mono WAV whose length fits the text. It does not speak
 * words; each estimated syllable is a voiced burst (a glottal-like harmonic series shaped by two vowel
 * formants, with a pitch glide and a soft envelope), with longer pauses at punctuation. Same text, voice
 * and seed, same bytes.
 */
import { createHash } from 'node:crypto';
import { createPrng } from '../framework/create-prng.js';

export const VOICE_SAMPLE_RATE = 24_000;
const SYLLABLE_SECONDS = 0.2;
const GAP_SECONDS = 0.04;
const WORD_GAP_SECONDS = 0.08;
const PUNCTUATION_PAUSE_SECONDS = 0.3;
const EDGE_SECONDS = 0.25;
/** Vowel formants (F1, F2 in Hz) of a, e, i, o, u. */
const VOWELS: readonly [number, number][] = [
  [730, 1090],
  [530, 1840],
  [270, 2290],
  [570, 840],
  [300, 870],
];

export interface VoiceOptions {
  text: string;
  /** Base pitch in Hz (80-300). */
  pitchHz: number;
  seed: number;
  /** 1 = normal; above 1 slower (e.g. a storytelling style). */
  pace?: number;
}

type Token = { kind: 'syllables'; count: number } | { kind: 'pause'; seconds: number };

/** Splits text into syllable groups and pauses: CJK and Thai/Lao characters count per character or pair. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const piece of text.match(/[\p{L}\p{N}\p{M}']+|[.,!?;:。，！？、…]+/gu) ?? []) {
    if (/^[.,!?;:。，！？、…]+$/u.test(piece)) {
      tokens.push({ kind: 'pause', seconds: PUNCTUATION_PAUSE_SECONDS });
      continue;
    }
    const cjk =
      piece.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu)?.length ?? 0;
    const thaiLao = piece.match(/[\p{Script=Thai}\p{Script=Lao}]/gu)?.length ?? 0;
    const latin = piece.length - cjk - thaiLao;
    const vowelGroups = piece.match(/[aeiouyàáâãäåèéêëìíîïòóôõöùúûüýăâêôơư]+/giu)?.length ?? 0;
    const latinSyllables = latin > 0 ? Math.max(1, Math.min(vowelGroups, Math.ceil(latin / 2))) : 0;
    const count = cjk + Math.ceil(thaiLao / 2.5) + latinSyllables;
    tokens.push({ kind: 'syllables', count: Math.max(1, count) });
  }
  return tokens;
}

/** Seconds of audio the voice produces for this text (before rounding to samples). */
export function voiceDurationSeconds(text: string, pace = 1): number {
  let seconds = 2 * EDGE_SECONDS;
  for (const token of tokenize(text)) {
    seconds +=
      token.kind === 'pause'
        ? PUNCTUATION_PAUSE_SECONDS
        : token.count * (SYLLABLE_SECONDS + GAP_SECONDS) * pace + WORD_GAP_SECONDS;
  }
  return Math.max(0.6, seconds);
}

function encodeWav(samples: Int16Array, sampleRate: number): Buffer {
  const dataBytes = samples.length * 2;
  const buffer = Buffer.alloc(44 + dataBytes);
  buffer.write('RIFF', 0, 'latin1');
  buffer.writeUInt32LE(36 + dataBytes, 4);
  buffer.write('WAVE', 8, 'latin1');
  buffer.write('fmt ', 12, 'latin1');
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(sampleRate, 24);
  buffer.writeUInt32LE(sampleRate * 2, 28);
  buffer.writeUInt16LE(2, 32);
  buffer.writeUInt16LE(16, 34);
  buffer.write('data', 36, 'latin1');
  buffer.writeUInt32LE(dataBytes, 40);
  Buffer.from(samples.buffer, samples.byteOffset, dataBytes).copy(buffer, 44);
  return buffer;
}

/** Renders the text in the synthetic voice as a WAV file (24 kHz, 16-bit, mono). */
export function synthesizeVoice(options: VoiceOptions): Buffer {
  const pace = options.pace ?? 1;
  const rate = VOICE_SAMPLE_RATE;
  const seconds = voiceDurationSeconds(options.text, pace);
  const samples = new Int16Array(Math.round(seconds * rate));
  const digest = createHash('sha256').update(`${options.seed}:${options.pitchHz}:${options.text}`).digest();
  const random = createPrng(digest.readUInt32LE(0));
  let cursor = EDGE_SECONDS;
  for (const token of tokenize(options.text)) {
    if (token.kind === 'pause') {
      cursor += PUNCTUATION_PAUSE_SECONDS;
      continue;
    }
    for (let syllable = 0; syllable < token.count; syllable++) {
      const length = SYLLABLE_SECONDS * pace * (0.8 + random() * 0.4);
      const [f1, f2] = VOWELS[Math.floor(random() * VOWELS.length)]!;
      const startPitch = options.pitchHz * (0.92 + random() * 0.16);
      const endPitch = startPitch * (0.9 + random() * 0.2);
      const first = Math.round(cursor * rate);
      const count = Math.round(length * rate);
      let phase = 0;
      for (let index = 0; index < count && first + index < samples.length; index++) {
        const progress = index / count;
        const pitch = startPitch + (endPitch - startPitch) * progress;
        phase += (2 * Math.PI * pitch) / rate;
        // Harmonics near the formants are louder: a crude vowel colour.
        let value = 0;
        for (let harmonic = 1; harmonic * pitch < 3200; harmonic++) {
          const frequency = harmonic * pitch;
          const gain =
            1 / harmonic +
            0.9 * Math.exp(-(((frequency - f1) / 120) ** 2)) +
            0.5 * Math.exp(-(((frequency - f2) / 160) ** 2));
          value += gain * Math.sin(harmonic * phase);
        }
        const envelope = Math.sin(Math.PI * progress) ** 0.6;
        samples[first + index] = Math.max(-32767, Math.min(32767, Math.round(value * envelope * 5200)));
      }
      cursor += length + GAP_SECONDS * pace;
    }
    cursor += WORD_GAP_SECONDS;
  }
  return encodeWav(samples, rate);
}

/** A short reference recording (for simulated public clone audio): a voice saying a neutral sentence. */
export function referenceVoiceWav(): Buffer {
  return synthesizeVoice({ text: 'This is my voice, recorded for cloning.', pitchHz: 150, seed: 7 });
}
