/**
 * What the speech synthesis service keeps between requests (tasks and registered custom voices) and what
 * is read off it: a task's state on the clock, the key's unfinished tasks and the 429 that names them,
 * and the voice (pitch and label) a request is spoken in.
 */
import { createHash } from 'node:crypto';
import { TTS_API_PATH } from '@polymodal/core/constants';
import type { ParsedSandboxConfig } from '../../config/sandbox-config.js';
import type { Clock } from '../../framework/clock.js';
import type { CounterRegistry } from '../../framework/counters.js';
import { HttpError } from '../../framework/http-error.js';
import type { ServiceContext } from '../../framework/sandbox-service.js';
import { scaled, type TimelinePhase, timelinePosition } from '../../media/job-timeline.js';
import { createMediaFiles, type MediaFiles } from '../../media/media-files.js';
import type { CustomVoice } from './custom-voices.js';
import { BUILT_IN_SPEAKERS, type SpeechRequest } from './speech-request.js';

export type TaskState = 'PENDING' | 'STARTED' | 'SUCCESS' | 'FAILURE';

export interface SpeechTask {
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
  /** The WAV's URL, made on the first look at the finished task. */
  url: string | undefined;
  lastPollAt: number | undefined;
}

export interface SpeechState {
  clock: Clock;
  counters: CounterRegistry;
  speed: number;
  dataDir: string;
  limits: ParsedSandboxConfig['media']['speechSynthesis'];
  publicMedia: ParsedSandboxConfig['media']['publicMedia'];
  /** The synthesised WAVs. */
  files: MediaFiles;
  tasks: Map<string, SpeechTask>;
  /** Registered custom voices by their `custom_voices/...` path. */
  voices: Map<string, CustomVoice>;
}

export function createSpeechState(context: ServiceContext): SpeechState {
  return {
    clock: context.clock,
    counters: context.counters,
    speed: context.speed,
    dataDir: context.dataDir,
    limits: context.config.media.speechSynthesis,
    publicMedia: context.config.media.publicMedia,
    files: createMediaFiles(TTS_API_PATH),
    tasks: new Map(),
    voices: new Map(),
  };
}

const MODEL_PITCH: Record<string, number> = { model_a: 165, model_b: 210, model_c: 220, model_d: 180 };

/** PENDING 0.5 s, then STARTED 1 s + 40 ms per character (at speed 1). */
export function planTask(text: string, speed: number): TimelinePhase<'PENDING' | 'STARTED'>[] {
  return [
    { name: 'PENDING', ms: scaled(0.5, speed) },
    { name: 'STARTED', ms: scaled(1 + 0.04 * [...text].length, speed) },
  ];
}

export function stateOf(task: SpeechTask, now: number) {
  const position = timelinePosition(task.createdAt, task.phases, now);
  const state: TaskState = position.done ? (task.fails ? 'FAILURE' : 'SUCCESS') : position.phase!;
  return { state, position };
}

/** The key's tasks that are not finished at `now`: what its limit on unfinished jobs counts. */
export function activeTasks(state: SpeechState, key: string, now: number): SpeechTask[] {
  return [...state.tasks.values()].filter(
    (task) => task.key === key && !timelinePosition(task.createdAt, task.phases, now).done,
  );
}

/** The 429 for a key at its limit: waits until its earliest unfinished job ends. */
export function tooManyActive(
  state: SpeechState,
  at: { active: SpeechTask[]; now: number },
  message: string,
): HttpError {
  const { active, now } = at;
  const earliest = Math.min(
    ...active.map((task) => timelinePosition(task.createdAt, task.phases, now).endsAt),
  );
  const retryAfterSeconds = Math.max(1, Math.ceil((earliest - now) / 1000));
  return new HttpError(429, message, {
    headers: { 'retry-after': String(retryAfterSeconds), 'cache-control': 'no-store' },
    fields: {
      activeJobs: active.length,
      concurrentLimit: state.limits.concurrentSessions,
      retryAfterSeconds,
    },
  });
}

/** A pitch derived from a reference, so that the same reference always sounds the same. */
const pitchOf = (reference: string) =>
  95 + (createHash('sha256').update(reference).digest().readUInt16LE(0) % 150);

/**
 * The voice a request is spoken in: a registered custom voice (the caller's own), another clone
 * reference, a built-in speaker, a legacy sample, or the model's default.
 */
export function resolveVoice(
  state: SpeechState,
  request: SpeechRequest,
  userId: string,
): { pitchHz: number; voice: string } {
  const clone = request.clone;
  if (clone?.kind === 'custom') {
    const voice = state.voices.get(clone.path);
    if (!voice || voice.userId !== userId) {
      throw new HttpError(
        400,
        `clone_audio: unknown custom voice ${clone.path}; register it with POST ${TTS_API_PATH}/custom-voices`,
      );
    }
    return { pitchHz: voice.pitchHz, voice: `custom:${voice.id}` };
  }
  if (clone) return { pitchHz: pitchOf(clone.kind === 'url' ? clone.url : clone.path), voice: 'clone' };
  if (request.speaker && (request.model === 'model_b' || request.model === 'model_c')) {
    return { pitchHz: BUILT_IN_SPEAKERS[request.model][request.speaker]!, voice: request.speaker };
  }
  if (request.legacySample) return { pitchHz: pitchOf(request.legacySample), voice: 'legacy_sample' };
  return { pitchHz: MODEL_PITCH[request.model]!, voice: 'default' };
}

/** The transcript of the clone reference: sent with the request, else the custom voice's own. */
export function cloneTextOf(state: SpeechState, request: SpeechRequest, userId: string): string | undefined {
  if (request.cloneText !== undefined) return request.cloneText;
  if (request.clone?.kind === 'custom') {
    const voice = state.voices.get(request.clone.path);
    if (voice && voice.userId === userId && voice.transcript) return voice.transcript;
  }
  return undefined;
}
