/**
 * The length rules of a transcription, checked before the request they protect: a recording longer than
 * one transcription may stream (or whose length cannot be known and whose size could hide more) is refused
 * before any request; one longer than the key's audio left today is refused after the config read, before
 * a session is opened. Each refusal names the file, its length and the limit.
 */
import { ValidationError } from '../errors/polymodal-error.js';

/**
 * The longest recording one transcription streams. The spec sets no per-session length; its sample daily
 * allowance per key is 3600 s (config `limits.daily_audio_seconds`), so a longer recording could not be
 * transcribed in one day on such a key. The key's own allowance is checked as well once the config is read.
 */
export const MAX_TRANSCRIBE_AUDIO_SECONDS = 3600;

/**
 * Without a known duration (a format ffprobe cannot time, or no ffprobe), a file is accepted up to this
 * many bytes per second of the limit: 16 kbit/s, the low end of speech codecs, so a file under the bound
 * is unlikely to hold more than the limit; streaming stops at the limit in any case.
 */
export const UNTIMED_BYTES_PER_SECOND = 2000;

export function describeSeconds(seconds: number): string {
  const rounded = seconds < 10 ? seconds.toFixed(1) : String(Math.round(seconds));
  if (seconds < 60) return `${rounded} s`;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${rounded} s (${hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min ${Math.round(seconds % 60)} s`})`;
}

function describeBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/** Refuses, before any request, audio that is empty or longer than one transcription may stream. */
export function checkAudioLength(audio: {
  name: string;
  seconds: number | undefined;
  maxSeconds: number;
  /** For audio of unknown length: its size, and why the length is unknown. */
  size?: number;
  unknownBecause?: string;
}): void {
  const { name, seconds, maxSeconds } = audio;
  if (seconds === undefined) {
    const bound = maxSeconds * UNTIMED_BYTES_PER_SECOND;
    if (audio.size !== undefined && audio.size > bound) {
      throw new ValidationError(
        `${name} is ${describeBytes(audio.size)} and its duration cannot be read before streaming (${audio.unknownBecause ?? 'unknown'}); without it, files of at most ${describeBytes(bound)} are accepted, since a larger one may hold more than the ${describeSeconds(maxSeconds)} one transcription streams. Install ffprobe with ffmpeg or convert the file to WAV. Nothing was sent.`,
        [{ path: 'file', message: 'duration unknown and file too large' }],
      );
    }
    return;
  }
  if (seconds === 0) {
    throw new ValidationError(
      `${name} holds no audio (0 s); there is nothing to transcribe. Nothing was sent.`,
      [{ path: 'file', message: 'no audio' }],
    );
  }
  if (seconds > maxSeconds) {
    throw new ValidationError(
      `${name} is ${describeSeconds(seconds)} of audio, longer than the ${describeSeconds(maxSeconds)} one transcription may stream. Split it into shorter pieces. Nothing was sent.`,
      [{ path: 'file', message: `longer than ${maxSeconds} s` }],
    );
  }
}

/** Seconds of audio the key has left today, when the config tells it. */
export function remainingDailySeconds(
  limits:
    | {
        daily_audio_seconds?: number | undefined;
        today_audio_seconds_used?: number | undefined;
      }
    | undefined,
): number | undefined {
  if (typeof limits?.daily_audio_seconds !== 'number') return undefined;
  return Math.max(0, limits.daily_audio_seconds - (limits.today_audio_seconds_used ?? 0));
}

/** Refuses, before a session is opened, audio longer than the key has left today. */
export function checkDailyAllowance(audio: {
  name: string;
  seconds: number | undefined;
  limits:
    | { daily_audio_seconds?: number | undefined; today_audio_seconds_used?: number | undefined }
    | undefined;
}): void {
  const remaining = remainingDailySeconds(audio.limits);
  if (remaining === undefined || audio.seconds === undefined || audio.seconds <= remaining) return;
  throw new ValidationError(
    `${audio.name} is ${describeSeconds(audio.seconds)} of audio, more than the ${describeSeconds(remaining)} the key has left today (daily limit ${audio.limits?.daily_audio_seconds} s, ${Math.round(audio.limits?.today_audio_seconds_used ?? 0)} s used). Try a shorter file, or again tomorrow. Only the key's limits were read; no session was opened and nothing was sent.`,
    [{ path: 'file', message: 'more than the daily audio left' }],
  );
}
