/**
 * What the sandbox "hears" in a recording. It cannot recognise speech: a WAV made by the fixture generator
 * carries its script (RIFF chunk `pmtx`), one line per reading attempt, with times; any other WAV is
 * checked for voice by energy (20 ms windows) and, when voiced, is taken to read the reference exactly;
 * non-WAV audio is taken as voiced. Silence — no line in the script, or no window above the energy
 * threshold — is the no-speech case.
 */
import { parseRecordingScript } from '../../fixtures/recording-script.js';

export interface HeardAttempt {
  text: string;
  start: number;
  end: number;
}

export interface HeardAudio {
  /** Voice found at all. */
  speech: boolean;
  /** Attempts with their text when the script is known; empty when voiced but unknown. */
  attempts: HeardAttempt[];
  durationSeconds: number;
  voicedSeconds: number;
  speechRegionCount: number;
  /** Whether times are known (script) or not. */
  hasTiming: boolean;
}

/** RMS of a 20 ms window above this (of full scale) counts as voice. */
const VOICE_RMS = 0.01;

export function analyzeStudentAudio(audio: Buffer): HeardAudio {
  const wav = readPcm16(audio);
  const script = parseRecordingScript(audio);
  const durationSeconds = wav ? wav.durationSeconds : audio.length / 16_000;
  if (script) {
    const attempts = script.lines.map((line) => ({ text: line.text, start: line.start, end: line.end }));
    return {
      speech: attempts.length > 0,
      attempts,
      durationSeconds,
      voicedSeconds: attempts.reduce((sum, attempt) => sum + (attempt.end - attempt.start), 0),
      speechRegionCount: attempts.length,
      hasTiming: true,
    };
  }
  if (!wav) {
    return {
      speech: true,
      attempts: [],
      durationSeconds,
      voicedSeconds: durationSeconds,
      speechRegionCount: 1,
      hasTiming: false,
    };
  }
  const { voicedSeconds, regions } = voiceActivity(wav.samples, wav.sampleRate, wav.channels);
  return {
    speech: voicedSeconds > 0,
    attempts: [],
    durationSeconds,
    voicedSeconds,
    speechRegionCount: regions,
    hasTiming: false,
  };
}

interface Pcm16 {
  samples: Int16Array;
  sampleRate: number;
  channels: number;
  durationSeconds: number;
}

function readPcm16(audio: Buffer): Pcm16 | undefined {
  if (
    audio.length < 12 ||
    audio.toString('ascii', 0, 4) !== 'RIFF' ||
    audio.toString('ascii', 8, 12) !== 'WAVE'
  ) {
    return undefined;
  }
  let offset = 12;
  let format: { channels: number; sampleRate: number; bits: number; audioFormat: number } | undefined;
  while (offset + 8 <= audio.length) {
    const id = audio.toString('ascii', offset, offset + 4);
    const size = audio.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && size >= 16) {
      format = {
        audioFormat: audio.readUInt16LE(body),
        channels: audio.readUInt16LE(body + 2),
        sampleRate: audio.readUInt32LE(body + 4),
        bits: audio.readUInt16LE(body + 14),
      };
    } else if (id === 'data' && format) {
      const end = Math.min(audio.length, body + size);
      const bytesPerSecond = format.sampleRate * format.channels * (format.bits / 8);
      const durationSeconds = bytesPerSecond > 0 ? (end - body) / bytesPerSecond : 0;
      if (format.audioFormat !== 1 || format.bits !== 16) {
        // Not 16-bit PCM: voice is assumed rather than measured.
        return undefined;
      }
      const samples = new Int16Array(
        audio.buffer.slice(audio.byteOffset + body, audio.byteOffset + end - ((end - body) % 2)),
      );
      return { samples, sampleRate: format.sampleRate, channels: format.channels, durationSeconds };
    }
    offset = body + size + (size % 2);
  }
  return undefined;
}

function voiceActivity(
  samples: Int16Array,
  sampleRate: number,
  channels: number,
): { voicedSeconds: number; regions: number } {
  const window = Math.max(1, Math.round(sampleRate * 0.02)) * channels;
  let voicedWindows = 0;
  let regions = 0;
  let inRegion = false;
  for (let start = 0; start < samples.length; start += window) {
    let sum = 0;
    const end = Math.min(samples.length, start + window);
    for (let index = start; index < end; index++) {
      const value = (samples[index] ?? 0) / 32768;
      sum += value * value;
    }
    const voiced = Math.sqrt(sum / Math.max(1, end - start)) > VOICE_RMS;
    if (voiced) voicedWindows++;
    if (voiced && !inRegion) regions++;
    inRegion = voiced;
  }
  return { voicedSeconds: voicedWindows * 0.02, regions };
}
