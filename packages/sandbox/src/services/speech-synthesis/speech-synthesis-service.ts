/**
 * The speech synthesis service (`/api/tts/v1`): custom voice registration, speech tasks with every request
 * rule, states PENDING → STARTED → SUCCESS | FAILURE computed from the sandbox clock, real playable WAVs
 * in a synthetic voice, and the per-key limit on unfinished jobs answered with 429 (`activeJobs`,
 * `concurrentLimit`, `retryAfterSeconds`, `Retry-After`, `Cache-Control: no-store`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { TTS_API_PATH } from '@polymodal/core/constants';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { scaled, type TimelinePhase, timelinePosition } from '../../media/job-timeline.js';
import { createMediaFiles } from '../../media/media-files.js';
import {
  authenticateMedia,
  FAIL_MARKER,
  hasMarker,
  readObject,
  recordJob,
} from '../../media/media-request.js';
import { synthesizeVoice, VOICE_SAMPLE_RATE, voiceDurationSeconds } from '../../media/synthesize-voice.js';
import { type CustomVoice, readVoiceRegistration, voiceView } from './custom-voices.js';
import { BUILT_IN_SPEAKERS, parseSpeechRequest, type SpeechRequest } from './speech-request.js';

export { TTS_API_PATH };
export const TTS_COUNTER = 'ttsTasks';
/**
 * The most speech tasks unfinished at once on one key, as this platform counts them against the key's limit,
 * kept per user id (a key is a secret, never a counter name).
 */
export const TTS_PEAK_UNFINISHED_COUNTER = 'ttsPeakUnfinished';
export const CUSTOM_VOICE_COUNTER = 'customVoices';
const FAILURE_MESSAGE = 'synthesis failed: the model returned no audio for this text';

type TaskState = 'PENDING' | 'STARTED' | 'SUCCESS' | 'FAILURE';

interface Task {
  id: string;
  userId: string;
  key: string;
  createdAt: number;
  phases: TimelinePhase<'PENDING' | 'STARTED'>[];
  request: SpeechRequest;
  /** The seed used (the requested one, or drawn for random generation). */
  seed: number;
  pitchHz: number;
  voice: string;
  fails: boolean;
  url: string | undefined;
  lastPollAt: number | undefined;
}

const MODEL_PITCH: Record<string, number> = { model_a: 165, model_b: 210, model_c: 220, model_d: 180 };

/** PENDING 0.5 s, then STARTED 1 s + 40 ms per character (at speed 1). */
function planTask(text: string, speed: number): TimelinePhase<'PENDING' | 'STARTED'>[] {
  return [
    { name: 'PENDING', ms: scaled(0.5, speed) },
    { name: 'STARTED', ms: scaled(1 + 0.04 * [...text].length, speed) },
  ];
}

export function createSpeechSynthesisService(context: ServiceContext): SandboxService {
  const { clock, counters, config } = context;
  const limits = config.media.speechSynthesis;
  const publicMedia = config.media.publicMedia;
  const files = createMediaFiles(TTS_API_PATH);
  let tasks = new Map<string, Task>();
  let voices = new Map<string, CustomVoice>();

  const stateOf = (task: Task, now = clock.now()) => {
    const position = timelinePosition(task.createdAt, task.phases, now);
    const state: TaskState = position.done ? (task.fails ? 'FAILURE' : 'SUCCESS') : position.phase!;
    return { state, position };
  };

  const activeTasks = (key: string, now: number) =>
    [...tasks.values()].filter(
      (task) => task.key === key && !timelinePosition(task.createdAt, task.phases, now).done,
    );

  /** The 429 for a key at its limit: waits until its earliest unfinished job ends. */
  const tooManyActive = (active: Task[], now: number, message: string): HttpError => {
    const earliest = Math.min(
      ...active.map((task) => timelinePosition(task.createdAt, task.phases, now).endsAt),
    );
    const retryAfterSeconds = Math.max(1, Math.ceil((earliest - now) / 1000));
    return new HttpError(429, message, {
      headers: { 'retry-after': String(retryAfterSeconds), 'cache-control': 'no-store' },
      fields: { activeJobs: active.length, concurrentLimit: limits.concurrentSessions, retryAfterSeconds },
    });
  };

  const resolveVoice = (request: SpeechRequest, userId: string): { pitchHz: number; voice: string } => {
    const clone = request.clone;
    if (clone?.kind === 'custom') {
      const voice = voices.get(clone.path);
      if (!voice || voice.userId !== userId) {
        throw new HttpError(
          400,
          `clone_audio: unknown custom voice ${clone.path}; register it with POST ${TTS_API_PATH}/custom-voices`,
        );
      }
      return { pitchHz: voice.pitchHz, voice: `custom:${voice.id}` };
    }
    if (clone) {
      const reference = clone.kind === 'url' ? clone.url : clone.path;
      const hash = createHash('sha256').update(reference).digest().readUInt16LE(0);
      return { pitchHz: 95 + (hash % 150), voice: 'clone' };
    }
    if (request.speaker && (request.model === 'model_b' || request.model === 'model_c')) {
      return { pitchHz: BUILT_IN_SPEAKERS[request.model][request.speaker]!, voice: request.speaker };
    }
    if (request.legacySample) {
      const hash = createHash('sha256').update(request.legacySample).digest().readUInt16LE(0);
      return { pitchHz: 95 + (hash % 150), voice: 'legacy_sample' };
    }
    return { pitchHz: MODEL_PITCH[request.model]!, voice: 'default' };
  };

  const cloneTextOf = (request: SpeechRequest, userId: string): string | undefined => {
    if (request.cloneText !== undefined) return request.cloneText;
    if (request.clone?.kind === 'custom') {
      const voice = voices.get(request.clone.path);
      if (voice && voice.userId === userId && voice.transcript) return voice.transcript;
    }
    return undefined;
  };

  async function registerVoice(request: RequestContext): Promise<SandboxResponse> {
    const { user } = authenticateMedia(request);
    const voice = await readVoiceRegistration({
      request,
      userId: user.id,
      dataDir: context.dataDir,
      publicMedia,
      referenceRecognition: limits.referenceRecognition,
    });
    voices.set(voice.audioPath, voice);
    counters.increment(CUSTOM_VOICE_COUNTER, user.id);
    return json(201, {
      success: true,
      voice: voiceView(voice),
      clone_audio: voice.audioPath,
      clone_text: voice.transcript,
      ttsRequest: { clone_audio: voice.audioPath, clone_text: voice.transcript },
    });
  }

  async function createSpeech(request: RequestContext): Promise<SandboxResponse> {
    const { user, key } = authenticateMedia(request);
    const body = await readObject(request);
    const speech = parseSpeechRequest(body, { publicMedia });
    const { pitchHz, voice } = resolveVoice(speech, user.id);
    if (
      speech.model === 'model_d' &&
      speech.clone &&
      !limits.referenceRecognition &&
      !cloneTextOf(speech, user.id)
    ) {
      throw new HttpError(
        400,
        'clone_text is required for model_d clone requests: reference recognition is disabled, so send the transcript of clone_audio',
      );
    }
    const now = clock.now();
    const active = activeTasks(key, now);
    if (active.length >= limits.concurrentSessions) {
      throw tooManyActive(
        active,
        now,
        `too many active synthesis jobs for this key: ${active.length} of ${limits.concurrentSessions} unfinished; wait for one to finish (ready=true), then retry`,
      );
    }
    const id = `tts_${randomBytes(12).toString('hex')}`;
    const task: Task = {
      id,
      userId: user.id,
      key,
      createdAt: now,
      phases: planTask(speech.text, context.speed),
      request: speech,
      seed: speech.seed ?? randomBytes(4).readUInt32LE(0) % 2_147_483_648,
      pitchHz,
      voice,
      fails: hasMarker(speech.text, FAIL_MARKER),
      url: undefined,
      lastPollAt: undefined,
    };
    tasks.set(id, task);
    recordJob(counters, user, TTS_COUNTER);
    counters.max(TTS_PEAK_UNFINISHED_COUNTER, user.id, active.length + 1);
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

  const resultOf = (task: Task) => {
    const speech = task.request;
    const pace = speech.expression === 'storytelling' ? 1.15 : 1;
    if (!task.url) {
      const options = { text: speech.text, pitchHz: task.pitchHz, seed: task.seed, pace };
      task.url = files.add({
        name: `${task.id}.wav`,
        contentType: 'audio/wav',
        body: { bytes: () => synthesizeVoice(options) },
      });
    }
    const duration = Math.round(voiceDurationSeconds(speech.text, pace) * 1000) / 1000;
    const metadata: Record<string, unknown> = {
      text: speech.text,
      language: speech.language,
      model: speech.model,
      duration,
      seed: task.seed,
      sample_rate: VOICE_SAMPLE_RATE,
      voice: task.voice,
    };
    if (speech.requestedModel) metadata.requested_model = speech.requestedModel;
    if (speech.expression) metadata.model_a_expression = speech.expression;
    if (speech.instruct) metadata.instruct = speech.instruct;
    if (speech.clone)
      metadata.clone_audio = speech.clone.kind === 'url' ? speech.clone.url : speech.clone.path;
    const cloneText = cloneTextOf(speech, task.userId);
    if (cloneText) metadata.clone_text = cloneText;
    return { success: true, url: task.url, metadata };
  };

  function getSpeech(request: RequestContext): SandboxResponse {
    const { user, key } = authenticateMedia(request);
    const task = tasks.get(request.params.taskId!);
    if (!task || task.userId !== user.id) {
      throw new HttpError(404, `task ${request.params.taskId} not found or not accessible with this key`);
    }
    const now = clock.now();
    if (
      limits.statusMinIntervalMs > 0 &&
      task.lastPollAt !== undefined &&
      now - task.lastPollAt < limits.statusMinIntervalMs
    ) {
      const active = activeTasks(key, now);
      const wait = Math.max(1, Math.ceil((task.lastPollAt + limits.statusMinIntervalMs - now) / 1000));
      throw new HttpError(
        429,
        'polling too fast: keep the same taskId and retry this status URL after Retry-After',
        {
          headers: { 'retry-after': String(wait), 'cache-control': 'no-store' },
          fields: {
            activeJobs: active.length,
            concurrentLimit: limits.concurrentSessions,
            retryAfterSeconds: wait,
          },
        },
      );
    }
    task.lastPollAt = now;
    const { state, position } = stateOf(task, now);
    const ready = state === 'SUCCESS' || state === 'FAILURE';
    const body: Record<string, unknown> = {
      taskId: task.id,
      state,
      ready,
      successful: ready ? state === 'SUCCESS' : null,
    };
    if (!ready) {
      body.progress = {
        percent: Math.min(99, Math.floor(position.fraction * 100)),
        stage: state === 'PENDING' ? 'queued' : 'synthesizing',
      };
    }
    if (state === 'SUCCESS') body.result = resultOf(task);
    if (state === 'FAILURE') body.error = FAILURE_MESSAGE;
    const headers: Record<string, string> = {};
    if (state === 'PENDING') {
      headers['retry-after'] = String(
        Math.max(
          1,
          limits.statusRetryAfterSeconds,
          Math.ceil((task.createdAt + task.phases[0]!.ms - now) / 1000),
        ),
      );
    } else if (!ready && limits.statusRetryAfterSeconds > 0) {
      headers['retry-after'] = String(limits.statusRetryAfterSeconds);
    }
    return json(200, body, headers);
  }

  return {
    name: 'speech-synthesis',
    register(router: Router) {
      router.route('POST', `${TTS_API_PATH}/custom-voices`, registerVoice);
      router.route('POST', `${TTS_API_PATH}/audio/speech`, createSpeech);
      router.route('GET', `${TTS_API_PATH}/audio/speech/:taskId`, getSpeech);
      files.register(router);
    },
    settle() {
      // State is computed from the clock on every look; nothing to settle.
    },
    async reset() {
      tasks = new Map();
      voices = new Map();
      files.clear();
    },
    async close() {
      tasks = new Map();
      voices = new Map();
      files.clear();
    },
  };
}
