/**
 * Custom voice references (`POST /api/tts/v1/custom-voices`): a short WAV (uploaded or a public HTTPS URL,
 * always with the owner's consent) registered once and returned as an opaque `custom_voices/...` path to
 * reuse as `clone_audio`. The cloned voice's pitch follows the reference recording.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { isWav } from '@polymodal/core/media';
import { parseRecordingScript } from '../../fixtures/recording-script.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { PublicMediaEntry } from '../../media/media-config.js';
import { receiveForm } from '../../media/receive-form.js';
import { resolveMediaUrl } from '../../media/resolve-media-url.js';
import { isTruthy } from './clone-reference.js';
import { TTS_LANGUAGES, TTS_MODELS, type TtsLanguage, type TtsModel } from './speech-request.js';

/** Reference recordings: at most 10 MB and 30 s (the platform's limits are not published). */
export const MAX_REFERENCE_BYTES = 10 * 1024 * 1024;
export const MAX_REFERENCE_SECONDS = 30;

export interface CustomVoice {
  id: string;
  userId: string;
  name: string;
  model: TtsModel;
  language: TtsLanguage;
  audioPath: string;
  transcript: string;
  pitchHz: number;
}

interface WavFacts {
  durationSeconds: number;
  pitchHz: number;
}

/** Duration and a rough pitch (zero crossings of the voiced samples) of a PCM WAV. */
export function inspectWav(bytes: Buffer): WavFacts {
  let offset = 12;
  let channels = 1;
  let sampleRate = 0;
  let bitsPerSample = 16;
  let byteRate = 0;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('latin1', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= bytes.length) {
      channels = bytes.readUInt16LE(body + 2);
      sampleRate = bytes.readUInt32LE(body + 4);
      byteRate = bytes.readUInt32LE(body + 8);
      bitsPerSample = bytes.readUInt16LE(body + 14);
    } else if (id === 'data') {
      if (byteRate === 0) break;
      const end = Math.min(bytes.length, body + size);
      const durationSeconds = (end - body) / byteRate;
      let pitchHz = 150;
      if (bitsPerSample === 16 && sampleRate > 0) {
        const step = 2 * channels;
        let crossings = 0;
        let voiced = 0;
        let previous = 0;
        for (let position = body; position + 1 < end; position += step) {
          const sample = bytes.readInt16LE(position);
          if (Math.abs(sample) > 800) {
            voiced++;
            if ((previous < 0 && sample >= 0) || (previous >= 0 && sample < 0)) crossings++;
          }
          previous = sample;
        }
        if (voiced > sampleRate * 0.05) pitchHz = (crossings / 2) * (sampleRate / voiced);
      }
      return { durationSeconds, pitchHz: Math.max(80, Math.min(300, Math.round(pitchHz))) };
    }
    offset = body + size + (size % 2);
  }
  throw new HttpError(400, 'the reference audio is not a readable PCM WAV');
}

export interface RegisterVoiceOptions {
  request: RequestContext;
  userId: string;
  dataDir: string;
  publicMedia: Record<string, PublicMediaEntry>;
  referenceRecognition: boolean;
}

function pick<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  field: string,
  fallback: T,
): T {
  if (value === undefined || value === '') return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new HttpError(400, `${field} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** Reads and checks the registration form; returns the new voice (not yet stored). */
export async function readVoiceRegistration(options: RegisterVoiceOptions): Promise<CustomVoice> {
  const id = `voice_${randomBytes(9).toString('hex')}`;
  const filePath = path.join(options.dataDir, `${id}.wav`);
  const form = await receiveForm({
    request: options.request.request,
    fileField: 'audio_file',
    filePath,
    maxBytes: MAX_REFERENCE_BYTES,
  });
  try {
    if (form.tooLarge) {
      throw new HttpError(413, `audio_file is too large: the limit is ${MAX_REFERENCE_BYTES} bytes`);
    }
    if (!isTruthy(form.fields.get('consent'))) {
      throw new HttpError(
        400,
        'consent is required: send consent=true to confirm the voice owner authorized cloning',
      );
    }
    const audioUrl = form.fields.get('audio_url')?.trim() || undefined;
    if (form.file && audioUrl) throw new HttpError(400, 'send one of audio_file or audio_url, not both');
    let bytes: Buffer;
    if (form.file) {
      bytes = await readFile(form.file.path);
    } else if (audioUrl) {
      if (!/^https:\/\//i.test(audioUrl)) throw new HttpError(400, 'audio_url must be a public https:// URL');
      const resolved = resolveMediaUrl({
        url: audioUrl,
        field: 'audio_url',
        publicMedia: options.publicMedia,
        maxBytes: MAX_REFERENCE_BYTES,
        allow: { data: false, uploads: false, http: true },
      });
      if (!resolved.bytes) throw new HttpError(400, 'audio_url could not be fetched');
      bytes = resolved.bytes;
    } else {
      throw new HttpError(
        400,
        'send the reference as audio_file (a short WAV) or audio_url (a public https:// URL)',
      );
    }
    if (!isWav(bytes)) throw new HttpError(400, 'the reference audio must be a WAV file (RIFF/WAVE)');
    const facts = inspectWav(bytes);
    if (facts.durationSeconds > MAX_REFERENCE_SECONDS) {
      throw new HttpError(
        400,
        `the reference audio is ${Math.round(facts.durationSeconds)} s long; send a short WAV of at most ${MAX_REFERENCE_SECONDS} s`,
      );
    }
    const model = pick(form.fields.get('model'), TTS_MODELS.slice(1), 'model', 'model_d');
    const language = pick(form.fields.get('language'), TTS_LANGUAGES, 'language', 'en');
    const name = form.fields.get('name')?.trim() || 'Custom voice';
    if (name.length > 100) throw new HttpError(400, 'name must be at most 100 characters');
    let transcript = form.fields.get('transcript')?.trim() ?? '';
    if (transcript === '' && options.referenceRecognition) {
      // Auto-transcription: the sandbox can only "hear" the script embedded in its own fixture recordings.
      transcript =
        parseRecordingScript(bytes)
          ?.lines.map((line) => line.text)
          .join(' ') ?? '';
    }
    return {
      id,
      userId: options.userId,
      name,
      model,
      language,
      audioPath: `custom_voices/${id}.wav`,
      transcript,
      pitchHz: facts.pitchHz,
    };
  } finally {
    await rm(filePath, { force: true });
  }
}

/** The record as the API shows it. */
export function voiceView(voice: CustomVoice) {
  return {
    id: voice.id,
    name: voice.name,
    model: voice.model,
    language: voice.language,
    audioPath: voice.audioPath,
    transcript: voice.transcript,
  };
}
