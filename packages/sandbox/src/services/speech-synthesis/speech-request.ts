/**
 * Validation of the speech request (`POST /api/tts/v1/audio/speech`) with every rule of the platform:
 * text length, languages and the model_d rule for Thai, Malay and Lao, the legacy model routed to model_d,
 * the seed range, model-specific fields (expression, speaker, instruct, legacy sample), clone audio forms
 * with consent for public HTTPS references, and clone_text rules.
 */

import type { TtsLanguage, TtsModel } from '@polymodal/core';
import {
  TTS_LEGACY_MODEL as LEGACY_MODEL,
  MAX_TTS_TEXT_CHARACTERS as MAX_TEXT_CHARACTERS,
  MAX_TTS_SEED,
  TTS_MODEL_A_EXPRESSIONS as MODEL_A_EXPRESSIONS,
  MODEL_D_LANGUAGES,
  TTS_LANGUAGES,
  TTS_MODELS,
} from '@polymodal/core/constants';
import { HttpError } from '../../framework/http-error.js';
import type { PublicMediaEntry } from '../../media/media-config.js';
import { rejectUnknownFields } from '../../media/media-request.js';
import { type CloneReference, parseCloneAudio } from './clone-reference.js';

export {
  LEGACY_MODEL,
  MAX_TEXT_CHARACTERS,
  MAX_TTS_SEED,
  MODEL_A_EXPRESSIONS,
  MODEL_D_LANGUAGES,
  TTS_LANGUAGES,
  TTS_MODELS,
  type TtsLanguage,
  type TtsModel,
};
/** Built-in speakers and their base pitch (Hz); the platform's list is not published. */
export const BUILT_IN_SPEAKERS: Record<'model_b' | 'model_c', Record<string, number>> = {
  model_b: { aria: 210, ben: 115, chloe: 228, daniel: 104 },
  model_c: { mei: 220, kenji: 122, sora: 190, lin: 140 },
};

const FIELDS = [
  'text',
  'language',
  'model',
  'seed',
  'legacy_sample',
  'model_a_expression',
  'speaker',
  'instruct',
  'clone_audio',
  'legacy_clone_audio',
  'consent',
  'clone_text',
  'legacy_clone_text',
] as const;

/** Default model per language (not published; documented choice). */
export function defaultModelFor(language: TtsLanguage): TtsModel {
  if (MODEL_D_LANGUAGES.includes(language)) return 'model_d';
  if (language === 'vi') return 'model_a';
  return 'model_b';
}

export interface SpeechRequest {
  text: string;
  language: TtsLanguage;
  model: TtsModel;
  /** Set when the legacy model name was sent (routed to model_d). */
  requestedModel: string | undefined;
  /** A seed 0..2147483647, or undefined for random generation. */
  seed: number | undefined;
  expression: (typeof MODEL_A_EXPRESSIONS)[number] | undefined;
  speaker: string | undefined;
  instruct: string | undefined;
  legacySample: string | undefined;
  clone: CloneReference | undefined;
  cloneText: string | undefined;
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new HttpError(400, `${field} must be a string`);
  return value;
}

/** Reads a field and its legacy alias; both given with different values is a 400. */
function withAlias(body: Record<string, unknown>, field: string, alias: string): string | undefined {
  const value = optionalString(body, field);
  const legacy = optionalString(body, alias);
  if (value !== undefined && legacy !== undefined && value !== legacy) {
    throw new HttpError(400, `${field} and its legacy alias ${alias} differ; send one of them`);
  }
  return value ?? legacy;
}

export interface ParseSpeechOptions {
  publicMedia: Record<string, PublicMediaEntry>;
}

function parseText(body: Record<string, unknown>): string {
  const text = body.text;
  if (typeof text !== 'string' || text.trim() === '') {
    throw new HttpError(400, 'text is required: a non-empty string of at most 200 characters');
  }
  const characters = [...text].length;
  if (characters > MAX_TEXT_CHARACTERS) {
    throw new HttpError(
      400,
      `text is too long: ${characters} characters; the limit is ${MAX_TEXT_CHARACTERS} (split longer text into sentences)`,
    );
  }
  return text;
}

type Voice = Pick<SpeechRequest, 'language' | 'model' | 'requestedModel'>;

/** Language and model; the legacy model name is routed to model_d, which Thai, Malay and Lao require. */
function parseVoice(body: Record<string, unknown>): Voice {
  const languageValue = body.language ?? 'en';
  if (typeof languageValue !== 'string' || !(TTS_LANGUAGES as readonly string[]).includes(languageValue)) {
    throw new HttpError(400, `language must be one of ${TTS_LANGUAGES.join(', ')}`);
  }
  const language = languageValue as TtsLanguage;
  const modelValue = body.model;
  let model: TtsModel;
  let requestedModel: string | undefined;
  if (modelValue === undefined || modelValue === null) {
    model = defaultModelFor(language);
  } else if (modelValue === LEGACY_MODEL) {
    model = 'model_d';
    requestedModel = LEGACY_MODEL;
  } else if (typeof modelValue === 'string' && (TTS_MODELS as readonly string[]).includes(modelValue)) {
    model = modelValue as TtsModel;
  } else {
    throw new HttpError(
      400,
      `model must be one of ${TTS_MODELS.join(', ')} (or ${LEGACY_MODEL}, routed to model_d)`,
    );
  }
  if (MODEL_D_LANGUAGES.includes(language) && model !== 'model_d') {
    throw new HttpError(
      400,
      `language ${language} requires model_d (Thai, Malay and Lao are synthesised by model_d)`,
    );
  }
  return { language, model, requestedModel };
}

/** A seed up to MAX_TTS_SEED; negative or omitted means random (undefined). */
function parseSeed(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new HttpError(400, 'seed must be an integer from 0 to 2147483647 (negative or omitted: random)');
  }
  if (value > MAX_TTS_SEED) throw new HttpError(400, 'seed must be at most 2147483647');
  return value >= 0 ? value : undefined;
}

/** model_a's fields: an expression (Vietnamese only) and a legacy voice sample. */
function parseModelAFields(
  body: Record<string, unknown>,
  { model, language }: Voice,
): Pick<SpeechRequest, 'expression' | 'legacySample'> {
  const expressionValue = optionalString(body, 'model_a_expression');
  let expression: SpeechRequest['expression'];
  if (expressionValue !== undefined) {
    if (model !== 'model_a' || language !== 'vi') {
      throw new HttpError(400, 'model_a_expression is only accepted with model=model_a and language=vi');
    }
    if (!(MODEL_A_EXPRESSIONS as readonly string[]).includes(expressionValue)) {
      throw new HttpError(400, `model_a_expression must be one of ${MODEL_A_EXPRESSIONS.join(', ')}`);
    }
    expression = expressionValue as SpeechRequest['expression'];
  }
  const legacySample = optionalString(body, 'legacy_sample');
  if (legacySample !== undefined && model !== 'model_a') {
    throw new HttpError(
      400,
      `legacy_sample is only for model_a; for ${model} send the reference as clone_audio`,
    );
  }
  return { expression, legacySample };
}

function parseClone(
  body: Record<string, unknown>,
  model: TtsModel,
  options: ParseSpeechOptions,
): CloneReference | undefined {
  const cloneValue = withAlias(body, 'clone_audio', 'legacy_clone_audio');
  let clone: CloneReference | undefined;
  if (cloneValue !== undefined) {
    if (model === 'model_a') {
      throw new HttpError(
        400,
        'clone_audio is for model_b, model_c and model_d; model_a takes legacy_sample',
      );
    }
    clone = parseCloneAudio(cloneValue, { consent: body.consent, publicMedia: options.publicMedia });
  }
  if (body.consent !== undefined && typeof body.consent !== 'boolean' && typeof body.consent !== 'string') {
    throw new HttpError(400, 'consent must be a boolean or a string');
  }
  return clone;
}

/** A built-in speaker of model_b or model_c, only without a clone reference. */
function checkSpeaker(speaker: string | undefined, model: TtsModel, clone: CloneReference | undefined): void {
  if (speaker === undefined) return;
  if (model !== 'model_b' && model !== 'model_c') {
    throw new HttpError(400, 'speaker is only for model_b and model_c');
  }
  if (clone)
    throw new HttpError(400, 'speaker applies only when no clone_audio is supplied; send one of them');
  const known = BUILT_IN_SPEAKERS[model];
  if (!(speaker in known)) {
    throw new HttpError(
      400,
      `unknown speaker "${speaker}" for ${model}; built-in speakers: ${Object.keys(known).join(', ')}`,
    );
  }
}

function checkInstruct(
  instruct: string | undefined,
  model: TtsModel,
  clone: CloneReference | undefined,
): void {
  if (instruct === undefined) return;
  if (model === 'model_d' && clone) {
    throw new HttpError(400, 'instruct must be omitted in model_d clone requests (with clone_audio)');
  }
  if (model !== 'model_b' && model !== 'model_d') {
    throw new HttpError(400, 'instruct is only for model_b and model_d (non-clone) requests');
  }
}

/** Checks the request rule by rule in the platform's order: the first broken rule is the 400. */
export function parseSpeechRequest(
  body: Record<string, unknown>,
  options: ParseSpeechOptions,
): SpeechRequest {
  rejectUnknownFields(body, FIELDS);
  const text = parseText(body);
  const voice = parseVoice(body);
  const { model } = voice;
  const seed = parseSeed(body.seed);
  const { expression, legacySample } = parseModelAFields(body, voice);
  const clone = parseClone(body, model, options);
  const speaker = optionalString(body, 'speaker');
  checkSpeaker(speaker, model, clone);
  const instruct = optionalString(body, 'instruct');
  checkInstruct(instruct, model, clone);
  const cloneText = withAlias(body, 'clone_text', 'legacy_clone_text');
  if (cloneText !== undefined && !clone) {
    throw new HttpError(400, 'clone_text is the transcript of clone_audio; send it only with clone_audio');
  }
  return {
    text,
    ...voice,
    seed,
    expression,
    speaker,
    instruct,
    legacySample,
    clone,
    cloneText: cloneText?.trim() === '' ? undefined : cloneText,
  };
}
