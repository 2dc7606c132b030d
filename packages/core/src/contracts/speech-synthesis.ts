/**
 * Wire contracts of the speech synthesis service (`/api/tts/v1`), from spec/media-generation.md, with the
 * request rules the service enforces (checked locally so a bad request costs nothing).
 */
import { z } from 'zod';

import {
  MAX_TTS_SEED,
  MAX_TTS_TEXT_CHARACTERS,
  MODEL_D_LANGUAGES,
  TTS_LANGUAGES,
  TTS_LEGACY_MODEL,
  TTS_MODEL_A_EXPRESSIONS,
  TTS_MODELS,
} from '../constants/speech-synthesis-constants.js';

export const SpeechRequest = z.object({
  text: z.string(),
  language: z.enum(TTS_LANGUAGES).optional(),
  model: z.union([z.enum(TTS_MODELS), z.literal(TTS_LEGACY_MODEL)]).optional(),
  seed: z.number().int().optional(),
  legacy_sample: z.string().min(1).optional(),
  model_a_expression: z.enum(TTS_MODEL_A_EXPRESSIONS).optional(),
  speaker: z.string().min(1).optional(),
  instruct: z.string().min(1).optional(),
  clone_audio: z.string().min(1).optional(),
  consent: z.union([z.boolean(), z.string()]).optional(),
  clone_text: z.string().optional(),
});
export type SpeechRequest = z.infer<typeof SpeechRequest>;

export const SpeechStart = z.looseObject({
  success: z.boolean().optional(),
  taskId: z.string(),
  message: z.string().optional(),
  statusPath: z.string().optional(),
});
export type SpeechStart = z.infer<typeof SpeechStart>;

export const SpeechTask = z.looseObject({
  taskId: z.string(),
  state: z.string(),
  ready: z.boolean(),
  successful: z.boolean().nullable().optional(),
  result: z
    .looseObject({
      success: z.boolean().optional(),
      url: z.string(),
      metadata: z
        .looseObject({
          text: z.string().optional(),
          language: z.string().optional(),
          model: z.string().optional(),
          duration: z.number().optional(),
          seed: z.number().nullable().optional(),
        })
        .optional(),
    })
    .nullable()
    .optional(),
  progress: z.record(z.string(), z.unknown()).nullable().optional(),
  error: z.unknown().optional(),
});
export type SpeechTask = z.infer<typeof SpeechTask>;

/** Body of a 429 from the speech service. */
export const SpeechBusy = z.looseObject({
  error: z.string().optional(),
  activeJobs: z.number().int().optional(),
  concurrentLimit: z.number().int().optional(),
  retryAfterSeconds: z.number().optional(),
});
export type SpeechBusy = z.infer<typeof SpeechBusy>;

export const CustomVoice = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  model: z.string().optional(),
  language: z.string().optional(),
  audioPath: z.string(),
  transcript: z.string().nullable().optional(),
});
export type CustomVoice = z.infer<typeof CustomVoice>;

export const CustomVoiceCreated = z.looseObject({
  success: z.boolean().optional(),
  voice: CustomVoice,
  clone_audio: z.string(),
  clone_text: z.string().nullable().optional(),
  ttsRequest: z
    .looseObject({ clone_audio: z.string(), clone_text: z.string().nullable().optional() })
    .optional(),
});
export type CustomVoiceCreated = z.infer<typeof CustomVoiceCreated>;

/** The consent values the service treats as truthy. */
export function isTruthyConsent(value: unknown): boolean {
  if (value === true) return true;
  return typeof value === 'string' && ['true', '1', 'yes', 'on'].includes(value.trim().toLowerCase());
}

/**
 * Every rule of the speech request the spec states, as issues (empty when valid). Shared by the client,
 * which refuses before sending, and anyone validating input early.
 */
export function speechRequestIssues(request: SpeechRequest): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  const characters = [...request.text].length;
  if (request.text.trim() === '') add('text', 'must not be empty');
  if (characters > MAX_TTS_TEXT_CHARACTERS) {
    add('text', `${characters} characters; at most ${MAX_TTS_TEXT_CHARACTERS} per request (split it)`);
  }
  const model = request.model === TTS_LEGACY_MODEL ? 'model_d' : request.model;
  const language = request.language ?? 'en';
  if (MODEL_D_LANGUAGES.includes(language) && model !== undefined && model !== 'model_d') {
    add('model', `${language} requires model_d`);
  }
  if (request.seed !== undefined && request.seed > MAX_TTS_SEED) add('seed', `at most ${MAX_TTS_SEED}`);
  if (request.model_a_expression !== undefined && !(model === 'model_a' && language === 'vi')) {
    add('model_a_expression', 'only with model=model_a and language=vi');
  }
  if (request.legacy_sample !== undefined && model !== 'model_a') {
    add('legacy_sample', 'only with model_a; other models use clone_audio');
  }
  const clone = request.clone_audio !== undefined;
  if (clone && model === 'model_a') add('clone_audio', 'not with model_a (use legacy_sample)');
  if (request.speaker !== undefined && (clone || (model !== 'model_b' && model !== 'model_c'))) {
    add('speaker', 'only for model_b or model_c without clone audio');
  }
  if (request.instruct !== undefined && !(model === 'model_b' || (model === 'model_d' && !clone))) {
    add('instruct', 'only for model_b, or model_d without clone_audio');
  }
  if (request.clone_text !== undefined && !clone) add('clone_text', 'only together with clone_audio');
  if (clone && /^https:\/\//i.test(request.clone_audio ?? '') && !isTruthyConsent(request.consent)) {
    add('consent', 'must be true when clone_audio is a public https URL: confirm the voice owner agreed');
  }
  if (clone && /^http:\/\//i.test(request.clone_audio ?? '')) {
    add('clone_audio', 'a remote reference must be https://');
  } else if (clone && !isCloneAudioReference(request.clone_audio ?? '')) {
    add(
      'clone_audio',
      'must be the custom_voices/... path register_voice returned, an /uploads/... path, or a public https:// URL',
    );
  }
  return issues;
}

/**
 * The forms of `clone_audio` the spec documents: a returned `custom_voices/...` path, a saved `/uploads/...`
 * path, or a public `https://` URL. The legacy directory form has no documented name, so it is not guessed;
 * anything else (`file:`, `data:`, absolute or `..` paths) is refused before it reaches the platform.
 */
export function isCloneAudioReference(value: string): boolean {
  if (/^https:\/\//i.test(value)) return true;
  if (/[\u0000-\u001f\\]/.test(value) || value.split('/').includes('..')) return false;
  return /^custom_voices\/[^/].*/.test(value) || /^\/uploads\/[^/].*/.test(value);
}
