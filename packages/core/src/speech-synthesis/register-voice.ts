/**
 * Registering a custom (cloned) voice: once per recording. The owner's consent is required, the recording
 * is a local WAV checked before the upload (voice-recording.ts) or a public https URL, and a recording this
 * installation registered before answers from the ledger (registered-voices.ts) with nothing sent.
 */
import path from 'node:path';
import { CUSTOM_VOICE_SERVICE, TTS_API_PATH } from '../constants/service-table.js';
import { CustomVoiceCreated, isTruthyConsent } from '../contracts/speech-synthesis.js';
import { ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { type CallOptions, requestOptionsOf } from '../http/call-options.js';
import { fingerprint } from '../ledger/fingerprint.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { createMultipartFieldsBody, createMultipartFileBody } from '../upload/create-multipart-file-body.js';
import { findRegisteredVoice, recordRegisteredVoice } from './registered-voices.js';
import type { SpeechClientDeps } from './speech-client-deps.js';
import { checkVoiceRecording } from './voice-recording.js';

export interface RegisterVoiceOptions extends CallOptions {
  /** The voice owner authorised cloning; must be true. */
  consent: boolean;
  /** A short WAV of the voice (local path), or give audioUrl. */
  audioFile?: string;
  /** A public https URL of the recording. */
  audioUrl?: string;
  name?: string;
  model?: 'model_b' | 'model_c' | 'model_d';
  language?: string;
  transcript?: string;
}

export interface RegisteredVoice extends CustomVoiceCreated {
  /** True when this installation had registered the same recording before and nothing was sent. */
  resumed: boolean;
}

/** The recording as the ledger knows it, and the upload that sends it. */
interface VoiceSource {
  identity: Record<string, unknown>;
  build: () => ReturnType<typeof createMultipartFieldsBody>;
}

export async function registerVoice(
  deps: Pick<SpeechClientDeps, 'http' | 'engine' | 'files'>,
  input: RegisterVoiceOptions,
): Promise<RegisteredVoice> {
  assertRegistrable(input);
  const fields: Record<string, string> = { consent: 'true' };
  if (input.name !== undefined) fields.name = input.name;
  if (input.model !== undefined) fields.model = input.model;
  if (input.language !== undefined) fields.language = input.language;
  if (input.transcript !== undefined) fields.transcript = input.transcript;
  const { identity, build } = await voiceSource(input, fields, deps.files);
  const voiceFingerprint = fingerprint({ service: CUSTOM_VOICE_SERVICE, identity, fields });
  const known = await findRegisteredVoice(deps.engine, voiceFingerprint);
  if (known) return { ...known, resumed: true };
  const response = await deps.http.request({
    method: 'POST',
    path: `${TTS_API_PATH}/custom-voices`,
    multipart: build,
    schema: CustomVoiceCreated,
    idempotent: false,
    ...requestOptionsOf(input),
  });
  await recordRegisteredVoice(deps.engine, voiceFingerprint, {
    voice: response.data,
    title: response.data.voice.name ?? input.name ?? null,
    source: input.audioFile === undefined ? { url: input.audioUrl } : { file: identity.file },
  });
  return { ...response.data, resumed: false };
}

/** Consent, and exactly one recording: checked before anything is opened or sent. */
function assertRegistrable(input: RegisterVoiceOptions): void {
  if (input.consent !== true || !isTruthyConsent(input.consent)) {
    throw new ValidationError(
      'consent must be true: confirm that the owner of the voice authorised cloning it. Nothing was sent.',
      [{ path: 'consent', message: 'required' }],
    );
  }
  if ((input.audioFile === undefined) === (input.audioUrl === undefined)) {
    throw new ValidationError('Give either audioFile or audioUrl (exactly one). Nothing was sent.', [
      { path: 'audioFile', message: 'exactly one of audioFile and audioUrl' },
    ]);
  }
}

async function voiceSource(
  input: RegisterVoiceOptions,
  fields: Record<string, string>,
  files: FileAccess | undefined,
): Promise<VoiceSource> {
  if (input.audioUrl !== undefined) {
    assertPublicHttpUrl(input.audioUrl, { field: 'audioUrl', httpsOnly: true });
    fields.audio_url = input.audioUrl;
    return { identity: { url: input.audioUrl }, build: () => createMultipartFieldsBody(fields) };
  }
  const { realPath, size, mtimeMs } = await checkVoiceRecording(input.audioFile as string, files);
  return {
    identity: { file: realPath, size, mtimeMs },
    build: () =>
      createMultipartFileBody({
        field: 'audio_file',
        path: realPath,
        filename: path.basename(realPath),
        contentType: 'audio/wav',
        fields,
      }),
  };
}
