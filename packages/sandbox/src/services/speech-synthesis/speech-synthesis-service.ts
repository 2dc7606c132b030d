/**
 * The speech synthesis service (`/api/tts/v1`): custom voice registration, speech tasks with every request
 * rule, states PENDING → STARTED → SUCCESS | FAILURE computed from the sandbox clock, real playable WAVs
 * in a synthetic voice, and the per-key limit on unfinished jobs answered with 429 (`activeJobs`,
 * `concurrentLimit`, `retryAfterSeconds`, `Retry-After`, `Cache-Control: no-store`).
 *
 * This module holds the routes that create (voices, speech tasks); request rules are in speech-request.ts,
 * the task state in speech-tasks.ts and the status route in speech-status.ts.
 */
import { randomBytes } from 'node:crypto';
import { TTS_API_PATH } from '@polymodal/core/constants';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import {
  authenticateMedia,
  FAIL_MARKER,
  hasMarker,
  readObject,
  recordJob,
} from '../../media/media-request.js';
import { readVoiceRegistration, voiceView } from './custom-voices.js';
import { parseSpeechRequest } from './speech-request.js';
import { getSpeech } from './speech-status.js';
import {
  activeTasks,
  cloneTextOf,
  createSpeechState,
  planTask,
  resolveVoice,
  type SpeechState,
  type SpeechTask,
  tooManyActive,
} from './speech-tasks.js';

export { TTS_API_PATH };
export const TTS_COUNTER = 'ttsTasks';
/**
 * The most speech tasks unfinished at once on one key, as this platform counts them against the key's limit,
 * kept per user id (a key is a secret, never a counter name).
 */
export const TTS_PEAK_UNFINISHED_COUNTER = 'ttsPeakUnfinished';
export const CUSTOM_VOICE_COUNTER = 'customVoices';

async function registerVoice(state: SpeechState, request: RequestContext): Promise<SandboxResponse> {
  const { user } = authenticateMedia(request);
  const voice = await readVoiceRegistration({
    request,
    userId: user.id,
    dataDir: state.dataDir,
    publicMedia: state.publicMedia,
    referenceRecognition: state.limits.referenceRecognition,
  });
  state.voices.set(voice.audioPath, voice);
  state.counters.increment(CUSTOM_VOICE_COUNTER, user.id);
  return json(201, {
    success: true,
    voice: voiceView(voice),
    clone_audio: voice.audioPath,
    clone_text: voice.transcript,
    ttsRequest: { clone_audio: voice.audioPath, clone_text: voice.transcript },
  });
}

async function createSpeech(state: SpeechState, request: RequestContext): Promise<SandboxResponse> {
  const { limits } = state;
  const { user, key } = authenticateMedia(request);
  const body = await readObject(request);
  const speech = parseSpeechRequest(body, { publicMedia: state.publicMedia });
  const { pitchHz, voice } = resolveVoice(state, speech, user.id);
  if (
    speech.model === 'model_d' &&
    speech.clone &&
    !limits.referenceRecognition &&
    !cloneTextOf(state, speech, user.id)
  ) {
    throw new HttpError(
      400,
      'clone_text is required for model_d clone requests: reference recognition is disabled, so send the transcript of clone_audio',
    );
  }
  const now = state.clock.now();
  const active = activeTasks(state, key, now);
  if (active.length >= limits.concurrentSessions) {
    throw tooManyActive(
      state,
      { active, now },
      `too many active synthesis jobs for this key: ${active.length} of ${limits.concurrentSessions} unfinished; wait for one to finish (ready=true), then retry`,
    );
  }
  const id = `tts_${randomBytes(12).toString('hex')}`;
  const task: SpeechTask = {
    id,
    userId: user.id,
    key,
    createdAt: now,
    phases: planTask(speech.text, state.speed),
    request: speech,
    seed: speech.seed ?? randomBytes(4).readUInt32LE(0) % 2_147_483_648,
    pitchHz,
    voice,
    fails: hasMarker(speech.text, FAIL_MARKER),
    url: undefined,
    lastPollAt: undefined,
  };
  state.tasks.set(id, task);
  recordJob(state.counters, user, TTS_COUNTER);
  state.counters.max(TTS_PEAK_UNFINISHED_COUNTER, user.id, active.length + 1);
  const retryAfter = Math.max(1, Math.ceil(task.phases[0]!.ms / 1000));
  return json(
    202,
    {
      success: true,
      taskId: id,
      message: `speech synthesis queued; poll statusPath no faster than every ${retryAfter} s`,
      statusPath: `${TTS_API_PATH}/audio/speech/${id}`,
    },
    { 'retry-after': String(retryAfter) },
  );
}

function clear(state: SpeechState): void {
  state.tasks.clear();
  state.voices.clear();
  state.files.clear();
}

export function createSpeechSynthesisService(context: ServiceContext): SandboxService {
  const state = createSpeechState(context);
  return {
    name: 'speech-synthesis',
    register(router: Router) {
      router.route('POST', `${TTS_API_PATH}/custom-voices`, (request) => registerVoice(state, request));
      router.route('POST', `${TTS_API_PATH}/audio/speech`, (request) => createSpeech(state, request));
      router.route('GET', `${TTS_API_PATH}/audio/speech/:taskId`, (request) => getSpeech(state, request));
      state.files.register(router);
    },
    settle() {
      // State is computed from the clock on every look; nothing to settle.
    },
    async reset() {
      clear(state);
    },
    async close() {
      clear(state);
    },
  };
}
